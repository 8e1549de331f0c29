// Package ring is the bounded-memory FIFO buffer under every hand-written
// queue of the project: the delta queues (fifo), each handler's queue
// (informer) and the work queue (workqueue). It sits below all of them and
// knows nothing of what they hold.
//
// Invariants (each has a test in ring_test.go):
//  1. Elements come out in the order they went in; PushFront puts one back
//     at the head. [TestRingMatchesSlice]
//  2. Popping costs no allocation and drops the buffer's reference to the
//     element, so a popped object can be collected at once.
//     [TestPopAllocatesNothingAndDropsTheReference]
//  3. Memory follows the length: a ring that empties after a burst bigger
//     than KeepEmpty (a relist, a handler's replay of the cache) holds no
//     buffer afterwards, and a big ring shrinks as it drains; a ring that
//     stays small keeps its buffer, so a steady watch does not reallocate
//     per event. [TestRingGivesABurstsBufferBackWhenEmpty,
//     TestRingMatchesSlice]
package ring

// Ring is a growable circular FIFO. It exists so that popping the head
// costs no allocation and does not leak the slice prefix the way q = q[1:]
// does. The zero value is an empty ring. Not safe for concurrent use: the
// owning queue's mutex guards it.
type Ring[E any] struct {
	buf  []E // len(buf) is zero or a power of two
	head int
	n    int
}

const (
	minCap      = 16
	shrinkAbove = 1 << 14
	// KeepEmpty is the largest buffer an empty ring keeps. A relist of
	// 10,000 objects grows a ring to 16,384 slots, which shrinking alone
	// (only above shrinkAbove) would keep for the informer's whole life:
	// 0.8 MB for nothing once the relist is processed, 80 bytes per cached
	// object at that size. A watch's queues never hold more than a few
	// elements, so dropping a big buffer when the ring empties costs a
	// reallocation only after the next burst.
	KeepEmpty = 1 << 10
)

// Len is the number of elements in the ring.
func (r *Ring[E]) Len() int { return r.n }

// Cap is the size of the buffer held, for tests of invariant 3.
func (r *Ring[E]) Cap() int { return len(r.buf) }

// At returns the i-th element from the head; 0 <= i < Len().
func (r *Ring[E]) At(i int) E { return r.buf[(r.head+i)&(len(r.buf)-1)] }

// Ptr points at the i-th element from the head, to change it in place;
// valid until the next Push, PushFront or Pop.
func (r *Ring[E]) Ptr(i int) *E { return &r.buf[(r.head+i)&(len(r.buf)-1)] }

// Push appends e at the tail.
func (r *Ring[E]) Push(e E) {
	if r.n == len(r.buf) {
		r.resize(max(2*len(r.buf), minCap))
	}
	r.buf[(r.head+r.n)&(len(r.buf)-1)] = e
	r.n++
}

// PushFront makes e the new head; used to put a requeued batch back first.
func (r *Ring[E]) PushFront(e E) {
	if r.n == len(r.buf) {
		r.resize(max(2*len(r.buf), minCap))
	}
	r.head = (r.head - 1) & (len(r.buf) - 1)
	r.buf[r.head] = e
	r.n++
}

// Pop removes and returns the head; Len() must be > 0.
func (r *Ring[E]) Pop() E {
	var zero E
	e := r.buf[r.head]
	r.buf[r.head] = zero // let the GC have the object
	r.head = (r.head + 1) & (len(r.buf) - 1)
	r.n--
	if r.n == 0 && len(r.buf) > KeepEmpty {
		r.buf, r.head = nil, 0
		return e
	}
	// Give memory back after a big burst has drained, but only for big
	// buffers and with hysteresis, so a queue that breathes with a
	// producer slightly faster than its consumer does not reallocate.
	if c := len(r.buf); c > shrinkAbove && r.n < c/8 {
		r.resize(c / 4)
	}
	return e
}

func (r *Ring[E]) resize(c int) {
	buf := make([]E, c)
	for i := 0; i < r.n; i++ {
		buf[i] = r.At(i)
	}
	r.buf, r.head = buf, 0
}
