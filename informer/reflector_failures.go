package informer

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

// FailureReason classifies why the initial sync has not completed.
type FailureReason uint8

// The failure reasons. Unauthorized, Forbidden, ResourceNotFound,
// Misconfigured, BadRequest and TLS do not go away by retrying alone;
// Options.FailFast stops the informer on them.
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
	// it until it is fixed or deleted, unless Options.SkipUndecodable.
	FailureUndecodable
	FailureMisconfigured // the client is set up wrong for the server: http:// to an HTTPS port, or https:// to an HTTP one
	// FailureBadRequest: the server rejected the informer's own request as
	// invalid (400 Bad Request), e.g. a field selector on a field the
	// resource does not support; the Status message names what it
	// rejected. Fix the request (Options.Selectors): retrying sends it
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
	// delivering: no object of a LIST page within Options.StallTimeout,
	// no event of a streaming list within InitialEventsTimeout, or a watch
	// silent for WatchIdleTimeout on a server that sends bookmarks. The
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

// permanent reports whether retrying alone is unlikely to fix the failure.
func (r FailureReason) permanent() bool {
	return r == FailureUnauthorized || r == FailureForbidden || r == FailureResourceNotFound ||
		r == FailureMisconfigured || r == FailureBadRequest || r == FailureTLS
}

// SyncError says why an informer is failing: why its initial sync has not
// completed (yet), which WaitForSync returns wrapped with the context's
// cause (errors.As finds it), or, in Health, why a synced informer is
// failing now.
type SyncError struct {
	Reason FailureReason
	// Attempts counts the consecutive failed LIST/WATCH attempts so far. A
	// list that works between two failures does not end the count: only a
	// watch that works does, or BackoffOptions.ResetAfter without a
	// failure.
	Attempts int
	// Since is when the first of those attempts failed.
	Since time.Time
	// Synced: the informer had synced before these failures, so its cache
	// is there, getting older.
	Synced bool
	// Err is the last failure.
	Err error
}

func (e *SyncError) Error() string {
	if e.Synced {
		return fmt.Sprintf("informer: failing since %s (%s, %d attempts): %v",
			e.Since.UTC().Format(time.RFC3339), e.Reason, e.Attempts, e.Err)
	}
	return fmt.Sprintf("informer: initial sync failing (%s, %d attempts): %v", e.Reason, e.Attempts, e.Err)
}

// Unwrap returns the last failure, for errors.Is and errors.As.
func (e *SyncError) Unwrap() error { return e.Err }

// isGone reports a 410. meta.IsGone wants the reason Gone or Expired (or
// none); a 410 with a reason it does not know, from a newer server or a
// proxy, still means the resourceVersion is gone, and retrying it as it is
// would fail forever.
func isGone(err error) bool { return meta.IsGone(err) || meta.Code(err) == 410 }

// goneLimit is how many 410s in a row make a repeated-Gone failure.
const goneLimit = 3

// classify maps a list or watch error to a FailureReason. goneStreak counts
// the 410s in a row including this one. A reply body that could not be
// read is classified by its watchstream.Problem, whichever wire and verb
// it came by, so the same fault gets the same reason everywhere.
func classify(err error, goneStreak int) FailureReason {
	var se *meta.StatusError
	switch {
	// A server that answered, but whose answer could not be used, first:
	// each would otherwise pass for no answer at all ("unreachable").
	case errors.Is(err, ErrStalled):
		return FailureStalled
	case errors.Is(err, apiclient.ErrTLS):
		return FailureTLS
	case errors.Is(err, apiclient.ErrHTTPToHTTPS), errors.Is(err, apiclient.ErrHTTPSToHTTP):
		return FailureMisconfigured
	case meta.IsUnauthorized(err):
		return FailureUnauthorized
	case meta.IsForbidden(err):
		return FailureForbidden
	case meta.IsNotFound(err):
		return FailureResourceNotFound
	case meta.IsBadRequest(err) && !errors.Is(err, errStreamingRejected):
		return FailureBadRequest
	case isGone(err) && goneStreak >= goneLimit:
		return FailureRepeatedGone
	case errors.As(err, &se):
		return FailureServer
	case errors.Is(err, errMissingRV), errors.Is(err, errShortWatch), errors.Is(err, errContinueLoop):
		return FailureOther
	case errors.Is(err, context.DeadlineExceeded):
		return FailureUnreachable
	}
	switch watchstream.ProblemOf(err) {
	case watchstream.Undecodable:
		return FailureUndecodable
	case watchstream.Truncated:
		return FailureTruncated
	case watchstream.Malformed, watchstream.UnknownKind, watchstream.TooLarge:
		return FailureMalformed
	}
	return FailureUnreachable
}

// isUndecodable reports an object that is well-formed but does not fit
// the type: a list item or a watch event's object.
func isUndecodable(err error) bool { return watchstream.ProblemOf(err) == watchstream.Undecodable }

var (
	errMissingRV  = errors.New("informer: the server's reply carried no resourceVersion")
	errShortWatch = errors.New("informer: watch closed within a second without any event")
	// errContinueLoop wraps apiclient's sentinel, so errors.Is(err,
	// apiclient.ErrContinueLoop) holds for the reflector's paging too.
	errContinueLoop   = fmt.Errorf("informer: the server repeated a continue token of the same list: %w", apiclient.ErrContinueLoop)
	errNoStreamingEnd = errors.New("informer: streaming list ended or timed out before its initial-events-end bookmark")
	// errStreamingRejected wraps the 400 (or 422, 405) of a server that
	// has no streaming lists: the informer falls back to LIST, and the 400
	// says nothing about the request otherwise.
	errStreamingRejected = errors.New("informer: the server rejected the streaming list; using LIST")
)

// isDecodeError reports a reply the server sent that could not be read
// whole into objects (any watchstream.Problem). Retrying may not help, and
// calling it "unreachable" would send the operator to check the network
// instead of the data.
func isDecodeError(err error) bool { return watchstream.ProblemOf(err) != 0 }
