package informer_test

import (
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/clock/clocktest"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/internal/cutproxy"
)

// Recovery after a heal is prompt: through a partition long enough for
// the backoff to reach its top, the informer asks once a second whether
// the server answers again, and is back in step within about a second of
// the heal instead of waiting out a backoff grown while the server was
// away (it waited 10-20 s, and up to 51 s past a 30 s cap, before). Time
// is the fake clock's, in instant mode: every wait is recorded and none is
// slept, so the time from the heal to a matching cache is the sum of the
// waits begun after it.
func TestAfterAPartitionTheCacheMatchesWithinTwoSecondsOfTheHeal(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		t.Run(map[bool]string{false: "LIST", true: "streaming list"}[streaming], func(t *testing.T) {
			e := newEnv(t)
			e.put(t, "a", "0", nil)
			u, err := url.Parse(e.srv.URL())
			require.NoError(t, err)
			proxy := cutproxy.New(t, u.Host)
			cfg := fakeapiservertest.ClientConfig(e.srv)
			cfg.Host = u.Scheme + "://" + proxy.Addr()
			c, err := apiclient.NewWithOptions(cfg, apiclient.Options{})
			require.NoError(t, err)
			t.Cleanup(c.CloseIdleConnections)
			clk := clocktest.New()
			clk.SetInstant(true)
			log := &backoffLog{}
			inf := informer.New[configMap](c, cmRef, informer.Options[*configMap]{
				Clock: clk,
				Rand:  func() float64 { return 0 },
				Sync:  informer.SyncOptions{StreamingList: streaming},
				Observe: informer.ObserveOptions{
					Logger: quiet(),
					Trace:  log.trace,
				},
			})
			run(t, inf)
			synced(t, inf)

			proxy.Down(true)
			require.Eventually(t, func() bool { return log.len() >= 7 }, wait, time.Millisecond,
				"seven failures during the partition: the backoff reaches its top")
			e.put(t, "a", "1", nil)
			e.put(t, "b", "1", nil)
			mark := len(clk.Delays())
			proxy.Down(false)
			converges(t, e, inf)
			var waited time.Duration
			for _, d := range clk.Delays()[mark:] {
				waited += d
			}
			require.LessOrEqual(t, waited, 2*time.Second, "from the heal to a matching cache, on the fake clock")
		})
	}
}
