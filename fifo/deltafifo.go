package fifo

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/zerokube/zerokube/internal/ring"
)

// DeltaOptions configures NewDelta.
type DeltaOptions[T any] struct {
	// Key names an object; deltas are grouped by it. Required.
	Key func(T) string
	// KnownObjects is the consumer's store. With it, Replace reports objects
	// that vanished while nobody watched, Resync has something to resync,
	// and Delete of an object nobody knows is dropped. Nil means none of
	// that: Replace only sees what is still queued, Resync does nothing.
	KnownObjects KnownObjects[T]
	// WholeRelists makes the Pop after a Replace hand over every key queued
	// at the end of that Replace as one batch, each key's deltas together
	// and keys in queue order: the listed keys, the tombstones, and the keys
	// queued before the Replace (their deltas are older than the list, and
	// most have a Replaced or a tombstone appended anyway). A consumer can
	// then apply a relist to its store in one step (the informer swaps its
	// cache), so its readers never see half of a relist. Deltas stay
	// grouped per key: an event for a key of the batch that arrives before
	// the Pop joins the batch, an event for another key pops after it, and
	// a second Replace before the Pop merges into the same batch.
	WholeRelists bool
}

// DeltaFIFO keeps one list of deltas per key and pops keys in the order they
// first arrived. See the package documentation for its invariants. Safe for
// concurrent use.
type DeltaFIFO[T any] struct {
	key   func(T) string
	known KnownObjects[T] // may be nil
	whole bool            // WholeRelists
	sig   signal

	mu    sync.Mutex            // guards every field below
	items map[string][]Delta[T] // pending deltas per key, oldest first, never empty
	queue ring.Ring[string]     // keys of items, first-in first; each key once
	// relist is, with WholeRelists, how many keys at the head of queue the
	// next Pop takes as one batch: every key queued when the last Replace
	// ended. Keys queued later are behind them. 0 when no relist is queued.
	relist int
	// What a Pop is processing right now, outside the lock. Replace,
	// Resync and Delete treat its keys as pending: their deltas may or may
	// not have reached KnownObjects yet.
	cur       inflight[T]
	populated bool // a first Replace or Add/Update/Delete happened
	// initialLeft is how many keys of the initial population are not yet
	// processed: the first Replace's keys, or with WholeRelists the whole
	// relist batch that holds them (later Replaces merged into it join it).
	initialLeft int
	closed      bool
}

var _ Queue[int] = (*DeltaFIFO[int])(nil)

// NewDelta returns an empty DeltaFIFO. It panics if opts.Key is nil.
func NewDelta[T any](opts DeltaOptions[T]) *DeltaFIFO[T] {
	if opts.Key == nil {
		panic("fifo: DeltaOptions.Key is required")
	}
	return &DeltaFIFO[T]{
		key:   opts.Key,
		known: opts.KnownObjects,
		whole: opts.WholeRelists,
		sig:   newSignal(),
		items: make(map[string][]Delta[T]),
	}
}

// Add queues an Added delta.
func (f *DeltaFIFO[T]) Add(obj T) error { return f.write(Added, obj) }

// Update queues an Updated delta.
func (f *DeltaFIFO[T]) Update(obj T) error { return f.write(Updated, obj) }

// Delete queues a Deleted delta, unless the object is neither queued, being
// processed, nor in KnownObjects: then a relist already reported its
// deletion and a second report would only confuse the consumer. Without
// KnownObjects every Delete is queued.
func (f *DeltaFIFO[T]) Delete(obj T) error { return f.write(Deleted, obj) }

func (f *DeltaFIFO[T]) write(t DeltaType, obj T) error {
	k := f.key(obj)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return ErrClosed
	}
	f.populated = true
	if t == Deleted && f.known != nil && !f.pendingLocked(k) {
		if _, ok := f.known.GetByKey(k); !ok {
			return nil
		}
	}
	f.queueLocked(k, Delta[T]{Type: t, Object: obj})
	return nil
}

// pendingLocked reports whether k has queued or in-flight deltas. f.mu held.
func (f *DeltaFIFO[T]) pendingLocked(k string) bool {
	if _, ok := f.items[k]; ok {
		return true
	}
	_, ok := f.cur.get(k)
	return ok
}

// queueLocked appends d to k's deltas, collapsing two Deleted in a row into
// one: the newer, unless the newer is only a Replace tombstone, which knows
// less than the real deletion before it. f.mu held.
func (f *DeltaFIFO[T]) queueLocked(k string, d Delta[T]) {
	ds, ok := f.items[k]
	if n := len(ds); n > 0 && d.Type == Deleted && ds[n-1].Type == Deleted {
		if !d.FinalStateUnknown {
			ds[n-1] = d
		}
		return
	}
	f.items[k] = append(ds, d)
	if !ok {
		f.queue.Push(k)
		f.sig.notify()
	}
}

// Replace queues Replaced for every listed object, then a FinalStateUnknown
// Deleted for each key that is not listed but that the consumer holds or
// will hold: keys still queued or in flight (with their newest object), then
// keys of KnownObjects (with the stored object). The first Replace on a
// queue nobody wrote to before fixes the initial population. With
// WholeRelists every key queued at its end pops next, as one batch. The
// resourceVersion is not used by this queue.
func (f *DeltaFIFO[T]) Replace(list []T, resourceVersion string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return ErrClosed
	}
	listed := make(map[string]struct{}, len(list))
	for _, obj := range list {
		k := f.key(obj)
		listed[k] = struct{}{}
		f.queueLocked(k, Delta[T]{Type: Replaced, Object: obj})
	}
	// Queued keys: the pushes below never add to f.queue (every key is in
	// f.items already), so indexing while queueing is safe.
	for i := 0; i < f.queue.Len(); i++ {
		k := f.queue.At(i)
		if _, ok := listed[k]; !ok {
			f.tombstoneLocked(k, f.items[k])
		}
	}
	for i, k := range f.cur.keys {
		if !f.queuedOrListed(k, listed) {
			f.tombstoneLocked(k, f.cur.deltas[i])
		}
	}
	if f.known != nil {
		for _, k := range f.known.ListKeys() {
			if _, ok := listed[k]; ok || f.pendingLocked(k) {
				continue
			}
			if obj, ok := f.known.GetByKey(k); ok {
				f.queueLocked(k, Delta[T]{Type: Deleted, Object: obj, FinalStateUnknown: true})
			}
		}
	}
	// A relist that comes while the initial batch is still queued (not
	// being processed) merges into it, so the merged batch is the initial
	// population: the first list the consumer applies is this one.
	joinsInitial := f.whole && f.initialLeft > 0 && len(f.cur.keys) == 0
	if f.whole {
		f.relist = f.queue.Len()
	}
	switch {
	case !f.populated:
		f.populated = true
		f.initialLeft = f.queue.Len()
	case joinsInitial:
		f.initialLeft = f.relist
	}
	return nil
}

// queuedOrListed: k has queued deltas or is in the new list. f.mu held.
func (f *DeltaFIFO[T]) queuedOrListed(k string, listed map[string]struct{}) bool {
	_, queued := f.items[k]
	_, ok := listed[k]
	return queued || ok
}

// tombstoneLocked queues a FinalStateUnknown Deleted for k carrying the
// newest object of ds, unless ds already ends in a deletion. f.mu held.
func (f *DeltaFIFO[T]) tombstoneLocked(k string, ds []Delta[T]) {
	newest := ds[len(ds)-1]
	if newest.Type == Deleted {
		return
	}
	f.queueLocked(k, Delta[T]{Type: Deleted, Object: newest.Object, FinalStateUnknown: true})
}

// Resync queues a Sync delta, carrying the stored object, for every key of
// KnownObjects that has no queued or in-flight deltas: those will bring the
// consumer up to date anyway, and a Sync of the stored state would be stale.
func (f *DeltaFIFO[T]) Resync() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return ErrClosed
	}
	if f.known == nil {
		return nil
	}
	for _, k := range f.known.ListKeys() {
		if f.pendingLocked(k) {
			continue
		}
		if obj, ok := f.known.GetByKey(k); ok {
			f.queueLocked(k, Delta[T]{Type: Sync, Object: obj})
		}
	}
	return nil
}

// Pop waits until a key is queued, removes it with all its deltas and calls
// process with them, oldest first. With WholeRelists, the Pop after a
// Replace takes every key of the relist batch instead and hands process
// their deltas key after key (one key's deltas together, oldest first).
// process runs without the queue lock, so producers are never blocked by a
// slow consumer; concurrent Pops take turns.
//
// If process returns an error wrapping ErrRequeue, the deltas are queued
// again at the back, unless newer deltas for the key arrived meanwhile (those
// win, as with client-go's AddIfNotPresent); a relist batch goes back to the
// head, whole. Any other error drops the deltas. Either way Pop returns
// process's error wrapped with the key (or the size of the relist).
func (f *DeltaFIFO[T]) Pop(ctx context.Context, process func(deltas []Delta[T], isInInitialList bool) error) (err error) {
	if err := f.sig.acquire(ctx); err != nil {
		return err
	}
	defer f.sig.release()
	if err := f.waitLocked(ctx); err != nil {
		return err
	}
	return f.popLocked(process)
}

// TryPop is Pop without the wait, for a producer that processes its own
// writes: when a key is queued and no other Pop or TryPop holds the
// consumer turn, it takes and processes exactly what Pop would (one key, or
// a whole relist batch) and returns true with process's error wrapped as
// Pop does. Otherwise it returns false at once: nil when nothing is queued
// or another consumer holds the turn (that consumer, if it loops until its
// own TryPop returns false, processes what is queued), ErrClosed after
// Close.
func (f *DeltaFIFO[T]) TryPop(process func(deltas []Delta[T], isInInitialList bool) error) (bool, error) {
	ok, err := f.sig.tryLocked(&f.mu, func() (bool, bool) { return f.queue.Len() > 0, f.closed })
	if !ok {
		return false, err
	}
	defer f.sig.release()
	return true, f.popLocked(process)
}

// popLocked takes the next key (or the relist batch) and processes it
// outside the lock. f.mu held on entry, with a key queued; released here.
func (f *DeltaFIFO[T]) popLocked(process func(deltas []Delta[T], isInInitialList bool) error) (err error) {
	var ds []Delta[T]
	if f.relist > 0 {
		ds = f.takeBatchLocked()
	} else {
		k := f.queue.Pop()
		ds = f.items[k]
		delete(f.items, k)
		f.cur.keys = append(f.cur.keys[:0], k)
		f.cur.deltas = append(f.cur.deltas[:0], ds)
	}
	initial := f.initialLeft > 0
	f.mu.Unlock()

	// Deferred so the queue stays consistent if process panics and a caller
	// up the stack recovers.
	defer f.finish(initial, &err)
	return process(ds, initial)
}

// waitLocked returns with f.mu held and a key queued, or with an error and
// f.mu not held.
func (f *DeltaFIFO[T]) waitLocked(ctx context.Context) error {
	for {
		f.mu.Lock()
		if f.closed {
			f.mu.Unlock()
			return ErrClosed
		}
		if f.queue.Len() > 0 {
			return nil
		}
		f.mu.Unlock()
		if err := f.sig.wait(ctx); err != nil {
			return err
		}
	}
}

func (f *DeltaFIFO[T]) finish(initial bool, errp *error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	cur, batch := &f.cur, f.cur.index != nil
	err := *errp
	requeue := err != nil && errors.Is(err, ErrRequeue) && !f.closed
	switch {
	case batch && requeue:
		// Back at the head, so still initial if it was: nothing can
		// have popped before it.
		f.requeueBatchLocked(*cur, initial)
	case requeue:
		if _, newer := f.items[cur.keys[0]]; !newer {
			f.items[cur.keys[0]] = cur.deltas[0]
			f.queue.Push(cur.keys[0])
			f.sig.notify()
		}
	}
	if initial && !(batch && requeue) {
		// Counted after process returns so HasSynced never turns true
		// while the last initial item is still being applied. A requeued
		// single key counts as done: it goes to the back, behind keys
		// that are not initial.
		f.initialLeft -= len(cur.keys)
	}
	switch {
	case err == nil:
	case batch:
		*errp = fmt.Errorf("fifo: processing a relist of %d keys: %w", len(cur.keys), err)
	default:
		*errp = fmt.Errorf("fifo: processing %q: %w", cur.keys[0], err)
	}
	if batch {
		f.cur = inflight[T]{} // a relist's slices are big: give them back
		return
	}
	clear(cur.deltas) // keep the slices for the next Pop, not the deltas
	cur.keys, cur.deltas = cur.keys[:0], cur.deltas[:0]
}

// HasSynced reports whether the first Replace's keys have all been
// processed; true at once after an empty first Replace, and true as soon as
// anything was written if an Add/Update/Delete came before any Replace.
func (f *DeltaFIFO[T]) HasSynced() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.populated && f.initialLeft == 0
}

// Len returns the number of queued keys.
func (f *DeltaFIFO[T]) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.queue.Len()
}

// Drained reports whether no key is queued and no Pop is processing one.
func (f *DeltaFIFO[T]) Drained() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.queue.Len() == 0 && len(f.cur.keys) == 0
}

// Close makes blocked and later Pops return ErrClosed, even if keys remain
// queued, and later writes return ErrClosed. Idempotent.
func (f *DeltaFIFO[T]) Close() {
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
	f.sig.close()
}
