package leaderelection

import (
	"context"
	"errors"
	"time"

	"github.com/zerokube/zerokube/clock"
)

// lead runs OnStartedLeading and renews the Lease until leadership ends,
// which cancels the work's context with a *LostError cause: at deadline
// (by this candidate's clock) unless a renewal moved it, at once when the
// Lease turns out to be someone else's, or when ctx ends. It then waits for
// the work to return, releases the Lease when ctx ended (unless
// KeepOnCancel), and calls OnStoppedLeading.
func (e *Elector) lead(ctx context.Context, deadline time.Time) error {
	// The work's context is not a child of ctx, so that its cause is
	// always a *LostError; it keeps ctx's values.
	work, end := context.WithCancelCause(context.WithoutCancel(ctx))
	defer end(nil)
	stop := context.AfterFunc(ctx, func() { end(e.lost(e.cfg.Clock.Now(), ReasonCancelled)) })
	defer stop()
	e.mu.Lock()
	e.work = work
	e.mu.Unlock()
	e.cfg.Logger.Info("leaderelection: leading", "lease", e.leases.where(e.cfg.Name), "identity", e.cfg.Identity)

	done := make(chan struct{})
	go func() {
		defer close(done)
		e.cfg.OnStartedLeading(work)
	}()
	e.renewUntilLost(work, end, deadline)
	<-done

	var lost *LostError
	if !errors.As(context.Cause(work), &lost) {
		lost = e.lost(e.cfg.Clock.Now(), ReasonCancelled) // unreachable: every end passes a *LostError
	}
	e.cfg.Logger.Info("leaderelection: stopped leading", "lease", lost.Lease, "identity", lost.Identity, "reason", lost.Reason)
	if lost.Reason == ReasonCancelled && !e.cfg.KeepOnCancel {
		e.release(ctx)
	}
	if e.cfg.OnStoppedLeading != nil {
		e.cfg.OnStoppedLeading()
	}
	if lost.Reason == ReasonCancelled {
		return nil
	}
	return lost
}

// renewUntilLost renews every RetryPeriod until work ends. Each success
// moves the deadline to RenewDeadline after the start of that renewal; a
// failure is retried at the next period; the deadline passing, or the
// Lease found in other hands, ends work.
func (e *Elector) renewUntilLost(work context.Context, end context.CancelCauseFunc, deadline time.Time) {
	clk := e.cfg.Clock
	expire := e.expireAt(deadline, end)
	defer func() { expire.Stop() }()
	for clock.Sleep(work, clk, e.cfg.RetryPeriod) == nil {
		start := clk.Now()
		if !start.Before(deadline) {
			// Woken late (a stalled process, a clock that jumped): by this
			// clock leadership is over, and a renewal now would only make
			// the others wait longer.
			end(e.lost(deadline, ReasonNoRenewal))
			return
		}
		err := e.renew(work, start)
		var taken takenError
		switch {
		case work.Err() != nil:
			return
		case errors.As(err, &taken):
			lost := e.lost(clk.Now(), ReasonTaken)
			lost.Holder = taken.holder
			end(lost)
			return
		case err != nil:
			e.cfg.Logger.Warn("leaderelection: renewing", "lease", e.leases.where(e.cfg.Name), "err", err,
				"leads for", deadline.Sub(clk.Now()))
			continue
		}
		// A renewal that lands after the deadline does not revive
		// leadership: the others may already count the Lease expired.
		if !clk.Now().Before(deadline) {
			end(e.lost(deadline, ReasonLateRenewal))
			return
		}
		expire.Stop()
		deadline = start.Add(e.cfg.RenewDeadline)
		expire = e.expireAt(deadline, end)
	}
}

// expireAt ends work at deadline by the clock.
func (e *Elector) expireAt(deadline time.Time, end context.CancelCauseFunc) clock.Timer {
	return e.cfg.Clock.AfterFunc(deadline.Sub(e.cfg.Clock.Now()), func() { end(e.lost(deadline, ReasonNoRenewal)) })
}
