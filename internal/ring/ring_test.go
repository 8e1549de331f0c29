package ring

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRingMatchesSlice drives the ring through growth, wrap-around and
// shrinking (bursts well past shrinkAbove) against a plain slice.
func TestRingMatchesSlice(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var r Ring[int]
	var model []int
	next := 0
	for round := range 6 {
		burst := 1 + rng.IntN(3*shrinkAbove)
		for range burst {
			next++
			if rng.IntN(1000) == 0 { // O(n) in the model: keep it rare
				r.PushFront(next)
				model = append([]int{next}, model...)
			} else {
				r.Push(next)
				model = append(model, next)
			}
		}
		for len(model) > round { // leave a few behind to wrap around
			if got := r.Pop(); got != model[0] {
				t.Fatalf("round %d: pop = %d, want %d", round, got, model[0])
			}
			model = model[1:]
		}
		require.Equal(t, len(model), r.Len())
		for i, v := range model {
			require.Equal(t, v, r.At(i))
		}
	}
	require.LessOrEqual(t, len(r.buf), shrinkAbove, "memory given back after the bursts")
}

// TestRingGivesABurstsBufferBackWhenEmpty: once a relist-sized burst has
// drained, the ring holds no buffer (it would otherwise keep 16,384 slots
// for the informer's life); a small ring keeps its buffer when it empties,
// so a steady watch does not reallocate per event.
func TestRingGivesABurstsBufferBackWhenEmpty(t *testing.T) {
	var r Ring[int]
	for i := range 10_000 {
		r.Push(i)
	}
	for r.Len() > 0 {
		r.Pop()
	}
	require.Zero(t, len(r.buf), "an empty ring after a burst of 10,000")

	for i := range KeepEmpty {
		r.Push(i)
	}
	for r.Len() > 0 {
		r.Pop()
	}
	require.Equal(t, KeepEmpty, len(r.buf), "a ring of KeepEmpty keeps its buffer")
	r.Push(1)
	require.Equal(t, 1, r.Pop())
}

// TestPopAllocatesNothingAndDropsTheReference: invariant 2. A popped
// element's slot is zeroed, so the ring does not keep the object alive.
func TestPopAllocatesNothingAndDropsTheReference(t *testing.T) {
	var r Ring[*int]
	for i := range 8 {
		r.Push(&i)
	}
	head := r.head
	r.Pop()
	require.Nil(t, r.buf[head], "the popped slot still points at the object")
	allocs := testing.AllocsPerRun(100, func() {
		r.Push(r.Pop())
	})
	require.Zero(t, allocs)
}
