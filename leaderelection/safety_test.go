package leaderelection_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/leaderelection"
	"github.com/zerokube/zerokube/meta"
)

// The safety scenarios: three candidates with client-go's defaults (lease
// 15 s, renew deadline 10 s, retry period 2 s) on the rig of rig_test.go.
// Each checks the two promises of the package: never two leaders at one
// instant (the old leader's work context ends before another's starts),
// and a new leader within LeaseDuration + RetryPeriod of the old one being
// cut off.

const (
	lease = leaderelection.DefaultLeaseDuration
	retry = leaderelection.DefaultRetryPeriod
)

// elect starts three candidates and runs until one leads; it returns the
// leader and the others.
func elect(t *testing.T) (*world, *cand, []*cand) {
	w := newWorld(t)
	cs := []*cand{w.join("a"), w.join("b"), w.join("c")}
	w.run(5 * time.Second)
	ls := w.leaders()
	require.Len(t, ls, 1, "one leader after 5 s")
	var leader *cand
	var others []*cand
	for _, c := range cs {
		if c.id == ls[0] {
			leader = c
		} else {
			others = append(others, c)
		}
	}
	for _, o := range others {
		require.Equal(t, leader.id, o.el.Leader(), "%s observed the leader", o.id)
	}
	return w, leader, others
}

// takenOver checks that one of others leads, started within bound after
// from, and returns it.
func takenOver(t *testing.T, w *world, others []*cand, from time.Time, bound time.Duration) *cand {
	t.Helper()
	ls := w.leaders()
	require.Len(t, ls, 1, "one leader")
	for _, o := range others {
		if o.id == ls[0] {
			at := w.started(o.id, from)
			require.False(t, at.IsZero())
			require.LessOrEqual(t, at.Sub(from), bound, "%s took over %s after the cut", o.id, at.Sub(from))
			return o
		}
	}
	t.Fatalf("the leader %s is not one of the others", ls[0])
	return nil
}

// lostWith checks that c's Run returned the *LostError reason.
func lostWith(t *testing.T, c *cand, reason leaderelection.Reason) {
	t.Helper()
	c.w.mu.Lock()
	err, exited := c.err, c.exited
	c.w.mu.Unlock()
	require.True(t, exited, "%s's Run returned", c.id)
	var lost *leaderelection.LostError
	require.True(t, errors.As(err, &lost), "%s: %v", c.id, err)
	require.Equal(t, reason, lost.Reason)
}

// TestSafetyPartitionedLeader: the leader's network is cut. Its renewals
// fail; its work ends RenewDeadline after its last renewal began, by its
// clock; another candidate, counting from when it saw that renewal, takes
// over no earlier than LeaseDuration later and no later than LeaseDuration
// + RetryPeriod after the cut.
func TestSafetyPartitionedLeader(t *testing.T) {
	w, leader, others := elect(t)
	cut := w.clk.Now()
	leader.net.set(true, 0)
	w.run(30 * time.Second)
	w.checkSafe(false)
	lostWith(t, leader, leaderelection.ReasonNoRenewal)
	next := takenOver(t, w, others, cut, lease+retry)
	tm := w.terms[0]
	require.LessOrEqual(t, tm.end.Sub(cut), leaderelection.DefaultRenewDeadline, "the old leader stopped within RenewDeadline of the cut")
	require.GreaterOrEqual(t, w.started(next.id, cut).Sub(tm.end), lease-leaderelection.DefaultRenewDeadline,
		"the margin between the old leader's end and the new one's start")
}

// TestSafetyServerDown: the server restarts (every connection dropped)
// and answers 503 for a while. A short outage costs nothing: the leader
// renews once the server is back, within its deadline. A long one ends the
// leadership at the deadline. When the server is back, a waiting candidate
// that had seen the leader's last renewal before the outage takes over at
// its next attempt; one that had not sees it only now, cannot know when it
// was written, and waits a full LeaseDuration: so the bound is
// LeaseDuration + RetryPeriod after the server's return.
func TestSafetyServerDown(t *testing.T) {
	w, leader, others := elect(t)
	down := func(d time.Duration) time.Time {
		w.srv.Restart()
		w.srv.FailNext(fakeapiserver.Failure{Count: fakeapiserver.Forever, Code: 503})
		w.run(d)
		w.srv.ClearFaults()
		return w.clk.Now()
	}
	down(5 * time.Second)
	w.run(10 * time.Second)
	require.Equal(t, []string{leader.id}, w.leaders(), "a 5 s outage keeps the leader")
	require.Len(t, w.terms, 1, "in one term")

	cut := w.clk.Now()
	back := down(20 * time.Second)
	w.run(10 * time.Second)
	w.checkSafe(false)
	lostWith(t, leader, leaderelection.ReasonNoRenewal)
	require.LessOrEqual(t, w.terms[0].end.Sub(cut), leaderelection.DefaultRenewDeadline)
	w.run(lease)
	takenOver(t, w, others, back, lease+retry)
}

// TestSafetySlowRenewal: the answers to the leader's writes reach it late.
// 3 s late, each renewal still lands within the deadline and the leader
// keeps leading. Then one renewal is answered 7.5 s late, still within the
// deadline (8 s after it was sent), and the link is cut: the server stored
// that renewal when it was sent, so the others count from then, and the
// leader's new deadline must count from then too (the start of the
// renewal), not from when the answer came back: that would stretch it
// 7.5 s, past the 5 s margin, into the time the others may lead (client-go
// counts RetryPeriod + RenewDeadline from the answer, later still). A
// mutant counting RenewDeadline from the answer fails here.
func TestSafetySlowRenewal(t *testing.T) {
	w, leader, others := elect(t)
	leader.net.set(false, 3*time.Second)
	w.run(60 * time.Second)
	require.Equal(t, []string{leader.id}, w.leaders(), "answers 3 s late keep the leader")
	require.Len(t, w.terms, 1)

	leader.net.set(false, 0)
	w.run(10 * time.Second)
	slow := w.clk.Now()
	leader.net.slowOnce(7500 * time.Millisecond)
	w.run(40 * time.Second)
	w.checkSafe(false)
	lostWith(t, leader, leaderelection.ReasonNoRenewal)
	// The slowed renewal was sent within one RetryPeriod of the slowdown;
	// the others count from it.
	takenOver(t, w, others, slow, retry+lease+retry)
}

// TestSafetyWorldJumps: the whole world's clock jumps 30 s at once, as
// when every machine resumes from a suspend, and every timer fires in the
// same instant. The candidates then act concurrently, so the check is by
// their own clocks: the old leader's leadership ended at its deadline,
// before the jump, and the new one started after it. The old leader,
// woken past its deadline, does not renew; a follower that had not yet
// seen its last renewal sees it only now and counts a full LeaseDuration
// from the jump, as it must: it cannot know when that renewal was made.
func TestSafetyWorldJumps(t *testing.T) {
	w, leader, _ := elect(t)
	w.strict = false
	at := w.clk.Now().Add(30 * time.Second)
	w.jump(30 * time.Second)
	lostWith(t, leader, leaderelection.ReasonNoRenewal)
	require.True(t, w.terms[0].own.Before(at.Add(-20*time.Second)), "by its own clock the leader stopped before the jump")
	w.run(lease + retry)
	w.checkSafe(true)
	require.Len(t, w.leaders(), 1, "one leader after the jump")
	require.LessOrEqual(t, w.terms[1].start.Sub(at), lease+retry)
}

// TestSafetyFollowerClockAhead: while the leader is cut off, a follower's
// clock jumps 4 s ahead, less than the margin LeaseDuration - RenewDeadline
// (5 s). It takes over up to 4 s sooner, still after the old leader's end.
func TestSafetyFollowerClockAhead(t *testing.T) {
	w, leader, others := elect(t)
	cut := w.clk.Now()
	leader.net.set(true, 0)
	for _, o := range others {
		o.jumpAhead(4 * time.Second)
	}
	w.run(30 * time.Second)
	w.checkSafe(false)
	takenOver(t, w, others, cut, lease+retry)
}

// TestSafetyLeaderClockAhead: the leader's clock jumps 30 s ahead. By its
// clock its deadline has passed: at its next renewal it stops instead of
// writing; the others take over when its last renewal expires by their
// clocks.
func TestSafetyLeaderClockAhead(t *testing.T) {
	w, leader, others := elect(t)
	jump := w.clk.Now()
	leader.jumpAhead(30 * time.Second)
	w.run(30 * time.Second)
	w.checkSafe(false)
	lostWith(t, leader, leaderelection.ReasonNoRenewal)
	require.LessOrEqual(t, w.terms[0].end.Sub(jump), retry, "stopped at its next renewal")
	takenOver(t, w, others, jump, retry+lease+retry)
}

// TestReleaseOnCancelHandsOverAtTheNextAttempt: a leader whose Run is
// cancelled ends its work, waits for it, releases the Lease and returns
// nil; another candidate leads within one RetryPeriod.
func TestReleaseOnCancelHandsOverAtTheNextAttempt(t *testing.T) {
	w, leader, others := elect(t)
	at := w.clk.Now()
	leader.cancel()
	require.NoError(t, leader.err)
	require.Equal(t, leaderelection.ReasonCancelled, w.terms[0].cause.Reason)
	w.run(5 * time.Second)
	w.checkSafe(false)
	takenOver(t, w, others, at, retry)
	w.mu.Lock()
	defer w.mu.Unlock()
	require.Equal(t, 1, leader.stopped, "OnStoppedLeading once, after leading")
	for _, o := range others {
		require.Zero(t, o.stopped, "%s has not stopped leading: OnStoppedLeading is not called for a candidate that did not lead", o.id)
	}
}

// TestKeepOnCancelMakesTheOthersWaitOutTheLease: a leader configured to
// keep the Lease on cancel stops leading but does not release; the others
// take over only when its last renewal has expired by their clocks.
func TestKeepOnCancelMakesTheOthersWaitOutTheLease(t *testing.T) {
	w := newWorld(t)
	keep := func(c *leaderelection.Config) { c.KeepOnCancel = true }
	a := w.joinWith("a", 0, keep)
	w.run(time.Second)
	require.Equal(t, []string{"a"}, w.leaders())
	w.joinWith("b", 0, keep)
	w.run(5 * time.Second)
	at := w.clk.Now()
	a.cancel()
	require.NoError(t, a.err)
	w.run(lease + retry)
	w.checkSafe(false)
	started := w.started("b", at)
	require.False(t, started.IsZero(), "b leads")
	require.GreaterOrEqual(t, started.Sub(at), lease-retry, "b waited out a's last renewal")
	require.LessOrEqual(t, started.Sub(at), lease+retry)
}

// TestTwoCandidatesRacingForAFreeLeaseOneWins: candidates that find the
// Lease free at the same instant all write it; the resourceVersion lets
// one write win, and the others wait out its lease.
func TestTwoCandidatesRacingForAFreeLeaseOneWins(t *testing.T) {
	for range 5 {
		w := newWorld(t)
		w.join("a")
		w.join("b")
		w.join("c")
		w.run(time.Second)
		require.Len(t, w.leaders(), 1)
		w.run(lease + retry)
		require.Len(t, w.leaders(), 1)
		require.Len(t, w.terms, 1, "no leader change while the leader renews")
		w.stopAll()
	}
}

// TestSafetyLeaderClockBehind: the leader's clock is an hour behind, so
// every renewTime it writes is an hour old by the others' clocks. They
// judge expiry from when they saw the Lease change, on their own clocks,
// never from renewTime: the leader keeps leading, and when it is cut off
// the takeover comes as for any partition.
func TestSafetyLeaderClockBehind(t *testing.T) {
	w, leader, others := elect(t)
	leader.jumpAhead(-time.Hour)
	w.run(30 * time.Second)
	require.Equal(t, []string{leader.id}, w.leaders(), "renewTimes an hour old do not end a live leader")
	require.Len(t, w.terms, 1)
	cut := w.clk.Now()
	leader.net.set(true, 0)
	w.run(30 * time.Second)
	w.checkSafe(false)
	takenOver(t, w, others, cut, lease+retry)
}

// TestALeaderWhoseLeaseIsOverwrittenStopsAtItsNextRenewal: someone writes
// another holder into the Lease (an operator, a candidate with a broken
// clock), or none (an operator releasing it by hand). The leader's next
// renewal meets a 409, reads the Lease, and stops at once rather than at
// its deadline: a Lease with no holder is not this candidate's either.
// The leader is alone, so that no other candidate takes the emptied Lease
// before the leader's renewal reads it.
func TestALeaderWhoseLeaseIsOverwrittenStopsAtItsNextRenewal(t *testing.T) {
	for _, holder := range []string{"intruder", ""} {
		t.Run("holder "+holder, func(t *testing.T) {
			w := newWorld(t)
			leader := w.join("a")
			w.run(time.Second)
			require.Equal(t, []string{"a"}, w.leaders())
			_, err := setHolder(w, holder)
			require.NoError(t, err)
			at := w.clk.Now()
			w.run(retry)
			lostWith(t, leader, leaderelection.ReasonTaken)
			require.LessOrEqual(t, w.terms[0].end.Sub(at), retry, "stopped at its next renewal")
			var lost *leaderelection.LostError
			require.ErrorAs(t, leader.err, &lost)
			require.Equal(t, holder, lost.Holder)
		})
	}
}

// TestAnAcquireAnsweredAfterRenewDeadlineDoesNotStartLeading: a write that
// acquires the Lease gives a leadership ending RenewDeadline after the write
// started (invariant 1). When its answer comes later than that, the Lease
// is the candidate's but the leadership is already over: it must not start
// its work on it, and leads only after a write answered in time.
func TestAnAcquireAnsweredAfterRenewDeadlineDoesNotStartLeading(t *testing.T) {
	w := newWorld(t)
	const late = leaderelection.DefaultRenewDeadline + time.Second
	w.prepare = func(c *cand) { c.net.slowOnce(late) } // the create's answer, then the link is cut
	a := w.join("a")
	w.run(late + time.Second)
	require.Empty(t, w.terms, "a started leading on a write answered %s after it began", late)
	require.True(t, func() bool { w.mu.Lock(); defer w.mu.Unlock(); return !a.exited }(), "a still campaigns")
	a.net.set(false, 0)
	w.run(2 * retry)
	require.Equal(t, []string{"a"}, w.leaders(), "a leads after a prompt write")
	require.GreaterOrEqual(t, w.terms[0].start.Sub(w.start), late, "and only after the late answer came")
}

// TestReleaseAfterARenewalCancelledInFlightHandsOverAtTheNextAttempt: Run's
// context ends while a renewal is in flight; the server stores the renewal
// and the leader sees only its cancellation. Its release, written at the
// version before that renewal, meets a 409; it reads the Lease, finds it
// still names it, and releases it at the version read: another candidate
// leads within one RetryPeriod, not after a LeaseDuration.
func TestReleaseAfterARenewalCancelledInFlightHandsOverAtTheNextAttempt(t *testing.T) {
	w, leader, others := elect(t)
	var at time.Time
	lost := leader.net.loseNextAnswer(func() { at = w.clk.Now() })
	w.run(retry) // the leader's next renewal
	w.run(retry)
	require.Equal(t, 200, leader.net.stored(lost), "the server stored the renewal whose answer was lost")
	require.NoError(t, leader.err, "a cancelled Run returns nil")
	w.checkSafe(false)
	takenOver(t, w, others, at, retry)
}

// TestReleaseNeverClearsALeaseThatNamesAnother: as above, but between the
// stored renewal and the release someone writes another holder into the
// Lease. The release meets a 409, reads the Lease, finds it is not this
// candidate's, and leaves it as it is.
func TestReleaseNeverClearsALeaseThatNamesAnother(t *testing.T) {
	w, leader, _ := elect(t)
	var after *meta.Raw
	var werr error // the hook runs on the leader's goroutine: checked here, after
	lost := leader.net.loseNextAnswer(func() { after, werr = setHolder(w, "intruder") })
	w.run(retry)
	require.NoError(t, werr)
	require.Equal(t, 200, leader.net.stored(lost))
	require.NoError(t, leader.err)
	now, err := w.srv.Get(leaderelection.LeasesGVR, "default", "ctrl")
	require.NoError(t, err)
	require.Equal(t, after.ResourceVersion, now.ResourceVersion, "nobody wrote the Lease after the intruder")
	var l leaderelection.Lease
	require.NoError(t, now.DecodeInto(&l))
	require.Equal(t, "intruder", *l.Spec.HolderIdentity)
}

// setHolder writes holder into the Lease on the server, as an operator
// would, and returns the Lease written.
func setHolder(w *world, holder string) (*meta.Raw, error) {
	raw, err := w.srv.Get(leaderelection.LeasesGVR, "default", "ctrl")
	if err != nil {
		return nil, err
	}
	var l map[string]any
	if err := raw.DecodeInto(&l); err != nil {
		return nil, err
	}
	l["spec"].(map[string]any)["holderIdentity"] = holder
	return w.srv.Update(leaderelection.LeasesGVR, l)
}
