package observe

// FailureReason classifies why the initial sync has not completed.
type FailureReason uint8

// The failure reasons. Unauthorized, Forbidden, ResourceNotFound,
// Misconfigured, BadRequest and TLS do not go away by retrying alone;
// Options.Sync.FailFast stops the informer on them.
const (
	FailureUnauthorized     FailureReason = iota + 1 // 401: credentials missing or rejected
	FailureForbidden                                 // 403: RBAC denies list or watch
	FailureResourceNotFound                          // 404: the resource type is not served (CRD missing?)
	FailureRepeatedGone                              // 410 again and again: history compacts faster than we list
	FailureUnreachable                               // no answer: DNS, refused, reset, timeout
	FailureServer                                    // 429 or 5xx, or anything else the server said
	FailureOther                                     // the server's answers do not add up (no resourceVersion, a looping continue token, a watch closed at once)
	// FailureUndecodable: an object the server holds is valid JSON that
	// does not fit the informer's type (a field declared int32 where the
	// server sends a string, say); the error names it. The LIST fails on
	// it until it is fixed or deleted, unless Options.Decode.SkipUndecodable.
	FailureUndecodable
	FailureMisconfigured // the client is set up wrong for the server: http:// to an HTTPS port, or https:// to an HTTP one
	// FailureBadRequest: the server rejected the informer's own request as
	// invalid (400 Bad Request), e.g. a field selector on a field the
	// resource does not support; the Status message names what it
	// rejected. Fix the request (the informer's selectors): retrying sends it
	// again unchanged.
	FailureBadRequest
	// FailureMalformed: a reply body that is not a list or a watch stream
	// at all (bad JSON or protobuf, a missing envelope, an unknown event
	// type, an object over the size limit, a protobuf kind the schema
	// table lacks): the server answered, with something this client cannot
	// read. The error names the event or item and the byte.
	FailureMalformed
	// FailureTruncated: a reply body that ended inside an item, an event
	// or a frame: the server answered and the connection was cut (or a
	// proxy gave up) before the body was whole.
	FailureTruncated
	// FailureStalled: the server answered, then its reply stopped
	// delivering: no object of a LIST page within Options.Sync.StallTimeout,
	// no event of a streaming list within InitialEventsTimeout, or a watch
	// silent for Watch.IdleTimeout on a server that sends bookmarks. The
	// reply was abandoned and is retried after a backoff.
	FailureStalled
	// FailureTLS: the TLS handshake failed although the server answered:
	// the client refused its certificate (unknown authority, another host
	// name, expired) or it refused the client's (apiclient.ErrTLS).
	FailureTLS
)

var failureNames = [...]string{
	FailureUnauthorized: "unauthorized", FailureForbidden: "forbidden",
	FailureResourceNotFound: "resource not found", FailureRepeatedGone: "repeated 410 Gone",
	FailureUnreachable: "server unreachable", FailureServer: "server error", FailureOther: "other",
	FailureUndecodable:   "object does not fit the type",
	FailureMisconfigured: "client misconfigured", FailureBadRequest: "bad request",
	FailureMalformed: "malformed reply", FailureTruncated: "reply cut short",
	FailureStalled: "reply stalled", FailureTLS: "TLS handshake failed",
}

// String returns the reason in words, e.g. "forbidden".
func (r FailureReason) String() string {
	if int(r) < len(failureNames) && failureNames[r] != "" {
		return failureNames[r]
	}
	return "failure(?)"
}

// RelistCause says why the reflector lists (again).
type RelistCause uint8

// The causes of a relist.
const (
	CauseInitial           RelistCause = iota + 1 // the first sync
	CauseWatchGone                                // a WATCH got 410: relist at the last resourceVersion
	CauseListGone                                 // a LIST at a resourceVersion got 410: consistent relist
	CauseTooLargeRV                               // 504 ResourceVersionTooLarge: consistent relist after the hint
	CauseContinueExpired                          // a continue token expired mid-list: one unpaginated list
	CauseStreamingFallback                        // the streaming list was rejected, cut short or timed out
	CauseListError                                // a LIST failed otherwise: retry it after backoff
	CauseWatchError                               // a WATCH failed with an error that needs a fresh list (ERROR event, undecodable event, very short watch)
)

// CauseSnapshotExpired: the watch from a snapshot's resourceVersion got
// 410; the relist reconciles the cache loaded from the snapshot.
const CauseSnapshotExpired = CauseWatchError + 1

// More causes: a relist that is planned, not a recovery.
const (
	// CauseReshard: Shard.Set moved the shard; the relist brings the new
	// shard's objects (not a failure: no backoff, no WatchErrorHandler).
	CauseReshard = CauseSnapshotExpired + 1 + iota
	// CauseSnapshotIncomplete: the snapshot loaded was saved while a list
	// skipped undecodable objects (Options.Decode.SkipUndecodable); the relist
	// asks for them again instead of resuming a watch that never would.
	CauseSnapshotIncomplete
	// CauseAudit: the cache audit (Options.Audit with Repair) found the
	// cache different from the server; the relist repairs it.
	CauseAudit
)

var causeNames = [...]string{
	CauseInitial: "initial", CauseWatchGone: "watch-gone", CauseListGone: "list-gone",
	CauseTooLargeRV: "too-large-rv", CauseContinueExpired: "continue-expired",
	CauseStreamingFallback: "streaming-fallback", CauseListError: "list-error",
	CauseWatchError: "watch-error", CauseSnapshotExpired: "snapshot-expired",
	CauseReshard: "reshard", CauseSnapshotIncomplete: "snapshot-incomplete", CauseAudit: "audit",
}

// String returns the cause's short name, e.g. "watch-gone".
func (c RelistCause) String() string {
	if int(c) < len(causeNames) && causeNames[c] != "" {
		return causeNames[c]
	}
	return "cause(?)"
}
