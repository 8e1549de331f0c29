package fifo

import (
	"context"
	"sync"
)

// signal is the channel machinery both queues share for Pop: channels rather
// than a sync.Cond because a waiting Pop must also wake on ctx.Done().
type signal struct {
	// turn holds one token while a Pop owns the consumer side. Pops are
	// serialized so that deltas of one key are never processed by two
	// goroutines at once, even though process runs without the queue lock.
	turn chan struct{}
	// wake carries at most one pending nudge from a producer to the Pop
	// waiting for data. A stale nudge only causes one extra empty check.
	wake chan struct{}
	// done is closed by Close, exactly once (closeOnce).
	done      chan struct{}
	closeOnce sync.Once
}

func newSignal() signal {
	return signal{
		turn: make(chan struct{}, 1),
		wake: make(chan struct{}, 1),
		done: make(chan struct{}),
	}
}

// acquire takes the consumer turn, or fails on ctx end or Close.
func (s *signal) acquire(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case s.turn <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-s.done:
		return ErrClosed
	}
}

func (s *signal) release() { <-s.turn }

// tryLocked takes the consumer turn without waiting and returns true with
// the turn held and mu locked when state reports deltas ready; otherwise it
// returns false (ErrClosed once state reports the queue closed) holding
// neither. ready and closed are read under mu.
//
// A producer that processes its own writes (write, then TryPop until false)
// may find the turn taken by another consumer whose last look found the
// queue empty, before the write. That consumer looks again after giving the
// turn back (the loop below), so the delta is never left behind: the
// failed take happened while the turn was held, hence before the release,
// and the look after the release sees the write.
func (s *signal) tryLocked(mu *sync.Mutex, state func() (ready, closed bool)) (bool, error) {
	for {
		select {
		case s.turn <- struct{}{}:
		default:
			mu.Lock()
			_, closed := state()
			mu.Unlock()
			if closed {
				return false, ErrClosed
			}
			return false, nil // the holder pops it, or looks again after its release
		}
		mu.Lock()
		ready, closed := state()
		switch {
		case closed:
			mu.Unlock()
			s.release()
			return false, ErrClosed
		case ready:
			return true, nil
		}
		mu.Unlock()
		s.release()
		mu.Lock()
		ready, _ = state()
		mu.Unlock()
		if !ready {
			return false, nil
		}
	}
}

// notify nudges a waiting Pop without ever blocking the producer.
func (s *signal) notify() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// wait blocks until a nudge, ctx end, or Close.
func (s *signal) wait(ctx context.Context) error {
	select {
	case <-s.wake:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-s.done:
		return ErrClosed
	}
}

func (s *signal) close() { s.closeOnce.Do(func() { close(s.done) }) }
