package clock

import (
	"context"
	"time"
)

// Clock is a source of time.
type Clock interface {
	Now() time.Time
	// NewTimer returns a timer that sends on its C once after d.
	NewTimer(d time.Duration) Timer
	// AfterFunc calls f in its own goroutine after d, unless stopped first.
	// (A fake clock may call it synchronously when it is advanced.)
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is the part of *time.Timer that zerokube uses.
type Timer interface {
	// C is nil for timers made by AfterFunc.
	C() <-chan time.Time
	Stop() bool
	Reset(d time.Duration) bool
}

// Real is Clock backed by package time.
type Real struct{}

// Now is time.Now.
func (Real) Now() time.Time { return time.Now() }

// NewTimer is time.NewTimer.
func (Real) NewTimer(d time.Duration) Timer { return realTimer{time.NewTimer(d)} }

// AfterFunc is time.AfterFunc.
func (Real) AfterFunc(d time.Duration, f func()) Timer { return realTimer{time.AfterFunc(d, f)} }

type realTimer struct{ t *time.Timer }

func (t realTimer) C() <-chan time.Time        { return t.t.C }
func (t realTimer) Stop() bool                 { return t.t.Stop() }
func (t realTimer) Reset(d time.Duration) bool { return t.t.Reset(d) }

// Sleep waits d on c, or until ctx is done, when it returns ctx's cause;
// d <= 0 does not wait.
// It is how a caller that has nothing else to select on waits: a retry's
// backoff, a rate limiter's delay.
func Sleep(ctx context.Context, c Clock, d time.Duration) error {
	if err := context.Cause(ctx); err != nil {
		return err
	}
	if d <= 0 {
		return nil
	}
	t := c.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C():
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
