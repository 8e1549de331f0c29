package informer_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
)

// convergeWithin bounds the wait for convergence after the last write. It
// is not a speed target: the wait ends as soon as the informer is there,
// and the bound only turns a wedged informer into a failure, with room for
// -race on a machine shared by several test runs.
const convergeWithin = 30 * time.Second

// TestRandomWritesAndFaultsConverge writes at random while dropping, cutting
// and stalling watches, compacting history, restarting the server and
// failing requests. Afterwards the cache and every handler's own view must
// equal the server's state exactly.
//
// The script is paced by the informer: after each fault it waits (briefly,
// on the informer's trace) until the informer reacts, so that the next
// writes and faults land while it relists, re-watches or backs off, rather
// than all before it has noticed the first.
func TestRandomWritesAndFaultsConverge(t *testing.T) {
	for _, tc := range []struct {
		deltaFIFO bool
		streaming bool
		loop      bool // not Options.Process.InlineProcessing
	}{{false, false, false}, {true, true, false}, {false, false, true}} {
		t.Run(fmt.Sprintf("deltaFIFO=%t/streaming=%t/loop=%t", tc.deltaFIFO, tc.streaming, tc.loop), func(t *testing.T) {
			seed := uint64(time.Now().UnixNano())
			t.Logf("seed %d", seed)
			rnd := rand.New(rand.NewPCG(seed, 0))
			start := time.Now()
			e := newEnv(t, fakeapiserver.Options{BookmarkInterval: 20 * time.Millisecond, WatchBuffer: 16})
			p := &pacer{changed: make(chan struct{})}
			opts := fastOpts()
			opts.Process.DeltaFIFO = tc.deltaFIFO
			opts.Sync.StreamingList = tc.streaming
			opts.Process.InlineProcessing = !tc.loop
			opts.Watch.IdleTimeout = 200 * time.Millisecond
			opts.Observe.Trace = func(ev observe.Event) {
				if ev.Stage == observe.StageBackoff || ev.Stage == observe.StageRelist || ev.Stage == observe.StageWatchEnded {
					t.Logf("%s +%s %s %v %s", ev.Stage, time.Since(start), ev.Duration, ev.Err, ev.Cause)
				}
				p.observe(ev)
			}
			inf := informer.New[configMap](e.client, cmRef, opts)
			bounded, unbounded := newView(), newView()
			_, err := inf.AddHandler(bounded, informer.HandlerOptions{QueueCapacity: 2})
			require.NoError(t, err)
			_, err = inf.AddHandler(unbounded, informer.HandlerOptions{Unbounded: true})
			require.NoError(t, err)
			inline := newView()
			_, err = inf.AddHandler(inline, informer.HandlerOptions{Synchronous: true})
			require.NoError(t, err)
			run(t, inf)
			late, lateInline := newView(), newView()
			var faults, overlapped int
			for step := range 400 {
				name := fmt.Sprintf("cm-%d", rnd.IntN(25))
				fault := true
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
					fault = false
					_ = e.srv.Delete(cmGVR, "default", name)
				default:
					fault = false
					e.put(t, name, fmt.Sprint(step), nil)
				}
				if fault {
					faults++
					if p.awaitReaction(100 * time.Millisecond) {
						overlapped++
					}
				}
				if step == 200 {
					_, err = inf.AddHandler(late, informer.HandlerOptions{})
					require.NoError(t, err)
					_, err = inf.AddHandler(lateInline, informer.HandlerOptions{Synchronous: true})
					require.NoError(t, err)
				}
			}
			t.Logf("writes done after %s; %d faults, %d of them followed by a reaction of the informer within 100 ms",
				time.Since(start), faults, overlapped)
			p.converges(t, e, inf, bounded, unbounded, inline, late, lateInline)
			t.Logf("converged after %s", time.Since(start))
		})
	}
}

// pacer follows the informer's trace: it counts the steps that show a
// reaction to a fault (a watch ended, a relist, a backoff, a new watch) and
// wakes waiters on every trace event.
type pacer struct {
	reactions atomic.Int64
	mu        sync.Mutex
	changed   chan struct{} // closed and replaced on every trace event
}

func (p *pacer) observe(ev observe.Event) {
	switch ev.Stage {
	case observe.StageWatchEnded, observe.StageRelist, observe.StageBackoff, observe.StageWatchOpened:
		p.reactions.Add(1)
	}
	p.mu.Lock()
	close(p.changed)
	p.changed = make(chan struct{})
	p.mu.Unlock()
}

func (p *pacer) wait() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.changed
}

// awaitReaction waits until the informer reacts to something, for at most
// d; false when it did not (the fault hit nothing it had open).
func (p *pacer) awaitReaction(d time.Duration) bool {
	return p.await(func(n0 int64) bool { return p.reactions.Load() > n0 }, d)
}

// await waits for cond(reactions at the start), re-checked on every trace
// event, for at most d.
func (p *pacer) await(cond func(int64) bool, d time.Duration) bool {
	n0 := p.reactions.Load()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	for {
		ch := p.wait()
		if cond(n0) {
			return true
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return cond(n0)
		}
	}
}

// converges waits, on the informer's trace (handler calls included), until
// the cache and every view equal the server, for at most convergeWithin.
func (p *pacer) converges(t *testing.T, e *env, inf *informer.Informer[configMap, *configMap], views ...*view) {
	t.Helper()
	want := e.serverState(t)
	equal := func(int64) bool {
		if !maps.Equal(want, cacheState(inf)) {
			return false
		}
		for _, v := range views {
			if !maps.Equal(want, v.snapshot()) {
				return false
			}
		}
		return true
	}
	if !p.await(equal, convergeWithin) {
		require.Equal(t, want, cacheState(inf), "the cache must equal the server within %s of the last write", convergeWithin)
		for i, v := range views {
			require.Equal(t, want, v.snapshot(), "handler %d must equal the server", i)
		}
	}
}
