// Package clock is zerokube's one way of reading and waiting on time, and
// its one backoff (Backoff). Every package that waits takes a Clock in its
// options and uses Real when none is given:
//   - the informer (informer.Options.Clock): the reflector's backoff and
//     watch timeouts, the idle watchdog, resync, snapshots;
//   - leader election and shard membership (leaderelection.Config.Clock,
//     Membership.Clock): their Lease rounds, deadlines and expiry;
//   - the work queue (workqueue.Options.Clock): delays, rate limits, metrics;
//   - discovery (discovery.Options.Clock): the spacing of its re-reads;
//   - the client (apiclient.Options.Clock): the waits between retried
//     reads, the rate limiter, the watch open timeout, the list stall
//     watchdog, an exec credential's renewal;
//   - the watch stream (watchstream.Options.Clock, the client's unless
//     set): the idle watchdog.
//
// Each of those options is typed clock.Clock itself: one public package,
// so one value drives them all and no package keeps an alias of its own
// (there were six, informer.Clock, apiclient.Clock, …). Tests, the
// project's and its users', use the one fake, package clocktest, and
// advance it instead of sleeping. Only context deadlines, connection
// deadlines and net/http's own timeouts stay on the real clock.
//
// It sits beside the data path, not in it: every package that waits may
// import it, and it imports nothing of the project.
//
// Invariants:
//  1. Real is package time and nothing more: Real.NewTimer and
//     Real.AfterFunc behave as time.NewTimer and time.AfterFunc.
//  2. A Timer made by AfterFunc has a nil C: its function is its signal.
//  3. Backoff.Delay is Initial·2^failures capped at Max, then jitter on
//     the capped value; it never overflows. [TestBackoffDoublesToMaxWithJitter]
//  4. Sleep returns ctx's cause once ctx is done (at once if it already
//     is), stops its timer, and does not wait for d <= 0.
//     [TestSleepEndsWithTheContextsCause]
package clock
