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
//	(chain.go: the steps a request     (objects, resourceVersions,
//	 goes through, in order;            history, watchers: its own lock,
//	 http.go, list.go, watch.go,        no HTTP)
//	 write.go, patch.go: parse and
//	 write the wire format;
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
// without a token, one endpoint per row of admin.go's fault table
// (adminFaults: a fault is a row there beside the method that injects it):
//
//	POST /fake/fail?code=503&count=2&verb=watch&path=/pods&retryAfter=2s
//	POST /fake/drop-watches | /fake/cut-watch | /fake/malformed-event | /fake/stall | /fake/restart
//	POST /fake/drop-event (the next event of each open watch silently not sent)
//	POST /fake/latency?d=200ms | /fake/compact?rv=123 | /fake/bookmarks?enabled=false
//	POST /fake/restore?rv=123 | /fake/compact-between-pages?count=-1 | /fake/cut-streaming-list?count=1
//	POST /fake/put-unchecked?version=v1&resource=configmaps (the object is the body) | /fake/clear-faults
//	GET  /fake/stats
//
// Each POST answers {"affected": n}: the watches dropped, cut, stalled or
// sent the malformed event, the history events compact dropped, the
// connections restart dropped (besides the caller's own, closed right after
// the answer; on a server mounted in another http.Server, which tracks no
// connections, the watches it ended); 0 for the faults armed for later
// requests.
//
// Tests that need a race in a given order use the hooks of Options, each
// documented by what it does when non-nil (the zero Options behaves as
// kube-apiserver): Intercept sees or answers every API request, Stored
// runs after a write is stored and before it is answered.
//
// A client that asks for objects' metadata only (Accept
// ...;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1, PartialObjectMetadata
// for gets and watches) gets them as kube-apiserver makes them
// (partial.go), in JSON or protobuf.
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
// run, create configmap|secret|namespace|deployment|service|job (which send
// protobuf bodies: see invariant 10), and get --raw /healthz, /livez or
// /readyz.
//
// A namespace lives as on a cluster: a DELETE marks it Terminating (the
// answer, and one MODIFIED), creates in it get 403 with the
// NamespaceTerminating cause, and the fake then does the namespace
// controller's work (namespaces.go): it deletes the pods, then the rest,
// each with its usual events, writes the deletion conditions, and removes
// the kubernetes finalizer, which deletes the namespace. default,
// kube-system and kube-public may not be deleted. Server-side apply refuses
// to change a field another manager owns (409, one FieldManagerConflict
// cause per field, conflicts.go) unless force=true, and removes the fields
// its manager applied before, no longer applies and nobody else owns
// (prune.go).
//
// # What still differs from a real cluster
//
// The fake is one process standing for kube-apiserver, etcd and the parts
// of a cluster a client sees through them. Package conformance checks it
// against a real kube-apiserver v1.37.2, and its knownDifferences lists the
// wire-level differences left there. Beyond those:
//
//   - No kubelet. Pods never run: their status stays as written (Pending
//     with its QoS class on create) unless a client writes /status, or
//     Options.SimulateStatus's loop marks them Running and ready
//     (statusloop.go; it starts nothing). A
//     graceful delete of a pod on a node (spec.nodeName set) is a MODIFIED
//     with deletionTimestamp and its terminationGracePeriodSeconds, then at
//     once the DELETED, as if a kubelet confirmed at once; on a cluster the
//     pod stays Terminating until its kubelet does, up to the grace period.
//     DeleteOptions' gracePeriodSeconds is not read.
//   - No controllers but the namespace controller, and no scheduler:
//     Deployments make no ReplicaSets nor ReplicaSets pods, pods get no
//     node, no garbage collector follows ownerReferences (deleting an owner
//     leaves its dependents; propagationPolicy is not read, so no orphan or
//     foregroundDeletion finalizer is set), no service account or token
//     controller, no Endpoints, no Events written by the system. With
//     Options.SimulateStatus, Deployments and ReplicaSets get the status
//     their controllers write once every replica is available.
//   - The namespace controller's work is done inside the DELETE request
//     (before the answer is written, though the answer is the Terminating
//     namespace at its first resourceVersion), in a fixed order (pods, then
//     resources by group, version and name; the controller's is a map's),
//     one delete per object (the controller uses deletecollection where it
//     can: the same events). When a finalizer holds content, the fake
//     finishes as soon as the last object goes, where the controller retries
//     after its estimate. The finalize subresource is not served.
//   - Admission is what the fake knows: namespace lifecycle, and for pods
//     Priority and DefaultTolerationSeconds. No ServiceAccount plugin (pods
//     get no serviceAccountName and no kube-api-access volume), no
//     ResourceQuota, LimitRanger, PodSecurity or webhooks.
//   - No validation beyond what a write needs (a name, and kind, apiVersion
//     and namespace agreeing with the URL): invalid specs are stored, and
//     fields kube-apiserver keeps immutable (most of a pod's spec, a
//     Deployment's selector) can be changed.
//   - No schemas but those made from kubeproto's table (openapi.go: field
//     names and types for OpenAPI v3, no descriptions, no validation).
//     Defaults are those of pods, pod templates, Deployments,
//     StatefulSets, Jobs, Secrets, Services (with a cluster IP counted
//     from 10.96.0.10) and namespaces (defaults.go); strategic
//     merge patches know the merge keys and patch strategies of the
//     built-in kinds (strategic_schema.go) and apply every directive
//     ($patch, $setElementOrder, $deleteFromPrimitiveList, $retainKeys) as
//     apimachinery does, refusing with a 400 any "$" key they would
//     otherwise store; a custom resource gets 415, as there;
//     server-side apply merges the applied configuration as a strategic
//     merge patch (list items are matched by the first of name, type, ip,
//     key or containerPort, not by the schema's keys), and which fields are
//     maps (owning themselves in managedFields) is guessed from their
//     names.
//   - Built-in resources are the core/v1 namespaces, pods, configmaps,
//     secrets, services, nodes and events, apps/v1 deployments, replicasets
//     and statefulsets, batch/v1 jobs, coordination.k8s.io/v1 leases,
//     apiextensions.k8s.io/v1 customresourcedefinitions and the
//     authorization.k8s.io/v1 self-subject access and rules reviews
//     (reviews.go); others are added
//     with Register or by creating a CustomResourceDefinition (crd.go:
//     served at once, status written with the create and the cleanup on
//     delete done at once, no schema checks, no conversion between
//     versions, renames by an update not seen). Subresources are status
//     and, for deployments, replica sets and stateful sets, scale
//     (scale.go): no log, exec, attach, port-forward, eviction, binding or
//     finalize.
//   - JSON and, for built-in kinds, protobuf (invariant 10); CBOR is not
//     understood, YAML is answered with JSON; dryRun=All is served
//     (dryrun.go); OpenAPI is v3 only, without descriptions.
//   - Bearer tokens only (Options.Tokens), each allowed resources and verbs,
//     which access reviews report (all-allowing without tokens); no RBAC, client certificates, impersonation, API priority and
//     fairness or Warning headers.
//   - The history is kept by count and age (Options.HistoryEvents,
//     HistoryAge) and compacted on demand (Compact), not by etcd's periodic
//     compaction.
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
//     events in batches of about 64 KiB per write and flush.
//  6. The server logs only to Options.Logger.
//  7. A namespace's deletion ends with nothing left in it: every object is
//     deleted with its own events before the namespace's DELETED, and none
//     can be created in it meanwhile
//     [TestDeletingANamespaceEmptiesItThenRemovesIt,
//     TestContentHeldByAFinalizerKeepsTheNamespaceTerminating].
//  8. An apply never changes a field another manager owns unless forced;
//     the 409 names every such field and its manager
//     [TestApplyConflictsNameEachFieldAndManager].
//  9. Compression is kube-apiserver's (gzip.go): for a client whose
//     Accept-Encoding has the token "gzip", a reply (list, get, write,
//     Table) over 128 KiB is gzipped at level 1 with Vary: Accept-Encoding,
//     and a watch list (sendInitialEvents) is gzipped one member per flush,
//     each member's data sync-flushed so a plain gzip.Reader hands it over
//     at once [TestWatchListIsGzippedOneMemberPerFlush]; other watches and
//     smaller replies never are. Gzip writers are pooled.
//  10. Protobuf is kube-apiserver's (protobuf.go, with package kubeproto):
//     for a kind in kubeproto's table, Accept:
//     application/vnd.kubernetes.protobuf gets gets, lists, write answers
//     and Status errors as the k8s\x00 envelope, and watches as
//     length-prefixed WatchEvent frames (bookmarks and initial-events-end
//     included; over websocket, one bare WatchEvent per binary message),
//     transcoded from the stored JSON
//     [TestGetsListsAndErrorsAnswerProtobufForBuiltInKinds,
//     TestWatchesStreamProtobufFrames]; protobuf request bodies are decoded
//     [TestKubectlCreateSubcommandsWorkOverProtobuf]. A custom resource
//     stays JSON: with a JSON fallback in Accept it gets JSON, asked for as
//     protobuf only it gets 406 NotAcceptable (as protobuf, byte for byte
//     kube-apiserver's), and a protobuf body gets 415
//     [TestCustomResourcesStayJSONAndRefuseProtobufOnly].
package fakeapiserver
