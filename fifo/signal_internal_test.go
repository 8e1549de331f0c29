package fifo

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTryLockedLooksAgainAfterReleasing covers the hand-off TryPop relies
// on: a consumer whose look found the queue empty gives the turn back, and
// a producer that wrote just after that look, and found the turn still
// taken, left its delta to it. The consumer must look again after the
// release and take the turn for that delta, or the delta waits for the
// next write. (A race test hits that window too rarely to fail reliably.)
func TestTryLockedLooksAgainAfterReleasing(t *testing.T) {
	s := newSignal()
	var mu sync.Mutex
	queued, looks := false, 0
	ok, err := s.tryLocked(&mu, func() (bool, bool) {
		looks++
		ready := queued
		if looks == 1 {
			// A producer writes now, after this look, and its own
			// take of the turn fails: the turn is held.
			queued = true
			taken, _ := s.tryLocked(new(sync.Mutex), func() (bool, bool) { return true, false })
			require.False(t, taken, "the turn is held by the first consumer")
		}
		return ready, false
	})
	require.NoError(t, err)
	require.True(t, ok, "the delta written during the first look must be taken")
	mu.Unlock()
	s.release()

	s.close()
	_, err = s.tryLocked(&mu, func() (bool, bool) { return false, true })
	require.ErrorIs(t, err, ErrClosed)
}
