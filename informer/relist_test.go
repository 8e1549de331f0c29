package informer

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/cache"
	"github.com/zerokube/zerokube/fifo"
	"github.com/zerokube/zerokube/meta"
)

// startDispatcher runs the processing stage over a fresh cache and an
// InOrder queue that keeps relists whole, as New wires them.
func startDispatcher(t *testing.T, opts Options[*pod]) (*dispatcher[*pod], *cache.Store[*pod], fifo.Queue[*pod]) {
	t.Helper()
	opts = opts.withDefaults()
	key := func(p *pod) string { return meta.Key(p) }
	store := cache.New(key, nil)
	q := fifo.NewInOrder(fifo.InOrderOptions[*pod]{Key: key, KnownObjects: store, WholeRelists: true})
	d := newDispatcher(opts, store, q)
	d.wholeRelists, d.lastRV = true, func() string { return "" }
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	d.start(ctx, &wg)
	t.Cleanup(func() { cancel(); q.Close(); wg.Wait() })
	return d, store, q
}

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

// A reader of the cache sees the list before a relist or the list after it,
// never a mix: the dispatcher swaps the cache to a relist in one Replace.
func TestRelistIsAtomicForReaders(t *testing.T) {
	const relists, objects = 300, 40
	_, store, q := startDispatcher(t, Options[*pod]{Logger: quiet(), Clock: newFakeClock()})
	type result struct {
		reads int
		bad   string
	}
	res := make(chan result, 1)
	go func() {
		deadline := time.Now().Add(30 * time.Second)
		var r result
		for time.Now().Before(deadline) {
			snap := store.List()
			r.reads++
			if r.bad = mixed(snap, objects); r.bad != "" {
				break
			}
			if len(snap) > 0 && snap[0].ResourceVersion == strconv.Itoa(relists) {
				break // the last list is in: done
			}
			runtime.Gosched()
		}
		res <- r
	}()
	for n := 1; n <= relists; n++ {
		require.NoError(t, q.Replace(relistN(n, objects), strconv.Itoa(n)))
	}
	r := <-res
	require.Empty(t, r.bad, "after %d reads", r.reads)
	require.Empty(t, mixed(store.List(), objects))
	require.Equal(t, strconv.Itoa(relists), store.List()[0].ResourceVersion, "the reader gave up before the last list")
}

// After a relist the handlers hear what client-go's DeltaFIFO Replace makes
// them hear: an update for a listed object that changed, an add for a new
// one, a delete with finalStateUnknown for one the list no longer has, and
// nothing for an unchanged one, unless the handler's resync is due.
func TestRelistNotifiesLikeClientGo(t *testing.T) {
	clock := newFakeClock()
	d, _, q := startDispatcher(t, Options[*pod]{Logger: quiet(), Clock: clock})
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
