// Package apiclient is a hand-written Kubernetes REST client: configuration
// (kubeconfig, in-cluster, kubectl's search order), LIST and WATCH requests
// whose bodies it hands to watchstream (the one package that reads reply
// bodies: LIST pages item by item, watch events, objects), the simple verbs
// (GET, CREATE, UPDATE, PATCH, DELETE), and Status errors. It speaks HTTP
// and decodes nothing itself but Status bodies.
//
// It sits at the top of the data path
//
//	API server ─HTTP─▶ apiclient ─bytes─▶ watchstream ─events─▶ informer
//	                   (LIST pages, WATCH)             (reflector, fifo, cache)
//
// and knows nothing about informers or caches: it turns requests into typed
// objects and typed errors, and leaves policy (relists, watch backoff) to the
// informer.
//
// Objects are the caller's own types: any T whose pointer embeds
// meta.ObjectMeta (see package meta), or meta.Raw for every field. The
// generic functions take T and infer P = *T:
//
//	lm, err := apiclient.List[Pod](ctx, c, ref, apiclient.ListOptions{Limit: 500}, func(p *Pod) error { … })
//
// Invariants:
//  1. A list page is never held in memory: watchstream.DecodeList decodes
//     items one at a time from the response body and hands each to the
//     callback before the next is read. Items without kind/apiVersion get
//     them from the list ("PodList" gives "Pod"); "items": null is an empty
//     list. A body that cannot be read fails with a *watchstream.DecodeError
//     (its Problem says what went wrong), whichever the wire.
//  2. ListAll sends continue on pages 2 and later and drops resourceVersion
//     and resourceVersionMatch there, as kube-apiserver requires.
//  3. Every non-2xx reply becomes an error carrying a *meta.StatusError, so
//     meta.IsNotFound, meta.IsGone, … work on every error of this package. A
//     body that is not a Status keeps the reply's code and quotes a short
//     excerpt; a Retry-After header becomes StatusError.RetryAfter.
//  4. Reads (LIST, GET) are retried only when Options.Retry asks for it
//     (MaxAttempts > 1): then on 429, 5xx and dropped connections, with
//     capped exponential backoff and jitter, honouring Retry-After, until
//     the context ends. ListOptions.NoRetry turns it off for one list (the
//     informer does, owning recovery). Writes and watch opening are never
//     retried.
//  5. Config.Timeout bounds every call except watches, whose length is the
//     server's (WatchOptions.TimeoutSeconds).
//  6. TLS verification is on unless Config.TLS.Insecure. A bearer token is
//     never sent over plain http to a non-loopback host unless
//     Config.AllowInsecureBearerToken, and never appears in an error, a log
//     line, or a printed Config.
//  7. A token file is read again when its modification time or size
//     changes, at least every minute (as client-go), and after the server
//     answers 401, so rotated service-account tokens are picked up even when
//     the file's metadata did not change. A credential plugin (kubeconfig
//     exec) runs once per credential: again 30 s before its expiry, or after
//     the server answers 401. A request answered 401 is sent once more when
//     that gives other credentials (a 401 comes before the server does
//     anything, so writes too); never more than once.
//  8. A Client keeps no global state; it is safe for concurrent use.
//  9. Every wait and timeout the client runs itself reads Options.Clock
//     (the project's one clock, package clock): the waits between
//     retried reads, the rate limiter, the watch open timeout, the list
//     stall watchdog, an exec credential's renewal, and a watch stream's
//     idle watchdog. Only context deadlines (Config.Timeout) and the
//     transport's own header timeout are left to the real clock.
//     [TestTheRateLimiterWaitsOnTheClientsClock]
//  10. The writes an agent makes most (UpdateMetadata: labels and
//     annotations by merge patch; SetCondition: a status condition, read,
//     changed and written back with its resourceVersion; Apply: a
//     server-side apply of the user's partial type) retry conflicts as
//     client-go's retry.RetryOnConflict with retry.DefaultRetry does (5
//     tries, 10 ms apart), except a field-manager conflict, which is the
//     same on every try. Their errors are the client's usual ones.
//     [TestSetConditionReadsAgainAfterAConflict]
//  11. A read given a protodec.Decoder (ListOptions.Protobuf,
//     WatchOptions.Protobuf) asks for protobuf with JSON as the fallback
//     (AcceptProtobuf, as client-go's typed clients do) and decodes the
//     reply by its Content-Type, so a server or resource without protobuf
//     still works; a protobuf list is streamed item by item like a JSON
//     one (invariant 1), and an error reply in protobuf is a Status too.
//     [TestAProtobufListIsDecodedItemByItemIntoTheCallersType,
//     TestAJSONReplyToAProtobufRequestIsDecodedAsJSON,
//     TestAProtobufStatusReplyBecomesAStatusError]
//  12. A request for one object (Get, Create, Update, Patch, Delete and
//     the agent writes) through a Ref of a namespaced resource
//     (Ref.Scope, which discovery sets) that neither the Ref nor the
//     object gives a namespace is refused before it is sent, with
//     ErrNoNamespace: never the 404 kube-apiserver answers for such a
//     path, which reads as a deletion.
//     [TestAWriteBackThroughAnAllNamespacesRefNamesTheFixAndIsNoNotFound]
package apiclient
