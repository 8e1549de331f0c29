package informer_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/informer"
)

// TestRandomWritesAndFaultsConverge writes at random while dropping, cutting
// and stalling watches, compacting history, restarting the server and
// failing requests. Afterwards the cache and every handler's own view must
// equal the server's state exactly.
func TestRandomWritesAndFaultsConverge(t *testing.T) {
	for _, tc := range []struct {
		queue     informer.QueueKind
		streaming bool
	}{{informer.QueueInOrder, false}, {informer.QueueDeltaFIFO, true}} {
		t.Run(fmt.Sprintf("queue=%d/streaming=%t", tc.queue, tc.streaming), func(t *testing.T) {
			seed := uint64(time.Now().UnixNano())
			t.Logf("seed %d", seed)
			rnd := rand.New(rand.NewPCG(seed, 0))
			start := time.Now()
			e := newEnv(t, fakeapiserver.Options{BookmarkInterval: 20 * time.Millisecond, WatchBuffer: 16})
			opts := fastOpts()
			opts.Queue = tc.queue
			opts.StreamingList = tc.streaming
			opts.WatchIdleTimeout = 200 * time.Millisecond
			opts.Trace = func(ev informer.TraceEvent) {
				if ev.Stage == informer.StageBackoff || ev.Stage == informer.StageRelist || ev.Stage == informer.StageWatchEnded {
					t.Logf("%s +%s %s %v %s", ev.Stage, time.Since(start), ev.Duration, ev.Err, ev.Cause)
				}
			}
			inf := informer.NewForResource[configMap](e.client, cmRef, opts)
			bounded, unbounded := newView(), newView()
			_, err := inf.AddHandler(bounded, informer.HandlerOptions{QueueCapacity: 2})
			require.NoError(t, err)
			_, err = inf.AddHandler(unbounded, informer.HandlerOptions{Unbounded: true})
			require.NoError(t, err)
			run(t, inf)
			late := newView()
			for step := range 400 {
				name := fmt.Sprintf("cm-%d", rnd.IntN(25))
				switch r := rnd.IntN(100); {
				case r < 3:
					e.srv.DropWatches()
				case r < 5:
					e.srv.CutWatches()
				case r < 7:
					e.srv.Compact(0)
				case r < 8:
					e.srv.StallWatches()
				case r < 9:
					e.srv.Restart()
				case r < 10:
					e.srv.FailNext(fakeapiserver.Failure{Count: 1 + rnd.IntN(2), Code: []int{500, 503, 429}[rnd.IntN(3)]})
				case r < 30:
					_ = e.srv.Delete(cmGVR, "default", name)
				default:
					e.put(t, name, fmt.Sprint(step), nil)
				}
				if step == 200 {
					_, err = inf.AddHandler(late, informer.HandlerOptions{})
					require.NoError(t, err)
				}
			}
			t.Logf("writes done after %s", time.Since(start))
			converges(t, e, inf, bounded, unbounded, late)
			t.Logf("converged after %s", time.Since(start))
		})
	}
}
