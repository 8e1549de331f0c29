// Package fakeapiserver is an in-memory Kubernetes API server that speaks the
// real wire protocol: kubectl, client-go and zerokube's own apiclient work
// against it unchanged. It is what zerokube's informer is tested against and
// what the demo runs on.
//
// It sits at the far end of the data path
//
//	fakeapiserver ══HTTP══▶ apiclient ─▶ watchstream ─▶ informer
//
// and knows nothing of the informer. One line starts it in a test:
//
//	srv := fakeapiserver.Start(t) // closed by t.Cleanup
//	cfg := srv.ClientConfig()     // for apiclient.New
//
// Outside tests use New, Server.Start and Server.Close; cmd/fakeapiserver
// runs it as a process.
//
// Tests assert on what happened with Stats (requests, watches, events,
// slow watchers, faults by kind) and wait with AwaitWatchers rather than
// sleeping. The same faults are reachable over HTTP for other processes,
// without a token:
//
//	POST /fake/fail?code=503&count=2&verb=watch&path=/pods&retryAfter=2s
//	POST /fake/drop-watches | /fake/cut-watch | /fake/malformed-event | /fake/stall | /fake/restart
//	POST /fake/latency?d=200ms | /fake/compact?rv=123 | /fake/bookmarks?enabled=false
//	GET  /fake/stats
//
// Objects of every resource are stored as generic JSON (the built-in core/v1
// and apps/v1 kinds, plus any registered with Server.Register). The Go API
// (Create, Update, Patch, Delete, Get, List) writes exactly as HTTP does.
// Faults are injected with methods (FailNext, DropWatches, CutWatches,
// StallWatches, Compact, Restart, …) or the /fake/ admin endpoints; each is
// logged and counted in Stats. Those of real clusters' worst days are in
// fault_*.go: Restore (etcd restored from a backup: resourceVersions go
// back), CompactBetweenPages (continue tokens expire mid-list),
// PutUnchecked (an object no client type expects), CutStreamingLists (a
// streaming list ends before its bookmark); FailNext with Count Forever and
// AsEvent answers every watch with an ERROR event (410 behind a load
// balancer) while lists succeed. ClearFaults makes the server healthy again.
//
// kubectl works against it for everyday commands: get (a meta.k8s.io/v1
// Table with kube-apiserver's columns for pods, configmaps, secrets,
// namespaces and deployments, Name and Age for other kinds), get -w,
// create -f, apply (client-side and --server-side), label, annotate, delete,
// run, and get --raw /healthz, /livez or /readyz. The fake serves JSON only:
// kubectl create configmap|secret|namespace|deployment send protobuf bodies
// and get 415 UnsupportedMediaType, which kubectl reports without retrying
// (client-go falls back to JSON after a 415 for CBOR only); create -f and
// apply -f send JSON and work.
//
// Invariants:
//  1. One global resourceVersion counter; every committed write increments it
//     by one and appends one event to the history, under one lock. (Two
//     faults break this on purpose: Restore takes it back, and
//     CompactBetweenPages may skip one, as a write to another key would.)
//  2. A watch is registered and its start (initial state or replayed
//     history) collected under that same lock, so no event is lost or
//     duplicated between the two.
//  3. Events are encoded once at commit and shared by every watcher that
//     sees them unchanged; a watcher never blocks a writer: a full buffer
//     ends that watch (the client re-watches).
//  4. Every page of one paginated list comes from the snapshot at the first
//     page's resourceVersion, rebuilt from the history; once the history is
//     compacted past it, the continue token gets 410 Expired. A snapshot is
//     sorted once and cached (a few, most recently used), so a page costs a
//     binary search and its own items, not the table.
//  5. Stored objects are immutable; lists, watches and history share them.
//  6. Lists omit kind and apiVersion on items; watch events carry them.
//  7. Replies are copied from the stored bytes, never re-encoded: list pages
//     through a pooled buffer with the length known up front, initial watch
//     events in batches of about 64 KiB per write and flush (one gzip member
//     per event when the stream is gzipped).
package fakeapiserver
