package shard

import (
	"fmt"
	"math"
	"math/bits"
)

// Range is one interval of the hash space. The wire form is half-open,
// [start, end), with end up to 2^64, which does not fit a uint64; Range keeps
// the inclusive last hash instead, which always does: the wire's end is
// Last+1, and 2^64 exactly when Last is math.MaxUint64. Start <= Last.
type Range struct {
	Start, Last uint64
}

// Full is the whole hash space, [0, 2^64).
var Full = Range{Start: 0, Last: math.MaxUint64}

// NewRange returns [start, end) where end is a uint64; use [Full], [Split] or
// a Range literal with Last for a range that ends at 2^64.
func NewRange(start, end uint64) (Range, error) {
	if start >= end {
		return Range{}, fmt.Errorf("shard: range start %#x must be less than end %#x", start, end)
	}
	return Range{Start: start, Last: end - 1}, nil
}

// Contains reports whether h is in r.
func (r Range) Contains(h uint64) bool { return r.Start <= h && h <= r.Last }

// startHex and endHex are the wire forms of the bounds: 0x and 16 lowercase
// hex digits, or 0x10000000000000000 for an end of 2^64.
func (r Range) startHex() string { return fmt.Sprintf("0x%016x", r.Start) }

func (r Range) endHex() string {
	if r.Last == math.MaxUint64 {
		return endOfSpace
	}
	return fmt.Sprintf("0x%016x", r.Last+1)
}

// endOfSpace is 2^64, the only 17-digit bound the server accepts.
const endOfSpace = "0x10000000000000000"

// String is r in the wire's half-open form, e.g. [0x0000000000000000, 0x8000000000000000).
func (r Range) String() string { return "[" + r.startHex() + ", " + r.endHex() + ")" }

// Split returns shard i of n equal shards: [⌊i·2^64/n⌋, ⌊(i+1)·2^64/n⌋). The
// n ranges tile the space with no gap and no overlap (invariant 3); for n a
// power of two the bounds are the round numbers of the API documentation
// (0x8000000000000000 for the middle of two shards).
func Split(i, n int) (Range, error) {
	if n < 1 || i < 0 || i >= n {
		return Range{}, fmt.Errorf("shard: shard %d of %d: want 0 <= i < n", i, n)
	}
	r := Range{Start: boundary(uint64(i), uint64(n)), Last: math.MaxUint64}
	if i+1 < n {
		r.Last = boundary(uint64(i+1), uint64(n)) - 1
	}
	return r, nil
}

// boundary is ⌊k·2^64/n⌋ for k < n: the quotient of the 128-bit k<<64 by n.
func boundary(k, n uint64) uint64 {
	q, _ := bits.Div64(k, 0, n)
	return q
}
