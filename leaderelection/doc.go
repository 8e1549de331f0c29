// Package leaderelection runs one leader among replicas, and places
// replicas in shards, on coordination.k8s.io/v1 Leases.
//
// It sits beside the informer's data path, on the client:
//
//	apiclient ══HTTP══▶ Lease ◀── Elector (one leader: runs the controller)
//	                          ◀── Membership (i of N: moves informer.Shard)
//
// A controller built on informers and a work queue runs its workers in
// Config.OnStartedLeading: every replica keeps its caches warm, and one
// acts. Both Elector and Membership read and write Leases through one
// client (lease.go). They judge a Lease's liveness differently, each for
// its promise: an Elector by how long ago it saw the Lease change, on its
// own clock (a sighting: one leader whatever the clocks say), Membership
// by the Lease's renewTime (every replica, a newcomer too, reaches the
// same verdict).
//
// # Leader election
//
// The semantics and defaults are client-go's tools/leaderelection: a
// LeaseDuration of 15 s, a RenewDeadline of 10 s, a RetryPeriod of 2 s;
// OnStartedLeading with a context that ends when leadership ends,
// OnStoppedLeading, OnNewLeader; release on cancel; optimistic concurrency
// on the Lease's resourceVersion, so that of two candidates racing for it
// one write wins and the other gets 409 and has not acquired.
//
// Invariants:
//  1. A leader's leadership ends, and its OnStartedLeading context is
//     cancelled, RenewDeadline after the start of its last successful
//     write of the Lease, by its own clock, unless a later write succeeded
//     within that time. A write that succeeds only after that does not
//     revive it, and a renewal that finds the Lease in other hands ends it
//     at once. [TestSafetyPartitionedLeader, TestSafetySlowRenewal,
//     TestSafetyLeaderClockAhead,
//     TestALeaderWhoseLeaseIsOverwrittenStopsAtItsNextRenewal]
//  2. A candidate takes a Lease held by another only when LeaseDuration
//     (the Lease's leaseDurationSeconds) has passed, by its own clock,
//     since it first saw the Lease's current record; timestamps in the
//     Lease are compared for change, never against its clock.
//     Since it saw that record after it was written, and the holder wrote
//     it after it started the write, the old leader has stopped
//     (invariant 1) LeaseDuration - RenewDeadline before any other
//     candidate can take over, provided the candidates' clocks run at the
//     same rate to within that margin. [TestSafetyLeaderClockBehind,
//     TestSafetyFollowerClockAhead, TestSafetyWorldJumps,
//     TestSafetyUnderRandomFaults (clocks up to an hour apart)]
//  3. Every write carries the resourceVersion the writer read: of
//     concurrent takeovers exactly one succeeds.
//     [TestTwoCandidatesRacingForAFreeLeaseOneWins]
//  4. When Run's context ends, the leader's work context ends, Run waits
//     for OnStartedLeading to return, and then (unless KeepOnCancel)
//     writes the Lease with no holder, which any candidate takes at its
//     next attempt; with KeepOnCancel the others wait out the lease. A
//     release that meets a 409 (its own renewal, cancelled in flight but
//     stored) reads the Lease and releases it only if it still names this
//     candidate. OnStoppedLeading is called once after leading, never
//     without. [TestReleaseOnCancelHandsOverAtTheNextAttempt,
//     TestReleaseAfterARenewalCancelledInFlightHandsOverAtTheNextAttempt,
//     TestReleaseNeverClearsALeaseThatNamesAnother,
//     TestKeepOnCancelMakesTheOthersWaitOutTheLease]
//  5. A waiting candidate attempts every RetryPeriod and also at the
//     instant the Lease expires by its clock, so a new leader takes over at
//     most LeaseDuration + RetryPeriod after the old one was cut off.
//     When the server itself is down, the count restarts for a candidate
//     that sees a renewal only once the server is back.
//     [TestSafetyPartitionedLeader, TestSafetyServerDown]
//  6. Run returns only after every goroutine it started has ended
//     (goleak, in TestMain).
//
// Where this differs from client-go, on purpose:
//   - client-go gives up leading RetryPeriod + RenewDeadline after its
//     last successful renewal returned (a new renewal cycle, bounded by
//     RenewDeadline, starts RetryPeriod after the previous one ended);
//     here leadership ends RenewDeadline after that renewal started
//     (invariant 1). A renewal whose answer comes late (a slow server)
//     therefore cannot stretch leadership past the moment the others may
//     take over; with a prompt server the two differ by RetryPeriod.
//   - client-go compares the record at the second (its renewTime goes
//     through metav1.Time); here at the microsecond the Lease stores, so
//     every renewal is seen as a change.
//   - client-go calls OnStoppedLeading whenever Run returns, even for a
//     candidate that never led; here only after leading.
//   - client-go's ReleaseOnCancel is off by default, because it releases
//     without waiting for the leader's work; here the work has returned
//     before the release, so releasing is the default (KeepOnCancel).
//   - client-go jitters its acquire period up to 2.2 × RetryPeriod; here
//     the period is RetryPeriod plus the wake at expiry (invariant 5).
//     Racing candidates are separated by the resourceVersion, not by time.
//   - OnNewLeader runs on Run's goroutine and is not told of "no holder".
//
// As in client-go, this is not fencing: a leader whose process stalls
// (a long pause, a clock that jumps) may act once more after the others
// took over, before it sees its context end. Work that must never overlap
// needs its own check at the resource it writes.
//
// # Membership
//
// Membership (membership.go) keeps one Lease per replica of a group and
// gives the replica at place i of the N live holders shard.Of(i, N); it
// moves an informer.Shard when a replica joins or leaves. Its invariants
// are on the type.
package leaderelection
