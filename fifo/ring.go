package fifo

// ring is a growable circular FIFO. It exists so that popping the head costs
// no allocation and does not leak the slice prefix the way q = q[1:] does.
// Not safe for concurrent use: the owning queue's mutex guards it.
type ring[E any] struct {
	buf  []E // len(buf) is zero or a power of two
	head int
	n    int
}

const (
	ringMinCap      = 16
	ringShrinkAbove = 1 << 14
	// ringKeepEmpty is the largest buffer an empty ring keeps. A relist of
	// 10,000 objects grows the ring to 16,384 slots, which the shrinking
	// in pop (only above ringShrinkAbove) would keep for the informer's
	// whole life: 0.8 MB for nothing once the relist is processed, 80
	// bytes per cached object at that size. A watch's queue never holds
	// more than a few deltas, so dropping a big buffer when the ring
	// empties costs a reallocation only after the next burst.
	ringKeepEmpty = 1 << 10
)

func (r *ring[E]) len() int { return r.n }

// at returns the i-th element from the head; 0 <= i < len().
func (r *ring[E]) at(i int) E { return r.buf[(r.head+i)&(len(r.buf)-1)] }

// ptr points at the i-th element from the head, to change it in place; valid
// until the next push, pushFront, pop or resize.
func (r *ring[E]) ptr(i int) *E { return &r.buf[(r.head+i)&(len(r.buf)-1)] }

func (r *ring[E]) push(e E) {
	if r.n == len(r.buf) {
		r.resize(max(2*len(r.buf), ringMinCap))
	}
	r.buf[(r.head+r.n)&(len(r.buf)-1)] = e
	r.n++
}

// pushFront makes e the new head; used to put a requeued batch back first.
func (r *ring[E]) pushFront(e E) {
	if r.n == len(r.buf) {
		r.resize(max(2*len(r.buf), ringMinCap))
	}
	r.head = (r.head - 1) & (len(r.buf) - 1)
	r.buf[r.head] = e
	r.n++
}

// pop removes and returns the head; len() must be > 0.
func (r *ring[E]) pop() E {
	var zero E
	e := r.buf[r.head]
	r.buf[r.head] = zero // let the GC have the object
	r.head = (r.head + 1) & (len(r.buf) - 1)
	r.n--
	if r.n == 0 && len(r.buf) > ringKeepEmpty {
		r.buf, r.head = nil, 0
		return e
	}
	// Give memory back after a big burst (a relist) has drained, but only
	// for big buffers and with hysteresis, so a queue that breathes with a
	// producer slightly faster than its consumer does not reallocate.
	if c := len(r.buf); c > ringShrinkAbove && r.n < c/8 {
		r.resize(c / 4)
	}
	return e
}

func (r *ring[E]) resize(c int) {
	buf := make([]E, c)
	for i := 0; i < r.n; i++ {
		buf[i] = r.at(i)
	}
	r.buf, r.head = buf, 0
}
