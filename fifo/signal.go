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
