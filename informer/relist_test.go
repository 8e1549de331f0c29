package informer

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/cache"
	"github.com/zerokube/zerokube/fifo"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
)

// startDispatcher runs the processing loop over a fresh cache and a queue
// of kind, as New wires them.
func startDispatcher(t *testing.T, kind bool, opts Options[*pod]) (*dispatcher[*pod], *cache.Store[*pod], fifo.Queue[*pod]) {
	t.Helper()
	opts = opts.withDefaults()
	store := cache.New(func(p *pod) string { return meta.Key(p) }, nil)
	q := newQueue(kind, store)
	d := newDispatcher(opts, store, q, newRecord(time.Minute), nil)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	d.start(ctx, &wg)
	t.Cleanup(func() { cancel(); q.Close(); wg.Wait() })
	return d, store, writtenQueue[*pod]{Queue: q, d: d}
}

// writtenQueue is a queue whose writes the dispatcher processes as the
// reflector's are: on the writer's goroutine, or by its processing loop.
type writtenQueue[P meta.Object] struct {
	fifo.Queue[P]
	d *dispatcher[P]
}

func (w writtenQueue[P]) Replace(list []P, rv string) error {
	return w.d.sink(w.Queue).Replace(list, rv)
}

// queueKinds names every queue the informer offers, for tests that must
// hold for each.
var queueKinds = map[string]bool{"InOrder": false, "DeltaFIFO": true}

// relistN is the n-th list of the atomicity test: the objects j < objects
// with (n+j)%4 != 0, all at resourceVersion n, so that every relist changes
// every object and adds and drops some.
func relistN(n, objects int) []*pod {
	var out []*pod
	for j := range objects {
		if (n+j)%4 != 0 {
			out = append(out, mkPod("p"+strconv.Itoa(j), strconv.Itoa(n)))
		}
	}
	return out
}

// mixed says what is wrong with a snapshot of the cache, "" when it is
// exactly one of the lists relistN made (or the empty cache before the
// first).
func mixed(snap []*pod, objects int) string {
	if len(snap) == 0 {
		return ""
	}
	rv := snap[0].ResourceVersion
	n, _ := strconv.Atoi(rv)
	want := map[string]bool{}
	for _, p := range relistN(n, objects) {
		want[p.Name] = true
	}
	for _, p := range snap {
		if p.ResourceVersion != rv || !want[p.Name] {
			return fmt.Sprintf("%s@%s in a snapshot of list %s", p.Name, p.ResourceVersion, rv)
		}
	}
	if len(snap) != len(want) {
		return fmt.Sprintf("%d objects of list %s's %d", len(snap), rv, len(want))
	}
	return ""
}

// pacedLW serves its script's lists one at a time: list n+1 only once the
// reader has seen list n in the cache, so that every relist is applied
// while the reader polls, and the reader sees every list.
type pacedLW struct {
	*scriptLW
	seen   chan int // the lists the reader has seen, in order
	served int      // lists served; only the reflector's goroutine lists
}

func (p *pacedLW) List(ctx context.Context, opts ListRequest, each func(*pod) error) (ListPage, error) {
	for p.served > 0 {
		select {
		case n := <-p.seen:
			if n < p.served {
				continue
			}
		case <-ctx.Done():
			return ListPage{}, ctx.Err()
		}
		break
	}
	p.served++
	return p.scriptLW.List(ctx, opts, each)
}

// A reader of the lister sees the list before a relist or the list after
// it, never a mix, with either queue: the queue hands the dispatcher each
// relist whole and the dispatcher swaps the cache to it in one Replace.
// Every watch is refused with 410, so the informer relists at once (the
// clock fires backoffs instantly), each time the reader has seen the last
// list whole; the reader polls the lister throughout.
func TestRelistIsAtomicForReaders(t *testing.T) {
	const relists, objects = 200, 40
	for name, kind := range queueKinds {
		t.Run(name, func(t *testing.T) {
			lw := &pacedLW{scriptLW: &scriptLW{}, seen: make(chan int, relists)}
			for n := 1; n <= relists; n++ {
				lw.lists = append(lw.lists, listReply{items: relistN(n, objects),
					lm: meta.ListMeta{ResourceVersion: strconv.Itoa(n)}})
				lw.watches = append(lw.watches, &fakeWatch{openErr: statusErr(410, meta.ReasonGone)})
			}
			clk := newFakeClock()
			clk.SetInstant(true)
			var swaps atomic.Int64
			inf := newInformer[pod](lw, Options[*pod]{
				Clock:   clk,
				Rand:    func() float64 { return 0 },
				Process: ProcessOptions{DeltaFIFO: kind},
				Observe: ObserveOptions{
					Logger: quiet(),
					Trace: func(e observe.Event) {
						if e.Stage == observe.StageCacheReplaced {
							swaps.Add(1)
						}
					},
				},
			})
			lister := inf.Lister()
			type result struct {
				reads, lists int
				bad          string
			}
			res := make(chan result, 1)
			go func() {
				var r result
				for last := 0; last < relists && t.Context().Err() == nil; {
					snap := lister.List(meta.LabelSelector{})
					r.reads++
					if r.bad = mixed(snap, objects); r.bad != "" {
						break
					}
					if len(snap) == 0 {
						continue // before the first list
					}
					if n, _ := strconv.Atoi(snap[0].ResourceVersion); n != last {
						last = n
						r.lists++
						lw.seen <- n
					}
				}
				res <- r
			}()
			startInformer(t, inf)
			var r result
			select {
			case r = <-res:
			case <-time.After(time.Minute):
				t.Fatalf("the cache never held list %d; %d swaps so far", relists, swaps.Load())
			}
			require.Empty(t, r.bad, "after %d reads", r.reads)
			require.Equal(t, relists, r.lists, "the reader saw every list")
			require.EqualValues(t, relists, swaps.Load(), "one swap per relist")
			t.Logf("%d reads", r.reads)
		})
	}
}

// After a relist the handlers hear what client-go's DeltaFIFO Replace makes
// them hear: an update for a listed object that changed, an add for a new
// one, a delete with finalStateUnknown for one the list no longer has, and
// nothing for an unchanged one, unless the handler's resync is due.
func TestRelistNotifiesLikeClientGo(t *testing.T) {
	for name, kind := range queueKinds {
		for _, loop := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/loop=%t", name, loop), func(t *testing.T) { testRelistNotifiesLikeClientGo(t, kind, loop) })
		}
	}
}

func testRelistNotifiesLikeClientGo(t *testing.T, kind bool, loop bool) {
	clock := newFakeClock()
	d, _, q := startDispatcher(t, kind, Options[*pod]{Clock: clock, Process: ProcessOptions{InlineProcessing: !loop}, Observe: ObserveOptions{Logger: quiet()}})
	plain, resyncing := newView(), newView()
	_, err := d.add(plain, HandlerOptions{Name: "plain"})
	require.NoError(t, err)
	_, err = d.add(resyncing, HandlerOptions{Name: "resyncing", ResyncPeriod: time.Minute})
	require.NoError(t, err)
	require.NoError(t, q.Replace([]*pod{mkPod("a", "1"), mkPod("b", "1"), mkPod("c", "1")}, "1"))
	require.Eventually(t, func() bool { return len(plain.lines()) == 3 && len(resyncing.lines()) == 3 }, wait, time.Millisecond)

	// Mark the resync due by hand: advancing the clock would also let the
	// resync loop queue Syncs of its own.
	require.Equal(t, "resyncing", d.resyncDue(clock.Now().Add(time.Minute)))
	require.NoError(t, q.Replace([]*pod{mkPod("a", "1"), mkPod("b", "2"), mkPod("d", "1")}, "2"))
	want := []string{"update b@1->2", "add d@1 initial=false", "delete c unknown=true"}
	require.Eventually(t, func() bool { return len(plain.lines()) == 6 }, wait, time.Millisecond)
	require.Equal(t, want, plain.lines()[3:])
	require.Eventually(t, func() bool { return len(resyncing.lines()) == 7 }, wait, time.Millisecond)
	require.Equal(t, append([]string{"update a@1->1"}, want...), resyncing.lines()[3:])
}
