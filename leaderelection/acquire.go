package leaderelection

import (
	"context"
	"fmt"
	"time"

	"github.com/zerokube/zerokube/meta"
)

// tryAcquire makes one attempt to take the Lease (invariants 2 and 3). It
// returns the end of the leadership it won, or the zero time and how long
// to wait before the next attempt. A race lost to another candidate (409,
// or a create of a name that is taken) is not an error.
func (e *Elector) tryAcquire(ctx context.Context) (deadline time.Time, wait time.Duration, err error) {
	clk, retry := e.cfg.Clock, e.cfg.RetryPeriod
	// A server that accepts a request and never answers must not hold the
	// campaign up: each attempt has RenewDeadline (of real time, as every
	// context deadline in the project).
	ctx, cancel := context.WithTimeout(ctx, e.cfg.RenewDeadline)
	defer cancel()
	cur, err := e.leases.get(ctx, e.cfg.Name)
	if meta.IsNotFound(err) {
		start := clk.Now()
		l := &Lease{}
		l.Name = e.cfg.Name
		e.mine(start, record{}).writeTo(l)
		zero := int32(0)
		l.Spec.LeaseTransitions = &zero
		out, err := e.leases.create(ctx, l)
		return e.won(start, out, err)
	}
	if err != nil {
		return time.Time{}, retry, err
	}
	now := e.store(cur)
	e.mu.Lock()
	seen := e.seen
	e.mu.Unlock()
	if h := seen.rec.holder; h != "" && h != e.cfg.Identity {
		// Expiry is judged by this candidate's clock from the moment it
		// saw the record change, never from the holder's renewTime: the
		// clocks of two machines need not agree, only their rates. It
		// wakes at the expiry itself when that comes before the next
		// period, so that a takeover is due within LeaseDuration plus one
		// RetryPeriod of the holder's last renewal.
		if expiry := seen.expiry(); now.Before(expiry) {
			return time.Time{}, min(retry, expiry.Sub(now)), nil
		}
	}
	start := clk.Now()
	next := *cur
	e.mine(start, seen.rec).writeTo(&next)
	out, err := e.leases.update(ctx, &next)
	return e.won(start, out, err)
}

// won judges the outcome of an acquiring write made at start: the
// leadership it gives ends RenewDeadline after start, which is before the
// server stored the write and so before any other candidate can have seen
// it (invariant 1).
func (e *Elector) won(start time.Time, l *Lease, err error) (time.Time, time.Duration, error) {
	if meta.IsConflict(err) || meta.IsAlreadyExists(err) {
		return time.Time{}, e.cfg.RetryPeriod, nil // another candidate won the race
	}
	if err != nil {
		return time.Time{}, e.cfg.RetryPeriod, err
	}
	e.store(l)
	deadline := start.Add(e.cfg.RenewDeadline)
	if !e.cfg.Clock.Now().Before(deadline) {
		// The write took longer than RenewDeadline: the Lease is ours but
		// this leadership is already over; renew it at once.
		return time.Time{}, 0, nil
	}
	return deadline, 0, nil
}

// mine is the record this candidate writes at start over prev: a holder
// renewing keeps its acquireTime and the transition count; a new holder
// counts one transition more.
func (e *Elector) mine(start time.Time, prev record) record {
	r := record{holder: e.cfg.Identity, durationSecs: int32(e.cfg.LeaseDuration / time.Second),
		acquire: start, renew: start, transitions: prev.transitions}
	if prev.holder == e.cfg.Identity {
		r.acquire = prev.acquire
	} else {
		r.transitions++
	}
	return r
}

// store records l as the Lease last seen, and returns the time it was
// seen. The sighting's time moves only when the record changed: that is
// what lets a candidate count a holder's silence on its own clock.
func (e *Elector) store(l *Lease) time.Time {
	now := e.cfg.Clock.Now()
	e.mu.Lock()
	defer e.mu.Unlock()
	e.seen = e.seen.update(recordOf(l), now)
	e.lease = l
	return now
}

// takenError says that the Lease has another holder, or none, or is gone:
// the leader has lost it whatever its deadline says.
type takenError struct{ holder string }

func (t takenError) Error() string { return fmt.Sprintf("%s (holder %q)", ReasonTaken, t.holder) }

// renew writes this leader's renewal made at start. The write carries the
// resourceVersion the leader last wrote; on a conflict it reads the Lease
// and renews at its version only if it still names this candidate.
func (e *Elector) renew(ctx context.Context, start time.Time) error {
	e.mu.Lock()
	next := *e.lease
	e.mu.Unlock()
	e.mine(start, recordOf(&next)).writeTo(&next)
	out, err := e.leases.update(ctx, &next)
	if meta.IsConflict(err) {
		cur, gerr := e.leases.get(ctx, e.cfg.Name)
		if gerr != nil {
			return gerr
		}
		e.store(cur)
		if h := recordOf(cur).holder; h != e.cfg.Identity {
			return takenError{h}
		}
		next = *cur
		e.mine(start, recordOf(cur)).writeTo(&next)
		out, err = e.leases.update(ctx, &next)
	}
	if meta.IsNotFound(err) {
		return takenError{}
	}
	if err != nil {
		return err
	}
	e.store(out)
	return nil
}

// releaseTries bounds release's writes: each 409 means another write came
// in between, and the read after it says whose the Lease is now.
const releaseTries = 3

// release gives the Lease up (invariant 4): no holder, a duration of one
// second, as client-go writes it, so that the next attempt of any other
// candidate takes it. It writes at the resourceVersion it last saw, so it
// cannot undo a takeover it did not see. A 409 is most often this leader's
// own renewal, cancelled in flight when Run's context ended but stored by
// the server all the same: release then reads the Lease and gives it up at
// the version read if it still names this candidate, and never otherwise.
// (client-go retries its release on a conflict for the same race since
// kubernetes/kubernetes#137988.)
func (e *Elector) release(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), e.cfg.RenewDeadline)
	defer cancel()
	e.mu.Lock()
	cur := e.lease
	e.mu.Unlock()
	for try := 1; cur != nil && recordOf(cur).holder == e.cfg.Identity; try++ {
		now := e.cfg.Clock.Now()
		next := *cur
		record{durationSecs: 1, acquire: now, renew: now, transitions: recordOf(cur).transitions}.writeTo(&next)
		out, err := e.leases.update(ctx, &next)
		switch {
		case err == nil:
			e.store(out)
			return
		case meta.IsNotFound(err):
			e.cfg.Logger.Debug("leaderelection: not released: the lease is gone", "err", err)
			return
		case !meta.IsConflict(err) || try == releaseTries:
			e.cfg.Logger.Warn("leaderelection: releasing", "err", err)
			return
		}
		if cur, err = e.leases.get(ctx, e.cfg.Name); err != nil {
			if !meta.IsNotFound(err) {
				e.cfg.Logger.Warn("leaderelection: releasing: reading the lease after a conflict", "err", err)
			}
			return
		}
		e.store(cur)
	}
	if cur != nil {
		e.cfg.Logger.Debug("leaderelection: not released: the lease is not this candidate's",
			"lease", e.leases.where(e.cfg.Name), "holder", recordOf(cur).holder)
	}
}
