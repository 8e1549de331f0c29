package informer_test

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/clock/clocktest"
	"github.com/zerokube/zerokube/informer"
)

// With InlineProcessing nobody waits in Pop: the goroutine that queues the
// resync must apply it too. On a quiet resource (one object, no writes) a
// resync that were only queued would reach no handler until the next
// event, which may never come.
func TestInlineResyncReachesHandlersWithoutAServerWrite(t *testing.T) {
	for _, synchronous := range []bool{false, true} {
		t.Run(map[bool]string{false: "handler goroutine", true: "synchronous handler"}[synchronous], func(t *testing.T) {
			e := newEnv(t)
			seed(t, e, "a")
			clk := clocktest.New()
			opts := fastOpts()
			opts.Process.InlineProcessing, opts.Clock, opts.Process.ResyncPeriod = true, clk, time.Minute
			inf := informer.New[configMap](e.client, cmRef, opts)
			var mu sync.Mutex
			var resyncs []string
			_, err := inf.AddHandler(informer.HandlerFuncs[*configMap]{UpdateFunc: func(old, cm *configMap) {
				mu.Lock()
				defer mu.Unlock()
				if old == cm {
					resyncs = append(resyncs, cm.Name+"@"+cm.ResourceVersion)
				}
			}}, informer.HandlerOptions{Synchronous: synchronous})
			require.NoError(t, err)
			run(t, inf)
			synced(t, inf)
			rv := e.srv.ResourceVersion()
			require.Eventually(t, func() bool { return slices.Contains(clk.Delays(), time.Minute) }, wait, time.Millisecond,
				"the resync timer is armed: %v", clk.Delays())
			clk.Advance(time.Minute)
			require.Eventually(t, func() bool {
				mu.Lock()
				defer mu.Unlock()
				return len(resyncs) == 1
			}, wait, time.Millisecond, "OnUpdate(a, a) from the resync")
			mu.Lock()
			require.Equal(t, []string{"a@" + inf.Store().List()[0].ResourceVersion}, resyncs)
			mu.Unlock()
			require.Equal(t, rv, e.srv.ResourceVersion(), "no write on the server")
		})
	}
}
