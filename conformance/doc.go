// Package conformance checks that fakeapiserver answers as kube-apiserver
// does, wherever a client can see it. It holds only tests.
//
// It stands beside the data path and looks at the wire:
//
//	fakeapiserver  ══HTTP══▶ ┐
//	                          ├─ the same scenario, the same observation
//	kube-apiserver ══HTTP══▶ ┘   (kubetest runs the real one)
//
// Each scenario (as in testing/slogtest) is a function that talks to a
// server over HTTP and writes down what a client observes, normalised so
// that two servers can be compared: resourceVersions become their rank
// among the RVs the scenario saw ("rv1" < "rv2"), or relations between
// them, and uids, timestamps and names the server made up are left out.
// TestConformance runs every scenario against the fake and, when the
// binaries built by conformance/kube/build.sh are present, against a real
// kube-apiserver v1.37.2 (conformance/kubetest); each observation must equal
// the scenario's documented one, which was taken from the real server. Without
// the binaries the suite still runs against the fake and says, in one line,
// how to build them.
//
// Scenarios look at wire details a client can trip on, not only at
// objects: the object a BOOKMARK carries for every built-in kind
// (watch/bookmark-shells) and for a custom resource
// (watch/bookmark-custom-resource, which creates a CRD on the real server
// and registers the kind on the fake), and which replies come gzipped
// (watch/gzip: lists and gets over 128 KiB, watch lists, not other watches).
//
// The protobuf scenarios (protobuf_answers_test.go) ask both servers for
// built-in kinds as application/vnd.kubernetes.protobuf: gets, lists,
// Status errors, protobuf request bodies, a streaming-list watch, and a
// custom resource (JSON with a fallback, 406 without); each protobuf answer,
// read with kubeproto, must hold the same object as the JSON answer, as Go
// structs see it.
//
// A difference the fake does not (yet) remove is listed, with its reason, in
// knownDifferences; such a scenario is skipped on the fake only, and an entry
// for a scenario that passes fails the suite, so the list cannot go stale.
//
// The future-resourceVersion scenarios (future_rv_test.go) pin what a
// client holding a resourceVersion the server's history has not reached
// gets (a WATCH accepted and silent, a LIST 504 ResourceVersionTooLarge),
// also on a kube-apiserver of their own without the watch cache, and that
// an informer resumes no snapshot of another history or cluster, also as
// an agent RBAC forbids to read namespaces.
//
// The informer tests (informer_test.go) run zerokube's informer end to end
// (sync, churn, relist after compaction, streaming list) against both
// servers.
//
// The undecodable test (undecodable_test.go) plants a pod both servers
// store and the user's type refuses (a validating type for its image): over
// protobuf, in a list, a streaming list and a watch event, the informer
// skips it and names it with its path and cause on both servers.
//
// The Lease tests (leaderelection_test.go) run leader election (acquire,
// renew, a stale write refused with 409, release and takeover) and shard
// membership on both servers.
//
// The metrics test (metrics_test.go) reads kube-apiserver's own /metrics,
// where its client-go work queues report, and checks that package metrics
// gives zerokube's work queue the same workqueue_* families: names, types,
// label and buckets (real server only: the fake serves no /metrics).
//
// Invariants:
//  1. A scenario works in a namespace of its own (or on its own fake server),
//     so scenarios do not see each other's objects on the shared real server.
//  2. An observation never holds a value the server makes up (uid, time,
//     generated name, absolute resourceVersion).
//  3. The real server is started once per test binary and always stopped.
package conformance
