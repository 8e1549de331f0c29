// Package kubetest runs a real etcd and kube-apiserver on loopback for tests,
// so that what the project claims about kube-apiserver is checked against
// kube-apiserver itself and not only against fakeapiserver.
//
// It sits beside the data path, in the place of the server:
//
//	etcd ◀── kube-apiserver ══HTTPS══▶ apiclient ─▶ watchstream ─▶ informer
//	            (kubetest)                (the code under test)
//
// The binaries are not part of the module: conformance/kube/build.sh builds
// them from the Go module proxy into a cache directory
// (~/.cache/zerokube/kube/<version>/bin), in a throwaway module, so nothing
// under k8s.io enters this module's graph. Find reports whether they are
// there; tests skip with SkipMessage when they are not.
//
// Start runs etcd and kube-apiserver with a fresh data directory, random
// free ports, a self-signed serving certificate, a static admin token, RBAC,
// service-account keys, a short etcd compaction interval (so continue tokens
// and watch resourceVersions expire within seconds) and the
// ShardedListAndWatch feature gate; it returns once /readyz answers ok.
// Server.Close stops both processes and removes the directory.
//
// Invariants:
//  1. Every port is on 127.0.0.1; nothing listens on another address.
//  2. Start either returns a ready server or stops whatever it started.
//  3. Close stops both processes (SIGTERM, then SIGKILL after a grace
//     period) and waits for them; no process outlives it.
package kubetest
