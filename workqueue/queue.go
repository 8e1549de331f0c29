package workqueue

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/zerokube/zerokube/clock"
	"github.com/zerokube/zerokube/internal/ring"
)

// ErrShutDown is what Get returns once the queue is shut down and empty: the
// worker should exit.
var ErrShutDown = errors.New("workqueue: shut down")

// Options configure a Queue. The zero value means all defaults.
type Options[K comparable] struct {
	// Clock times AddAfter and the default rate limiter. Default: the real clock.
	Clock clock.Clock
	// RateLimiter decides AddRateLimited's delays. Default:
	// DefaultRateLimiter[K](Clock).
	RateLimiter RateLimiter[K]
	// Metrics receives counters and gauges. Default: none.
	Metrics Metrics
}

// Queue is a de-duplicating, delaying, rate-limited work queue of keys. Create it
// with [New]; all methods are safe for concurrent use. See the package doc for
// its invariants.
type Queue[K comparable] struct {
	clock   clock.Clock
	limiter RateLimiter[K]

	// ready holds a token while items may be queued and a Get may be waiting.
	// Adds put one in without blocking; a Get that takes an item and leaves more
	// behind passes it on, so every waiter is woken in turn (a condition
	// variable that also selects on a context).
	ready chan struct{}
	// closing is closed by ShutDown to wake every waiting Get at once.
	closing chan struct{}

	mu         sync.Mutex
	fifo       ring.Ring[K]   // items to hand out, in order; guarded by mu
	dirty      map[K]struct{} // items queued or to be re-queued on Done; guarded by mu
	processing map[K]struct{} // items a worker holds; guarded by mu
	shutdown   bool           // guarded by mu
	drained    chan struct{}  // closed once shut down with nothing left; nil until a drain waits; guarded by mu
	waiting    delayed[K]     // AddAfter items not yet due; guarded by mu
	metrics    tracker[K]     // guarded by mu
}

// New returns an empty queue.
func New[K comparable](opts Options[K]) *Queue[K] {
	clock := orReal(opts.Clock)
	limiter := opts.RateLimiter
	if limiter == nil {
		limiter = DefaultRateLimiter[K](clock)
	}
	q := &Queue[K]{
		clock:      clock,
		limiter:    limiter,
		ready:      make(chan struct{}, 1),
		closing:    make(chan struct{}),
		dirty:      make(map[K]struct{}),
		processing: make(map[K]struct{}),
		waiting:    newDelayed[K](),
		metrics:    newTracker[K](opts.Metrics, clock),
	}
	if opts.Metrics != nil {
		opts.Metrics.InFlight(q.inFlight)
	}
	return q
}

// inFlight is the report Metrics.InFlight receives.
func (q *Queue[K]) inFlight() (total, longest time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.metrics.inFlight()
}

// Add queues item unless it is already queued. If a worker holds item, it is
// queued again when that worker calls Done. After ShutDown, Add does nothing.
func (q *Queue[K]) Add(item K) {
	q.mu.Lock()
	q.addLocked(item)
	q.mu.Unlock()
}

// addLocked is Add; q.mu must be held.
func (q *Queue[K]) addLocked(item K) {
	if q.shutdown {
		return
	}
	if _, ok := q.dirty[item]; ok {
		return
	}
	q.dirty[item] = struct{}{}
	q.metrics.added(item, len(q.dirty))
	if _, ok := q.processing[item]; ok {
		return // Done re-queues it (invariant 2)
	}
	q.pushLocked(item)
}

// pushLocked appends item to the fifo and wakes a Get; q.mu must be held.
func (q *Queue[K]) pushLocked(item K) {
	q.fifo.Push(item)
	q.signal()
}

// signal leaves a wake-up token for one waiting Get, if none is there already.
func (q *Queue[K]) signal() {
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// Get blocks until an item is queued, hands it to the caller and marks it as
// being processed; the caller must call Done(item) when finished with it. It
// returns ErrShutDown once the queue is shut down and empty, and
// context.Cause(ctx) if ctx ends first.
func (q *Queue[K]) Get(ctx context.Context) (K, error) {
	woken := false // this Get holds the wake-up token of an Add
	for {
		if ctx.Err() != nil {
			if woken {
				q.signal() // not taking the item: another waiter must
			}
			var zero K
			return zero, context.Cause(ctx)
		}
		q.mu.Lock()
		if q.fifo.Len() > 0 {
			item := q.fifo.Pop()
			q.processing[item] = struct{}{}
			delete(q.dirty, item)
			q.metrics.popped(item, len(q.dirty))
			if q.fifo.Len() > 0 {
				q.signal() // pass the wake-up on to the next waiter
			}
			q.mu.Unlock()
			return item, nil
		}
		shutdown := q.shutdown
		q.mu.Unlock()
		if shutdown {
			var zero K
			return zero, ErrShutDown
		}
		select {
		case <-q.ready:
			woken = true
		case <-q.closing:
		case <-ctx.Done():
		}
	}
}

// Done ends the processing of item that Get handed out. If item was added
// meanwhile, it is queued again now.
func (q *Queue[K]) Done(item K) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if _, ok := q.processing[item]; !ok {
		return
	}
	delete(q.processing, item)
	q.metrics.done(item)
	if _, ok := q.dirty[item]; ok {
		q.pushLocked(item)
	}
	q.checkDrainedLocked()
}

// Len returns the number of queued items, not counting those being processed
// or waiting for a delay.
func (q *Queue[K]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.fifo.Len()
}

// ShutDown stops the queue: later adds are ignored, delayed items are dropped,
// and Get hands out the remaining queued items before returning ErrShutDown.
// It does not wait; see ShutDownWithDrain. Calling it again does nothing.
func (q *Queue[K]) ShutDown() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.shutdown {
		return
	}
	q.shutdown = true
	close(q.closing)
	q.waiting.stop()
	q.checkDrainedLocked()
}

// ShutDownWithDrain shuts the queue down and waits until every queued and
// in-flight item has been handed out and Done: the workers must keep running
// meanwhile. It returns context.Cause(ctx) if ctx ends first.
func (q *Queue[K]) ShutDownWithDrain(ctx context.Context) error {
	q.ShutDown()
	q.mu.Lock()
	if q.drained == nil {
		q.drained = make(chan struct{})
		q.checkDrainedLocked()
	}
	drained := q.drained
	q.mu.Unlock()
	select {
	case <-drained:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// checkDrainedLocked closes drained when a drain is waiting and nothing is
// left; q.mu must be held.
func (q *Queue[K]) checkDrainedLocked() {
	if q.drained == nil || !q.shutdown || q.fifo.Len() > 0 || len(q.processing) > 0 {
		return
	}
	select {
	case <-q.drained: // already closed
	default:
		close(q.drained)
	}
}

// ShuttingDown reports whether ShutDown has been called.
func (q *Queue[K]) ShuttingDown() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.shutdown
}

// AddRateLimited queues item after the delay the rate limiter gives it; use it
// when processing item failed and should be retried.
func (q *Queue[K]) AddRateLimited(item K) {
	q.AddAfter(item, q.limiter.When(item))
}

// Forget tells the rate limiter item succeeded, resetting its backoff. It does
// not remove item from the queue.
func (q *Queue[K]) Forget(item K) { q.limiter.Forget(item) }

// NumRequeues reports how many times item failed since it was last forgotten.
func (q *Queue[K]) NumRequeues(item K) int { return q.limiter.NumRequeues(item) }

// AddAfter queues item once d has passed on the queue's clock; d <= 0 queues it
// now. An item already waiting keeps the earlier of its two times.
func (q *Queue[K]) AddAfter(item K, d time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.shutdown {
		return
	}
	q.metrics.retry()
	if d <= 0 {
		q.addLocked(item)
		return
	}
	if q.waiting.add(item, q.clock.Now().Add(d)) {
		q.scheduleLocked()
	}
}

// orReal is c, or the real clock when c is nil.
func orReal(c clock.Clock) clock.Clock {
	if c == nil {
		return clock.Real{}
	}
	return c
}
