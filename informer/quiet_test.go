package informer_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/clock/clocktest"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/informer"
)

// A quiet resource is not a stalled one. kube-apiserver serving a resource
// from etcd (its watch cache off for it) ends a streaming list with the
// initial-events-end bookmark and sends no periodic bookmarks after it.
// That one bookmark is part of the list, not a sign of a bookmark cadence:
// the informer must not take the silence that follows for a stall, fail,
// back off and relist every few minutes, and turn unhealthy. Here the fake
// sends no periodic bookmarks (an hour apart), nothing changes for ten idle
// periods, and the informer, in both sync modes, stays healthy: each idle
// watch is reopened quietly, no failure, never stale.
func TestAQuietInformerStaysHealthyWithoutPeriodicBookmarks(t *testing.T) {
	for _, streaming := range []bool{true, false} {
		t.Run(map[bool]string{true: "streaming list", false: "LIST"}[streaming], func(t *testing.T) {
			e := newEnv(t, fakeapiserver.Options{BookmarkInterval: time.Hour})
			e.put(t, "a", "0", nil)
			clk := clocktest.New()
			opts := fastOpts()
			opts.Clock, opts.Watch.IdleTimeout, opts.Sync.StreamingList = clk, time.Minute, streaming
			inf := informer.New[configMap](e.client, cmRef, opts)
			run(t, inf)
			synced(t, inf)
			for i := range 10 {
				require.NoError(t, e.srv.AwaitWatchers(t.Context(), 1), "idle period %d", i)
				require.NoError(t, clk.AwaitTimers(t.Context(), 1), "idle period %d: the watchdog is armed", i)
				clk.Advance(time.Minute)
				h := inf.Health()
				require.Nil(t, h.Failure, "idle period %d: a quiet watch is no failure", i)
				require.False(t, h.Stale, "idle period %d: %+v", i, h)
			}
		})
	}
}
