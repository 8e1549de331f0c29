// Package fakeapiserver is an in-memory Kubernetes API server that speaks the
// real wire protocol: kubectl, client-go and zerokube's own apiclient work
// against it unchanged. It is what zerokube's informer is tested against and
// what the demo runs on.
//
// It sits at the far end of the data path
//
//	fakeapiserver ══HTTP══▶ apiclient ─▶ watchstream ─▶ informer
//
// and knows nothing of the informer or of apiclient. Inside, the data flows
// through two layers, as in kube-apiserver:
//
//	HTTP front ─────────────────────▶ internal/storage.Store
//	(http.go, list.go, watch.go,       (objects, resourceVersions,
//	 write.go, patch.go: parse and      history, watchers: its own lock,
//	 write the wire format;             no HTTP)
//	 strategy.go: what a write makes)
//
// Server is an http.Handler: it mounts in httptest or any mux, or serves
// on its own listener with Start (which returns once listening). In a test,
// package fakeapiservertest starts one in a line and gives an
// apiclient.Config for it:
//
//	srv := fakeapiservertest.Start(t) // closed by t.Cleanup
//	cfg := fakeapiservertest.ClientConfig(srv)
//
// cmd/fakeapiserver runs it as a process.
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
// Invariants (the store's own are in package storage):
//  1. Every write goes through the strategy, then one Store call: the
//     strategy decides what the object becomes (metadata the server owns,
//     generation, status, defaults), the store when it is written.
//  2. A write that changes nothing is not written (same resourceVersion,
//     no event); a pod's deletion is two writes (MODIFIED with
//     deletionTimestamp, then DELETED); removing the last finalizer of a
//     deleting object is one write, the deletion.
//  3. Status is written only through /status on kinds that have it, and
//     /status writes nothing else. Every write records field ownership in
//     metadata.managedFields (managed.go); pods are defaulted and start
//     Pending with their QoS class (pods.go), as kube-apiserver does.
//  4. Lists omit kind and apiVersion on items; watch events carry them. A
//     BOOKMARK's object is the kind's empty object as kube-apiserver
//     encodes it, only metadata.resourceVersion (and the initial-events-end
//     annotation) set: a pod's has "spec":{"containers":null},"status":{},
//     a custom resource's kind, apiVersion and metadata alone
//     (internal/storage/bookmark.go).
//  5. Replies are copied from the stored bytes, never re-encoded: list pages
//     through a pooled buffer with the length known up front, initial watch
//     events in batches of about 64 KiB per write and flush (one gzip member
//     per event when the stream is gzipped).
//  6. The server logs only to Options.Logger.
package fakeapiserver
