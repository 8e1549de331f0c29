package fifo

import (
	"context"
	"errors"
	"fmt"
	"sync"
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
}

// DeltaFIFO keeps one list of deltas per key and pops keys in the order they
// first arrived. See the package documentation for its invariants. Safe for
// concurrent use.
type DeltaFIFO[T any] struct {
	key   func(T) string
	known KnownObjects[T] // may be nil
	sig   signal

	mu    sync.Mutex            // guards every field below
	items map[string][]Delta[T] // pending deltas per key, oldest first, never empty
	queue ring[string]          // keys of items, first-in first; each key once
	// The key a Pop is processing right now, outside the lock, and its
	// deltas (oldest first). Replace and Resync treat it as pending: its
	// deltas may or may not have reached KnownObjects yet.
	inflightKey string
	inflight    []Delta[T] // nil when no Pop is processing
	populated   bool       // a first Replace or Add/Update/Delete happened
	initialLeft int        // keys of the first Replace not yet processed
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
	return f.inflight != nil && f.inflightKey == k
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
		f.queue.push(k)
		f.sig.notify()
	}
}

// Replace queues Replaced for every listed object, then a FinalStateUnknown
// Deleted for each key that is not listed but that the consumer holds or
// will hold: keys still queued or in flight (with their newest object), then
// keys of KnownObjects (with the stored object). The first Replace on a
// queue nobody wrote to before fixes the initial population. The
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
	for i := 0; i < f.queue.len(); i++ {
		k := f.queue.at(i)
		if _, ok := listed[k]; !ok {
			f.tombstoneLocked(k, f.items[k])
		}
	}
	if f.inflight != nil && !f.queuedOrListed(f.inflightKey, listed) {
		f.tombstoneLocked(f.inflightKey, f.inflight)
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
	if !f.populated {
		f.populated = true
		f.initialLeft = f.queue.len()
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
// process with them, oldest first. process runs without the queue lock, so
// producers are never blocked by a slow consumer; concurrent Pops take turns.
//
// If process returns an error wrapping ErrRequeue, the deltas are queued
// again at the back, unless newer deltas for the key arrived meanwhile (those
// win, as with client-go's AddIfNotPresent). Any other error drops the
// deltas. Either way Pop returns process's error wrapped with the key.
func (f *DeltaFIFO[T]) Pop(ctx context.Context, process func(deltas []Delta[T], isInInitialList bool) error) (err error) {
	if err := f.sig.acquire(ctx); err != nil {
		return err
	}
	defer f.sig.release()
	if err := f.waitLocked(ctx); err != nil {
		return err
	}
	k := f.queue.pop()
	ds := f.items[k]
	delete(f.items, k)
	initial := f.initialLeft > 0
	f.inflightKey, f.inflight = k, ds
	f.mu.Unlock()

	// Deferred so the queue stays consistent if process panics and a caller
	// up the stack recovers.
	defer f.finish(k, ds, initial, &err)
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
		if f.queue.len() > 0 {
			return nil
		}
		f.mu.Unlock()
		if err := f.sig.wait(ctx); err != nil {
			return err
		}
	}
}

func (f *DeltaFIFO[T]) finish(k string, ds []Delta[T], initial bool, errp *error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.inflightKey, f.inflight = "", nil
	if initial {
		// Counted after process returns so HasSynced never turns true
		// while the last initial item is still being applied.
		f.initialLeft--
	}
	err := *errp
	if err == nil {
		return
	}
	if errors.Is(err, ErrRequeue) && !f.closed {
		if _, newer := f.items[k]; !newer {
			f.items[k] = ds
			f.queue.push(k)
			f.sig.notify()
		}
	}
	*errp = fmt.Errorf("fifo: processing %q: %w", k, err)
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
	return f.queue.len()
}

// Drained reports whether no key is queued and no Pop is processing one.
func (f *DeltaFIFO[T]) Drained() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.queue.len() == 0 && f.inflight == nil
}

// Close makes blocked and later Pops return ErrClosed, even if keys remain
// queued, and later writes return ErrClosed. Idempotent.
func (f *DeltaFIFO[T]) Close() {
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
	f.sig.close()
}
