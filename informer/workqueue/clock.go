package workqueue

import "time"

// Clock is the queue's source of time. The zero Options use the real clock;
// tests pass a fake one and step it.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f (in its own goroutine, or synchronously for a fake clock)
	// once d has passed, unless the returned Timer is stopped first.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is the part of *time.Timer the queue uses.
type Timer interface {
	// Stop prevents the function from running; it reports whether it did.
	Stop() bool
}

// realClock is Clock backed by package time.
type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }
