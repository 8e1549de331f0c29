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
//     random moments; deterministic from a seed (printed; replay with
//     ZEROKUBE_CHAOS_SEED), longer with -chaos.duration or
//     ZEROKUBE_CHAOS_DURATION for soak runs.
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
//
// Invariants checked, each by the tests named:
//  1. After the faults stop, the cache equals the server's state exactly:
//     same keys, same resourceVersions (TestChaosConvergence).
//  2. Each handler's view, built only from the notifications it received,
//     equals the cache; a handler never sees an object's resourceVersion go
//     backwards (TestChaosConvergence, TestLoad).
//  3. Run returns, and every goroutine it started ends, within a bounded time
//     of its context's cancellation, at every stage (TestCancelAtEveryStage,
//     TestStartStopLeavesNothingBehind).
//  4. Credentials the server refuses give a *informer.SyncError with the
//     matching reason, never a silent retry loop (TestAuthFailuresAreTyped).
//  5. Whatever a server sends after the sync, the objects already cached
//     stay cached until a good list replaces them
//     (TestAServerGoneBadNeverCostsTheObjectsAlreadyStored).
//
// The hostile tests of single packages live beside them, in files named
// *_hostile_test.go (apiclient, watchstream) and fuzz_*_test.go.
package reliability
