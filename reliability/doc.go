// Package reliability holds zerokube's adversarial test suites; it has no
// API. Where the other packages test that each stage does its job, these
// tests try to break the whole data path
//
//	fakeapiserver (faults) ══HTTP══▶ apiclient ─▶ watchstream ─▶ informer ─▶ handlers
//
// and check the one promise an informer makes: its cache converges to the
// server's state, and every handler hears every final state, whatever the
// network and the server do.
//
// The suites (run with `go test ./reliability`):
//   - chaos: random writes across namespaces (creates, updates, label changes
//     moving objects in and out of a selector, deletes with and without
//     finalizers) while every fault the fake server knows is injected at
//     random moments (chaos_faults_test.go lists them: dropped, cut and
//     stalled watches, restarts, compaction, injected errors as HTTP answers
//     and as ERROR events, latency, garbage frames, an etcd restore that
//     takes resourceVersions back, compaction between pages, streaming lists
//     cut before their bookmark, undecodable objects). A fixed list of seeds
//     that draws every fault runs first, then random ones; each seed is
//     printed (replay with ZEROKUBE_CHAOS_SEED); longer with -chaos.duration
//     or ZEROKUBE_CHAOS_DURATION for soak runs. The TestChaos… scenarios of
//     chaos_findings_test.go each put one fault of issue 13 where it hurts.
//   - the option matrix (matrix_*_test.go, issue #25): queue (InOrder,
//     DeltaFIFO) × sync (LIST, streaming list) × snapshot (off, resumed,
//     expired, corrupt) × shard (none, server-filtered, informer-filtered,
//     Shard.Set mid-run) × SkipUndecodable × Transform × handler
//     (asynchronous, synchronous, added late) × wire (protobuf, JSON),
//     1,536 combinations, each run
//     through the same script of writes and faults (dropped, cut and failed
//     watches, compaction, a malformed event, a cut streaming list, the
//     server unreachable) and checked by one oracle: a valid history per
//     key, snapshot adds only for the snapshot's objects, no object of
//     another shard or outside the selector, Transform applied, the cache
//     equal to the server's objects for the shard and selector, unhealthy
//     while the server is unreachable and healthy after, every list and
//     watch in protobuf (the default wire), and with SkipUndecodable the
//     planted object (a valid ConfigMap whose binary data the type's
//     validating blob refuses) listed by Undecodable with its path and
//     cause. TestOptionMatrix
//     runs a pairwise covering array (18 combinations, a few seconds);
//     TestOptionMatrixFull runs the whole product in a random order within
//     a budget: 2 s by default, all of it with ZEROKUBE_MATRIX=full (about
//     3 minutes on two cores), or ZEROKUBE_MATRIX=5m; one combination with
//     ZEROKUBE_MATRIX_CASE=<its name>. Combinations that fail today
//     because of a known bug skip, naming it (knownBugs in
//     matrix_oracle_test.go); remove an entry when its bug is fixed.
//   - leaks and shutdown: informers and servers started and stopped in a
//     loop return goroutines and heap to their baseline; cancelling at each
//     stage (mid-list, mid-watch, mid-dispatch, during backoff) returns
//     promptly.
//   - security: 401 and 403 from the server become typed sync failures,
//     tokens never reach the logs, and a token file rotated under a running
//     informer is picked up without a restart (in both orders).
//   - hostile servers: an informer against a server that lies or breaks
//     (looping continue tokens, a lying remainingItemCount, resourceVersions
//     going backwards, objects without a name or resourceVersion, replayed
//     events, objects that do not fit the user's type, garbage after a good
//     sync, a WATCH accepted and never answered).
//   - load: 50,000 objects and 1,000 events/s with ten handlers, one slow,
//     behind ZEROKUBE_LOAD=1 (a short version runs by default).
//   - leader election's safety suite lives beside its package
//     (leaderelection/rig_test.go, safety_test.go): three candidates on one
//     fake clock through partitions, outages, slow answers and clock jumps,
//     checked for overlapping leadership and the takeover bound.
//
// Invariants checked, each by the tests named:
//  1. After the faults stop, the cache equals the server's state exactly:
//     same keys, same resourceVersions (TestChaosConvergence).
//  2. Each handler's view, built only from the notifications it received,
//     equals the cache; a handler never sees an object's resourceVersion go
//     backwards (TestChaosConvergence, TestLoad).
//  3. Each handler's notifications form a valid history per key: an add
//     only of a key it does not hold, an update or delete only of one it
//     holds, the old object of an update equal to the last one it was given
//     (TestChaosConvergence).
//  4. No relist hides a loss (chaos_deletes_test.go): a delete that reached
//     the informer's watch (some watch delivered an event at or past its
//     resourceVersion) reaches every handler as an observed delete, never
//     as a tombstone of a later relist; an observed delete came from a
//     watch event; right after a relist's swap the cache holds no object
//     that had left the view by the relist's resourceVersion; and no add
//     carries isInInitialList once an add without it arrived
//     (TestChaosConvergence, whose scripts create and delete objects at
//     once so that both deltas meet in the queue).
//  5. No hot loop: the informer lists no faster than its backoff allows,
//     whatever the server answers; and it converges within a bounded time
//     once the server is healthy again (TestChaosConvergence, the
//     TestChaos… scenarios).
//  6. Every chaos scenario's faults reached the informer: a run in which
//     none of the faults it drew went off fails, and the fixed seeds draw
//     every fault (TestChaosConvergence).
//  7. Run returns, and every goroutine it started ends, within a bounded time
//     of its context's cancellation, at every stage (TestCancelAtEveryStage,
//     TestStartStopLeavesNothingBehind).
//  8. Credentials the server refuses give a *informer.SyncError with the
//     matching reason, never a silent retry loop (TestAuthFailuresAreTyped).
//  9. Whatever a server sends after the sync, the objects already cached
//     stay cached until a good list replaces them
//     (TestAServerGoneBadNeverCostsTheObjectsAlreadyStored).
//
// The hostile tests of single packages live beside them, in files named
// *_hostile_test.go (apiclient, watchstream) and fuzz_*_test.go.
package reliability
