package workqueue

import "github.com/zerokube/zerokube/internal/clock"

// Clock is the queue's source of time: the project's one clock
// (internal/clock), the informer's too. The zero Options use the real
// clock; tests pass the project's one fake (internal/clock/clocktest) and
// advance it.
type Clock = clock.Clock

// Timer is the part of *time.Timer the queue uses.
type Timer = clock.Timer

// orReal is c, or the real clock when c is nil.
func orReal(c Clock) Clock {
	if c == nil {
		return clock.Real{}
	}
	return c
}
