package informer_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/clock/clocktest"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/watchstream"
)

// trickle is issue 31's slow reply: a few bytes of the body at once, then
// 4 bytes a second, which never makes an object within a test's time.
func trickle(verb, query string) fakeapiserver.SlowBody {
	return fakeapiserver.SlowBody{Count: fakeapiserver.Forever, Verb: verb, QueryContains: query, After: 20, Every: 250 * time.Millisecond}
}

// errorLog keeps what WatchErrorHandler saw.
type errorLog struct {
	mu   sync.Mutex
	errs []error
}

func (l *errorLog) handle(_ context.Context, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.errs = append(l.errs, err)
}

func (l *errorLog) stalls() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, err := range l.errs {
		if errors.Is(err, watchstream.ErrStalled) {
			n++
		}
	}
	return n
}

// drive moves clk on by step until cond holds, giving the informer's
// goroutines a moment after each step; it fails after wait (real time).
func drive(t *testing.T, clk *clocktest.Fake, step time.Duration, cond func() bool, msg string) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !cond() {
		require.True(t, time.Now().Before(deadline), "%s: still not after %v (fake time %v)", msg, wait, clk.Now().Sub(clocktest.Start))
		clk.Advance(step)
		for range 20 {
			if cond() {
				return
			}
			time.Sleep(time.Millisecond) // let the informer's goroutines run; not a wait for a result
		}
	}
}

// TestAStalledReplyIsAbandonedAndRetried (issue 31 item 1): a reply that
// sends its headers and then trickles its body (4 bytes a second) is
// abandoned, reported as FailureStalled and retried after a backoff, in
// each sync mode; once the server is healthy again the cache matches it.
// Before, a paged LIST waited for the trickle forever (no recovery 4
// minutes after the server's), a stalled watch was reopened again and again
// while Health said healthy, and a streaming list's timeout was reported
// as "server unreachable".
func TestAStalledReplyIsAbandonedAndRetried(t *testing.T) {
	for _, tc := range []struct {
		name      string
		streaming bool
		slow      fakeapiserver.SlowBody
		// synced: the fault is armed after the sync, and the watches
		// are dropped so that the next one meets it.
		synced bool
		step   time.Duration
	}{
		{name: "paged LIST", slow: trickle("list", "continue="), step: 10 * time.Second},
		{name: "streaming list", streaming: true, slow: trickle("watch", "sendInitialEvents=true"), step: 10 * time.Second},
		{name: "watch", slow: fakeapiserver.SlowBody{Count: fakeapiserver.Forever, Verb: "watch"}, synced: true, step: 30 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			for i := range 5 {
				e.put(t, fmt.Sprintf("cm-%d", i), "0", nil)
			}
			clk := clocktest.New()
			log := &errorLog{}
			var opened atomic.Int32 // watches opened (traced after the record saw them)
			opts := informer.Options[*configMap]{
				Clock: clk,
				Rand:  func() float64 { return 0 },
				Sync: informer.SyncOptions{
					PageSize:            2,
					ConsistentFirstList: true,
					StreamingList:       tc.streaming,
				},
				Observe: informer.ObserveOptions{
					Logger:            quiet(),
					WatchErrorHandler: log.handle,
					Trace: func(ev observe.Event) {
						if ev.Stage == observe.StageWatchOpened {
							opened.Add(1)
						}
					},
				},
			}
			if !tc.synced {
				e.srv.SlowBodies(tc.slow)
			}
			inf := informer.New[configMap](e.client, cmRef, opts)
			run(t, inf)
			if tc.synced {
				synced(t, inf)
				require.Eventually(t, func() bool { return e.srv.Stats().Bookmarks > 0 }, wait, time.Millisecond)
				converges(t, e, inf)
				e.srv.SlowBodies(tc.slow)
				e.srv.DropWatches()
			}
			start := clk.Now()
			unhealthy := func() bool { h := inf.Health(); return h.Failing || h.Stale }
			if tc.streaming {
				// The streaming list's timeout falls back to a LIST at
				// once, which is not slowed: one stall, then the sync.
				drive(t, clk, tc.step, func() bool { return log.stalls() == 1 && inf.HasSynced() }, "a stall, then the LIST")
			} else {
				drive(t, clk, tc.step, unhealthy, "unhealthy")
				h := inf.Health()
				t.Logf("unhealthy after %v on the fake clock (failing=%t stale=%t)", clk.Now().Sub(start), h.Failing, h.Stale)
				require.NotNil(t, h.Failure)
				require.Equal(t, observe.FailureStalled, h.Failure.Reason, "%v", h.Failure)
				if !tc.synced {
					require.True(t, h.Failing)
					require.Equal(t, 3, h.Failure.Attempts, "unhealthy at UnhealthyAfterFailures (3) stalled attempts")
				}
				// Unhealthy within the failure count or StaleAfter (3 min),
				// whichever comes first. Each LIST page may take what the
				// server allows a LIST before its first object (65 s), so
				// three stalled pages take up to three times that; each
				// attempt's timers fire up to two steps late here.
				limit := 3*time.Minute + 2*tc.step
				if !tc.synced {
					limit = 3 * (watchstream.ServerListTimeout + 5*time.Second + 2*tc.step)
				}
				require.LessOrEqual(t, clk.Now().Sub(start), limit)
				require.GreaterOrEqual(t, log.stalls(), 1)
				if tc.synced {
					// The next watch, which stalls too, does not make it
					// healthy by being opened.
					n := opened.Load()
					drive(t, clk, tc.step, func() bool { return opened.Load() > n }, "the next watch")
					require.True(t, unhealthy(), "a watch that stalls again: %+v", inf.Health())
				}
				e.srv.ClearFaults()
				drive(t, clk, tc.step, func() bool { return maps.Equal(e.serverState(t), cacheState(inf)) && inf.Health().Healthy() },
					"healthy again")
			}
			e.put(t, "cm-new", "1", nil)
			converges(t, e, inf)
		})
	}
}
