package fifo

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/zerokube/zerokube/internal/ring"
)

// DefaultBatchSize is InOrder's batch size when InOrderOptions.BatchSize is 0.
const DefaultBatchSize = 100

// InOrderOptions configures NewInOrder.
type InOrderOptions[T any] struct {
	// Key names an object. Required.
	Key func(T) string
	// KnownObjects is the consumer's store, used by Replace to report
	// vanished objects and by Resync. Nil: Replace only sees what is still
	// queued, Resync does nothing.
	KnownObjects KnownObjects[T]
	// BatchSize caps the deltas one Pop hands to process. Default
	// DefaultBatchSize; 1 gives one delta per Pop.
	BatchSize int
	// WholeRelists makes one Pop hand over everything a Replace queued (its
	// Replaced deltas and its tombstones) as one batch, whatever BatchSize,
	// and never together with any other delta. A consumer can then apply a
	// relist to its store in one step (the informer swaps its cache), so its
	// readers never see half of a relist.
	WholeRelists bool
}

// item is a queued delta with its key, computed once on the way in.
type item[T any] struct {
	key string
	d   Delta[T]
	// group, on the first delta of a Replace with WholeRelists, is how many
	// deltas that Replace queued; they pop together. 0 everywhere else.
	group int
}

// InOrder is a queue that keeps every delta in arrival order and merges
// nothing (client-go's RealFIFO). See the package documentation for its
// invariants. Safe for concurrent use.
type InOrder[T any] struct {
	key   func(T) string
	known KnownObjects[T] // may be nil
	batch int
	whole bool // WholeRelists
	sig   signal

	mu    sync.Mutex // guards every field below
	queue ring.Ring[item[T]]
	// The batch a Pop is processing outside the lock: inflight[i] is the key
	// of buf[i]. Replace and Resync treat these keys as pending. buf is
	// reused by every Pop, so a Pop costs no allocation.
	buf         []Delta[T]
	inflight    []string
	busy        bool
	group       int // the in-flight batch is a whole Replace of this many deltas
	populated   bool
	initialLeft int // deltas of the first Replace not yet processed
	closed      bool
}

var _ Queue[int] = (*InOrder[int])(nil)

// NewInOrder returns an empty InOrder queue. It panics if opts.Key is nil or
// opts.BatchSize is negative.
func NewInOrder[T any](opts InOrderOptions[T]) *InOrder[T] {
	if opts.Key == nil {
		panic("fifo: InOrderOptions.Key is required")
	}
	if opts.BatchSize < 0 {
		panic("fifo: InOrderOptions.BatchSize must not be negative")
	}
	if opts.BatchSize == 0 {
		opts.BatchSize = DefaultBatchSize
	}
	return &InOrder[T]{
		key:   opts.Key,
		known: opts.KnownObjects,
		batch: opts.BatchSize,
		whole: opts.WholeRelists,
		sig:   newSignal(),
	}
}

// Add queues an Added delta.
func (q *InOrder[T]) Add(obj T) error { return q.write(Added, obj) }

// Update queues an Updated delta.
func (q *InOrder[T]) Update(obj T) error { return q.write(Updated, obj) }

// Delete queues a Deleted delta. Unlike DeltaFIFO it never drops one: in
// arrival order the consumer can tell for itself whether it holds the object.
func (q *InOrder[T]) Delete(obj T) error { return q.write(Deleted, obj) }

func (q *InOrder[T]) write(t DeltaType, obj T) error {
	k := q.key(obj)
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return ErrClosed
	}
	q.populated = true
	q.pushLocked(k, Delta[T]{Type: t, Object: obj})
	return nil
}

func (q *InOrder[T]) pushLocked(k string, d Delta[T]) {
	q.queue.Push(item[T]{key: k, d: d})
	// Only the push onto an empty queue can find a Pop waiting: Pop
	// waits only after seeing the queue empty under q.mu. Skipping the
	// channel operation for the rest saves it on every event of a burst.
	if q.queue.Len() == 1 {
		q.sig.notify()
	}
}

// pendingLocked returns, for every key with in-flight or queued deltas, the
// newest of them, plus the keys in order of first appearance (so Replace
// emits its deletions in a reproducible order). q.mu held.
func (q *InOrder[T]) pendingLocked() (map[string]Delta[T], []string) {
	newest := make(map[string]Delta[T])
	var order []string
	note := func(k string, d Delta[T]) {
		if _, ok := newest[k]; !ok {
			order = append(order, k)
		}
		newest[k] = d
	}
	if q.busy {
		for i, k := range q.inflight {
			note(k, q.buf[i])
		}
	}
	for i := 0; i < q.queue.Len(); i++ {
		it := q.queue.At(i)
		note(it.key, it.d)
	}
	return newest, order
}

// Replace appends Replaced for every listed object, then a
// FinalStateUnknown Deleted for each unlisted key the consumer will hold once
// it has applied everything before: keys whose newest in-flight or queued
// delta is not a deletion (with that delta's object), then keys of
// KnownObjects with nothing pending (with the stored object). The first
// Replace on a queue nobody wrote to before fixes the initial population:
// everything queued at its end. resourceVersion is not used by this queue.
func (q *InOrder[T]) Replace(list []T, resourceVersion string) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return ErrClosed
	}
	pending, order := q.pendingLocked()
	start := q.queue.Len()
	defer q.markGroupLocked(start)
	listed := make(map[string]struct{}, len(list))
	for _, obj := range list {
		k := q.key(obj)
		listed[k] = struct{}{}
		q.pushLocked(k, Delta[T]{Type: Replaced, Object: obj})
	}
	for _, k := range order {
		if _, ok := listed[k]; ok || pending[k].Type == Deleted {
			continue
		}
		q.pushLocked(k, Delta[T]{Type: Deleted, Object: pending[k].Object, FinalStateUnknown: true})
	}
	if q.known != nil {
		for _, k := range q.known.ListKeys() {
			_, isPending := pending[k]
			if _, ok := listed[k]; ok || isPending {
				continue
			}
			if obj, ok := q.known.GetByKey(k); ok {
				q.pushLocked(k, Delta[T]{Type: Deleted, Object: obj, FinalStateUnknown: true})
			}
		}
	}
	if !q.populated {
		q.populated = true
		q.initialLeft = q.queue.Len()
	}
	return nil
}

// markGroupLocked marks the deltas queued since start as one relist, when
// the queue keeps relists whole. q.mu held.
func (q *InOrder[T]) markGroupLocked(start int) {
	if n := q.queue.Len() - start; q.whole && n > 0 {
		q.queue.Ptr(start).group = n
	}
}

// Resync appends a Sync delta, carrying the stored object, for every key of
// KnownObjects with no in-flight or queued delta (for those, the stored
// object is about to change, and a Sync of it would be stale).
func (q *InOrder[T]) Resync() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return ErrClosed
	}
	if q.known == nil {
		return nil
	}
	pending, _ := q.pendingLocked()
	for _, k := range q.known.ListKeys() {
		if _, ok := pending[k]; ok {
			continue
		}
		if obj, ok := q.known.GetByKey(k); ok {
			q.pushLocked(k, Delta[T]{Type: Sync, Object: obj})
		}
	}
	return nil
}

// Pop waits for deltas and hands process the oldest ones, up to the batch
// size, in arrival order. A batch never mixes deltas of the first Replace's
// initial population with later ones, so isInInitialList is exact for every
// delta in it. process must not keep or modify the slice after it returns:
// the next Pop reuses it. process runs without the queue lock; concurrent
// Pops take turns.
//
// If process returns an error wrapping ErrRequeue, the whole batch goes back
// to the head of the queue, in order, so it is delivered again before
// anything newer. Any other error drops the batch. Either way Pop returns
// process's error, wrapped.
func (q *InOrder[T]) Pop(ctx context.Context, process func(deltas []Delta[T], isInInitialList bool) error) (err error) {
	if err := q.sig.acquire(ctx); err != nil {
		return err
	}
	defer q.sig.release()
	if err := q.waitLocked(ctx); err != nil {
		return err
	}
	return q.popLocked(process)
}

// TryPop is Pop without the wait, for a producer that processes its own
// writes: when deltas are queued and no other Pop or TryPop holds the
// consumer turn, it takes and processes exactly the batch Pop would and
// returns true with process's error wrapped as Pop does. Otherwise it
// returns false at once: nil when nothing is queued or another consumer
// holds the turn (that consumer, if it loops until its own TryPop returns
// false, processes what is queued), ErrClosed after Close.
func (q *InOrder[T]) TryPop(process func(deltas []Delta[T], isInInitialList bool) error) (bool, error) {
	ok, err := q.sig.tryLocked(&q.mu, func() (bool, bool) { return q.queue.Len() > 0, q.closed })
	if !ok {
		return false, err
	}
	defer q.sig.release()
	return true, q.popLocked(process)
}

// popLocked takes the next batch and processes it outside the lock. q.mu
// held on entry, with deltas queued; released here.
func (q *InOrder[T]) popLocked(process func(deltas []Delta[T], isInInitialList bool) error) (err error) {
	n := q.batchLenLocked()
	initial := q.initialLeft > 0
	q.buf, q.inflight = q.buf[:0], q.inflight[:0]
	for range n {
		it := q.queue.Pop()
		q.buf = append(q.buf, it.d)
		q.inflight = append(q.inflight, it.key)
	}
	q.busy = true
	batch := q.buf
	q.mu.Unlock()

	defer q.finish(n, initial, &err)
	return process(batch, initial)
}

// batchLenLocked is how many deltas the next Pop takes: a whole relist when
// one is at the head; otherwise up to the batch size, stopping before a
// relist and at the end of the initial population. q.mu held, queue not empty.
func (q *InOrder[T]) batchLenLocked() int {
	q.group = q.queue.Ptr(0).group
	if q.group > 0 {
		return q.group
	}
	limit := min(q.batch, q.queue.Len())
	if q.initialLeft > 0 {
		limit = min(limit, q.initialLeft)
	}
	n := 1
	for n < limit && q.queue.Ptr(n).group == 0 {
		n++
	}
	return n
}

// waitLocked returns with q.mu held and the queue non-empty, or with an
// error and q.mu not held.
func (q *InOrder[T]) waitLocked(ctx context.Context) error {
	for {
		q.mu.Lock()
		if q.closed {
			q.mu.Unlock()
			return ErrClosed
		}
		if q.queue.Len() > 0 {
			return nil
		}
		q.mu.Unlock()
		if err := q.sig.wait(ctx); err != nil {
			return err
		}
	}
}

func (q *InOrder[T]) finish(n int, initial bool, errp *error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.busy = false
	err := *errp
	requeue := err != nil && errors.Is(err, ErrRequeue) && !q.closed
	if requeue {
		for i := n - 1; i >= 0; i-- {
			q.queue.PushFront(item[T]{key: q.inflight[i], d: q.buf[i]})
		}
		q.queue.Ptr(0).group = q.group
		q.sig.notify()
	} else if initial {
		// A requeued initial batch is still initial; anything else is done.
		q.initialLeft -= n
	}
	clear(q.buf) // drop references to the objects
	if cap(q.buf) > 4*q.batch {
		q.buf, q.inflight = nil, nil // a whole relist was here: give its room back
	}
	if err != nil {
		*errp = fmt.Errorf("fifo: processing a batch of %d: %w", n, err)
	}
}

// HasSynced reports whether every delta of the first Replace has been
// processed; true at once after an empty first Replace, and true as soon as
// anything was written if an Add/Update/Delete came before any Replace.
func (q *InOrder[T]) HasSynced() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.populated && q.initialLeft == 0
}

// Len returns the number of queued deltas.
func (q *InOrder[T]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.queue.Len()
}

// Drained reports whether nothing is queued and no Pop is processing a batch.
func (q *InOrder[T]) Drained() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.queue.Len() == 0 && !q.busy
}

// Close makes blocked and later Pops return ErrClosed, even if deltas
// remain queued, and later writes return ErrClosed. Idempotent.
func (q *InOrder[T]) Close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.sig.close()
}
