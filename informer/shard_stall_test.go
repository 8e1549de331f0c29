package informer_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/clock/clocktest"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/shard"
)

// itemServer serves a LIST whose items it writes one at a time, each when
// the test sends on next, and watches that say nothing.
func itemServer(t *testing.T, n int, next <-chan struct{}) *apiclient.Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") != "" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(200)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprint(w, `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"100"},"items":[`)
		w.(http.Flusher).Flush()
		for i := range n {
			select {
			case <-next:
			case <-r.Context().Done():
				return
			}
			sep := ","
			if i == 0 {
				sep = ""
			}
			_, _ = fmt.Fprintf(w, `%s{"metadata":{"name":"cm-%d","namespace":"default","uid":"uid-%d","resourceVersion":"%d"}}`, sep, i, i, i+1)
			w.(http.Flusher).Flush()
		}
		_, _ = fmt.Fprint(w, `]}`)
	}))
	t.Cleanup(srv.Close)
	c, err := apiclient.NewWithOptions(&apiclient.Config{Host: srv.URL, QPS: -1}, apiclient.Options{})
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	return c
}

// A shard never turns progress into a stall. With Shard 1/8 against a
// server that ignores shard selectors, a LIST whose items come steadily,
// each within StallTimeout, has objects of other shards between those of
// its own, longer apart than the bound. They are dropped above the reply's
// reader, whose watchdog has counted them: the list completes, with no
// failure. (The watchdog used to be reset after the shard filter, and
// such a list was reported stalled in seconds.)
func TestAShardTheServerIgnoresDoesNotStall(t *testing.T) {
	const items, bound = 40, 3 * time.Second
	next := make(chan struct{})
	c := itemServer(t, items, next)
	sel, err := shard.Of(0, 8)
	require.NoError(t, err)
	sh, err := informer.NewShard(sel)
	require.NoError(t, err)
	clk := clocktest.New()
	opts := fastOpts()
	opts.Clock, opts.Sync.StallTimeout, opts.Shard = clk, bound, sh
	inf := informer.New[configMap](c, cmRef, opts)
	run(t, inf)
	require.NoError(t, clk.AwaitTimers(t.Context(), 1), "the watchdog waits for the first item")
	for i := range items {
		clk.Advance(bound - time.Second)
		next <- struct{}{}
		if i < items-1 {
			// The item restarts the watchdog at the current time: wait
			// for that, so that the next step is timed from this item.
			ctx, cancel := context.WithTimeout(t.Context(), wait)
			err := clk.AwaitDeadline(ctx, clk.Now().Add(bound))
			require.NoError(t, err, "the watchdog restarted after item %d", i)
			cancel()
		}
	}
	synced(t, inf)
	require.Nil(t, inf.Health().Failure, "steady items are progress, whichever shard they are of")
	kept := 0
	for i := range items {
		if sel.ContainsHash(shard.Hash(fmt.Sprint("uid-", i))) {
			kept++
		}
	}
	require.Len(t, inf.Lister().List(meta.LabelSelector{}), kept)
	require.Less(t, kept, items/2, "most items were of other shards")
}
