package informer_test

import (
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/clock/clocktest"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
)

// backoffLog keeps the reflector's backoffs (the StageBackoff trace
// events), each with the error it waits after.
type backoffLog struct {
	mu    sync.Mutex
	waits []observe.Event
}

func (l *backoffLog) trace(ev observe.Event) {
	if ev.Stage == observe.StageBackoff {
		l.mu.Lock()
		l.waits = append(l.waits, ev)
		l.mu.Unlock()
	}
}

func (l *backoffLog) since(n int) []observe.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]observe.Event(nil), l.waits[n:]...)
}

func (l *backoffLog) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.waits)
}

// TestAfterAPartitionA410Or504RelistsAtOnce (issue 31 item 8): through a
// partition (every request answered 503, connections cut) the backoff
// grows to its maximum; the server then comes back having compacted its
// history (the first watch meets 410 Expired) or answering the first watch
// 504 ResourceVersionTooLarge. The server answered: the relist goes out at
// once, not after the backoff grown while it was away (before: a wait of
// 25.6 s on the fake clock here; 14-25 s measured through a proxy against
// kube-apiserver). Time is the fake clock's, in instant mode: every
// backoff is recorded and none is slept, so the time from the reconnect to
// a cache that matches the server is the sum of the waits traced after it.
func TestAfterAPartitionA410Or504RelistsAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name string
		back func(*fakeapiserver.Server)
	}{
		{"410 after compaction", func(s *fakeapiserver.Server) { s.Compact(0) }},
		{"504 too-large-rv", func(s *fakeapiserver.Server) {
			s.FailNext(fakeapiserver.Failure{Count: 1, Code: 504, Verb: "watch", AsEvent: true})
		}},
	} {
		for _, streaming := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/streaming=%t", tc.name, streaming), func(t *testing.T) {
				e := newEnv(t)
				e.put(t, "a", "0", nil)
				clk := clocktest.New()
				clk.SetInstant(true)
				log := &backoffLog{}
				opts := informer.Options[*configMap]{
					Clock: clk,
					Rand:  func() float64 { return 0 },
					Sync:  informer.SyncOptions{StreamingList: streaming},
					Observe: informer.ObserveOptions{
						Logger: quiet(),
						Trace:  log.trace,
					},
				}
				inf := informer.New[configMap](e.client, cmRef, opts)
				run(t, inf)
				synced(t, inf)

				var away atomic.Bool
				away.Store(true)
				e.srv.FailNext(fakeapiserver.Failure{Count: fakeapiserver.Forever, Code: 503,
					Match: func(*http.Request) bool { return away.Load() }})
				e.srv.Restart()
				require.Eventually(t, func() bool { return log.len() >= 7 }, wait, time.Millisecond,
					"seven failures during the partition: the backoff reaches its 30 s maximum")
				e.put(t, "a", "1", nil)
				e.put(t, "b", "1", nil)
				tc.back(e.srv)
				mark := log.len()
				away.Store(false)
				converges(t, e, inf)

				var waited time.Duration
				for _, b := range log.since(mark) {
					if meta.IsServiceUnavailable(b.Err) {
						continue // a 503 of the partition, answered before it ended
					}
					waited += b.Duration
				}
				require.Less(t, waited, time.Second/2, "time from the reconnect to a matching cache, on the fake clock (before: 30 s after a 410, the 1 s hint after a 504)")
				if f := inf.Health().Failure; f != nil {
					require.NotEqual(t, observe.FailureRepeatedGone, f.Reason)
				}
			})
		}
	}
}
