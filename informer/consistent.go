package informer

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zerokube/zerokube/cache"
	"github.com/zerokube/zerokube/clock"
	"github.com/zerokube/zerokube/fifo"
	"github.com/zerokube/zerokube/meta"
)

// drainWait bounds how long a capture waits for the processing loop to
// apply what is queued, with the reflector paused.
const drainWait = time.Second

// consistentPoint pairs the cache with the resourceVersion it is in step
// with, for the stages that need the cache as the server had it at one
// resourceVersion: snapshots (Options.Snapshot) and the cache audit
// (Options.Audit). Every queue write from the reflector goes through it
// (gatedQueue) and records its resourceVersion under mu, with, at each
// list, the shard listed and how many objects the list skipped; so with
// mu held and the queue drained, the store holds exactly the state at rv,
// of that shard. The pipeline builds one only when a stage needs it: it
// costs a lock per queue write.
type consistentPoint[P meta.Object] struct {
	store   cache.Reader[P]
	queue   fifo.Queue[P]
	rec     *record       // the skipped objects of each list
	shardOf func() string // the selector of the shard the last list was of ("" without a shard)
	clock   clock.Clock

	mu      sync.Mutex // held across each queue write and by capture
	rv      string     // the resourceVersion of the last write or bookmark
	shard   string     // the shard the cache holds, as of the last list
	skipped int        // objects the last list skipped: the cache lacks them
	lists   uint64     // lists queued so far: a capture's cache replaced since

	waiting atomic.Bool   // capture is waiting for the queue to drain
	popped  chan struct{} // cap 1: the processing loop finished a Pop
}

func newConsistentPoint[P meta.Object](store cache.Reader[P], q fifo.Queue[P], rec *record, shardOf func() string, clk clock.Clock) *consistentPoint[P] {
	return &consistentPoint[P]{store: store, queue: q, rec: rec, shardOf: shardOf, clock: clk, popped: make(chan struct{}, 1)}
}

// captured is what capture took: the cache's objects and what they are.
type captured[P any] struct {
	rv      string
	items   []P
	shard   string
	skipped int
	lists   uint64 // consistentPoint.lists at the capture
}

// errNotListed is why there is nothing to capture before the first list.
var errNotListed = errors.New("informer: nothing listed yet")

// errStillQueued is why a capture failed when the queue did not drain:
// the cache was not a state the server had.
var errStillQueued = errors.New("deltas were still queued")

// capture returns the cache's objects and the resourceVersion they are in
// step with. It holds mu, so the reflector's writes wait, and waits (up to
// drainWait, or not at all when wait is false) for the processing loop to
// apply what is queued; then it copies the cache's list of objects under
// the cache's read lock, a copy of pointers. Whatever the caller does with
// them happens later, outside every lock: cached objects are never
// modified. It fails with errNotListed before the first list, and with
// errStillQueued (or ctx's cause) when the queue did not drain.
func (c *consistentPoint[P]) capture(ctx context.Context, wait bool) (captured[P], error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.rv == "" {
		return captured[P]{rv: c.rv}, errNotListed
	}
	c.waiting.Store(true)
	defer c.waiting.Store(false)
	select {
	case <-c.popped: // a stale nudge from an earlier Pop
	default:
	}
	var deadline <-chan time.Time
	if wait {
		t := c.clock.NewTimer(drainWait)
		defer t.Stop()
		deadline = t.C()
	}
	for !c.queue.Drained() {
		if !wait {
			return captured[P]{rv: c.rv}, errStillQueued
		}
		select {
		case <-c.popped:
		case <-deadline:
			return captured[P]{rv: c.rv}, fmt.Errorf("%w after %v", errStillQueued, drainWait)
		case <-ctx.Done():
			return captured[P]{rv: c.rv}, context.Cause(ctx)
		}
	}
	return captured[P]{rv: c.rv, items: c.store.List(), shard: c.shard, skipped: c.skipped, lists: c.lists}, nil
}

// listsSince reports whether a list was queued since a capture that saw n.
func (c *consistentPoint[P]) listsSince(n uint64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lists != n
}

// resumed records that the cache was filled from a snapshot at rv, of
// shard, whose list had skipped objects.
func (c *consistentPoint[P]) resumed(rv, shard string, skipped int) {
	c.mu.Lock()
	c.rv, c.shard, c.skipped = rv, shard, skipped
	c.mu.Unlock()
}

// afterPop is the processing loop's hook: it wakes a capture waiting for
// the queue to drain. One atomic load when none is.
func (c *consistentPoint[P]) afterPop() {
	if c.waiting.Load() {
		select {
		case c.popped <- struct{}{}:
		default:
		}
	}
}

// gatedQueue is the queue as the reflector sees it when a consistent point
// is kept: each write and the resourceVersion it brings are recorded under
// the point's mu, so a capture never sees one without the other.
type gatedQueue[P meta.Object] struct {
	q fifo.Queue[P]
	c *consistentPoint[P]
}

func (g gatedQueue[P]) write(op func(P) error, obj P) error {
	g.c.mu.Lock()
	defer g.c.mu.Unlock()
	if err := op(obj); err != nil {
		return err
	}
	// An event's object carries the event's resourceVersion, a DELETED
	// one included: kube-apiserver stamps the deleted object with the
	// revision of its deletion (storage/etcd3/watcher.go, prepareObjs). The
	// reflector watches from a list's resourceVersion, never from "" or
	// "0", so events arrive in resourceVersion order.
	g.c.rv = obj.GetResourceVersion()
	return nil
}

func (g gatedQueue[P]) Add(obj P) error    { return g.write(g.q.Add, obj) }
func (g gatedQueue[P]) Update(obj P) error { return g.write(g.q.Update, obj) }
func (g gatedQueue[P]) Delete(obj P) error { return g.write(g.q.Delete, obj) }

// Replace records, with the list's resourceVersion, what the list was of:
// the shard listed, and how many objects it skipped (the reflector has
// recorded both before it calls Replace).
func (g gatedQueue[P]) Replace(list []P, rv string) error {
	g.c.mu.Lock()
	defer g.c.mu.Unlock()
	if err := g.q.Replace(list, rv); err != nil {
		return err
	}
	g.c.rv, g.c.shard, g.c.skipped = rv, g.c.shardOf(), g.c.rec.skippedCount()
	g.c.lists++
	return nil
}

// Bookmark records a bookmark's resourceVersion: nothing changed up to it,
// so the cache is also the state at it, later in the server's history.
func (g gatedQueue[P]) Bookmark(rv string) {
	g.c.mu.Lock()
	g.c.rv = rv
	g.c.mu.Unlock()
}
