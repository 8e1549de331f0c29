package informer

import "time"

// Clock is the informer's source of time. Backoff, resync, watch timeouts and
// the idle watchdog all read it, so tests drive them with a fake clock instead
// of sleeping. The zero Options use the real clock.
type Clock interface {
	Now() time.Time
	// NewTimer returns a timer that fires once after d.
	NewTimer(d time.Duration) Timer
	// AfterFunc calls f in its own goroutine after d, unless stopped first.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is the part of *time.Timer the informer uses.
type Timer interface {
	// C is nil for timers made by AfterFunc.
	C() <-chan time.Time
	Stop() bool
	Reset(d time.Duration) bool
}

// realClock is Clock backed by package time.
type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) NewTimer(d time.Duration) Timer { return realTimer{time.NewTimer(d)} }

func (realClock) AfterFunc(d time.Duration, f func()) Timer {
	return realTimer{time.AfterFunc(d, f)}
}

type realTimer struct{ t *time.Timer }

func (t realTimer) C() <-chan time.Time        { return t.t.C }
func (t realTimer) Stop() bool                 { return t.t.Stop() }
func (t realTimer) Reset(d time.Duration) bool { return t.t.Reset(d) }
