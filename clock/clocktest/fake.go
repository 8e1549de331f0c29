// Package clocktest is zerokube's one fake clock, for the tests of every
// package that takes a clock.Clock (informer, workqueue, leaderelection,
// discovery, apiclient, watchstream). Time moves only when a test calls
// Advance, so a test of a timeout, a backoff or a watchdog waits for
// nothing and cannot be flaky.
package clocktest

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/zerokube/zerokube/clock"
)

// Start is where every Fake's time begins: a fixed instant, so that tests
// that print or compare times are reproducible.
var Start = time.Unix(1_700_000_000, 0)

// Fake is a clock.Clock under a test's control. Its zero value is not
// usable: call New.
//
//  1. Time moves only in Advance. Advance fires, in due order (ties in the
//     order they were armed), every timer due by the new time, including
//     timers armed by the callbacks it runs; an AfterFunc callback runs
//     synchronously inside Advance, so the test knows it has run when
//     Advance returns.
//  2. A NewTimer timer that fires sends the time on its C without blocking
//     (C has room for one value). After Stop or Reset returns, no value from
//     before is received, as with package time since Go 1.23.
//  3. With SetInstant(true), a NewTimer timer fires as it is made and time
//     does not move: code that only waits (a backoff, a retry) runs through
//     its waits at once while Delays records them.
type Fake struct {
	mu      sync.Mutex
	now     time.Time       // guarded by mu
	armed   []*timer        // guarded by mu; the timers that will fire
	seq     uint64          // guarded by mu; arming order, to break ties
	instant bool            // guarded by mu
	delays  []time.Duration // guarded by mu; every NewTimer's d, in order
	// changed is closed and replaced whenever a timer is armed, so that
	// AwaitTimers can wait without polling. Guarded by mu.
	changed chan struct{}
}

var _ clock.Clock = (*Fake)(nil)

// New returns a Fake clock at Start with no timers.
func New() *Fake { return &Fake{now: Start, changed: make(chan struct{})} }

type timer struct {
	c   *Fake
	at  time.Time
	seq uint64
	f   func()         // AfterFunc timers
	ch  chan time.Time // NewTimer timers
}

// Now is the fake time.
func (c *Fake) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// NewTimer returns a timer that sends on its C once the clock has advanced
// by d, or at once with SetInstant(true). Delays records d.
func (c *Fake) NewTimer(d time.Duration) clock.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.delays = append(c.delays, d)
	t := &timer{c: c, ch: make(chan time.Time, 1)}
	if c.instant {
		t.ch <- c.now
		return t
	}
	c.armLocked(t, d)
	return t
}

// AfterFunc returns a timer that calls f inside the Advance that moves the
// clock by d or more.
func (c *Fake) AfterFunc(d time.Duration, f func()) clock.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &timer{c: c, f: f}
	c.armLocked(t, d)
	return t
}

// armLocked schedules t d from now. c.mu must be held.
func (c *Fake) armLocked(t *timer, d time.Duration) {
	c.seq++
	t.at, t.seq = c.now.Add(d), c.seq
	c.armed = append(c.armed, t)
	close(c.changed)
	c.changed = make(chan struct{})
}

// disarmLocked unschedules t and reports whether it was scheduled. c.mu
// must be held.
func (c *Fake) disarmLocked(t *timer) bool {
	i := slices.Index(c.armed, t)
	if i < 0 {
		return false
	}
	c.armed = slices.Delete(c.armed, i, i+1)
	return true
}

// Advance moves the clock forward by d and fires the timers that are due.
func (c *Fake) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
	for {
		c.mu.Lock()
		t := c.nextDueLocked()
		if t == nil {
			c.mu.Unlock()
			return
		}
		c.disarmLocked(t)
		now := c.now
		c.mu.Unlock()
		// Fired outside the lock: a callback may use the clock.
		if t.f != nil {
			t.f()
			continue
		}
		select {
		case t.ch <- now:
		default: // an unread value is already there
		}
	}
}

// nextDueLocked is the earliest armed timer due by now, or nil. c.mu must be
// held.
func (c *Fake) nextDueLocked() *timer {
	var next *timer
	for _, t := range c.armed {
		if t.at.After(c.now) {
			continue
		}
		if next == nil || t.at.Before(next.at) || (t.at.Equal(next.at) && t.seq < next.seq) {
			next = t
		}
	}
	return next
}

// SetInstant makes NewTimer timers fire as soon as they are made (on) or
// only when Advance reaches them (off, the default). AfterFunc timers are
// not affected.
func (c *Fake) SetInstant(on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.instant = on
}

// Delays is every duration passed to NewTimer so far, in order.
func (c *Fake) Delays() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.delays)
}

// Pending is how many timers are armed: made or reset and neither fired nor
// stopped since.
func (c *Fake) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.armed)
}

// AwaitTimers waits until at least n timers are armed, so that a test can
// advance the clock only once the code under test, in its own goroutine,
// has started the timer it means to test. It returns ctx's cause if ctx
// ends first.
func (c *Fake) AwaitTimers(ctx context.Context, n int) error {
	return c.await(ctx, func() bool { return len(c.armed) >= n })
}

// await waits until ok, called with c.mu held, holds; it is asked again
// after each change of the armed timers.
func (c *Fake) await(ctx context.Context, ok func() bool) error {
	for {
		c.mu.Lock()
		if ok() {
			c.mu.Unlock()
			return nil
		}
		changed := c.changed
		c.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

// AwaitDeadline waits until a timer is armed to fire at at, so that a
// test can tell a timer re-armed from one still armed from before (a
// watchdog that restarts on progress): the restart sets the deadline the
// test expects. It returns ctx's cause if ctx ends first.
func (c *Fake) AwaitDeadline(ctx context.Context, at time.Time) error {
	return c.await(ctx, func() bool {
		return slices.ContainsFunc(c.armed, func(t *timer) bool { return t.at.Equal(at) })
	})
}

// C is nil for a timer made by AfterFunc.
func (t *timer) C() <-chan time.Time { return t.ch }

// Stop unschedules the timer and reports whether it was scheduled.
func (t *timer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	t.drain()
	return t.c.disarmLocked(t)
}

// Reset schedules the timer d from now and reports whether it was
// scheduled.
func (t *timer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	t.drain()
	was := t.c.disarmLocked(t)
	t.c.armLocked(t, d)
	return was
}

// drain drops a value that fired but was not received (invariant 2).
func (t *timer) drain() {
	if t.ch == nil {
		return
	}
	select {
	case <-t.ch:
	default:
	}
}
