package informer

import (
	"errors"
	"fmt"
	"time"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

// permanent reports whether retrying alone is unlikely to fix the failure.
func permanent(r observe.FailureReason) bool {
	return r == observe.FailureUnauthorized || r == observe.FailureForbidden || r == observe.FailureResourceNotFound ||
		r == observe.FailureMisconfigured || r == observe.FailureBadRequest || r == observe.FailureTLS
}

// SyncError says why an informer is failing: why its initial sync has not
// completed (yet), which WaitForSync returns wrapped with the context's
// cause (errors.As finds it), or, in Health, why a synced informer is
// failing now.
type SyncError struct {
	Reason observe.FailureReason
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

// goneLimit is how many 410s (or 504 ResourceVersionTooLarge) since a
// watch last worked make a repeated-Gone failure: the relists they ask
// for do not bring a watch that works.
const goneLimit = 3

// classify maps a list or watch error to a observe.FailureReason. goneStreak counts
// the 410s and 504 ResourceVersionTooLarge since a watch last worked,
// this one included. A reply body that could not be
// read is classified by its watchstream.Problem, whichever wire and verb
// it came by, so the same fault gets the same reason everywhere.
func classify(err error, goneStreak int) observe.FailureReason {
	var se *meta.StatusError
	switch {
	// A server that answered, but whose answer could not be used, first:
	// each would otherwise pass for no answer at all ("unreachable"). A
	// reply that stopped is Stalled whichever watchdog caught it (there
	// is one per reply, in watchstream) and whatever the read under it
	// said as the watchdog closed it.
	case watchstream.ProblemOf(err) == watchstream.Stalled:
		return observe.FailureStalled
	case errors.Is(err, apiclient.ErrTLS):
		return observe.FailureTLS
	case errors.Is(err, apiclient.ErrHTTPToHTTPS), errors.Is(err, apiclient.ErrHTTPSToHTTP):
		return observe.FailureMisconfigured
	case meta.IsUnauthorized(err):
		return observe.FailureUnauthorized
	case meta.IsForbidden(err):
		return observe.FailureForbidden
	case meta.IsNotFound(err):
		return observe.FailureResourceNotFound
	case meta.IsBadRequest(err) && !errors.Is(err, errStreamingRejected):
		return observe.FailureBadRequest
	case relistNow(err) && goneStreak >= goneLimit:
		return observe.FailureRepeatedGone
	case errors.As(err, &se):
		return observe.FailureServer
	case errors.Is(err, errMissingRV), errors.Is(err, errShortWatch), errors.Is(err, errContinueLoop):
		return observe.FailureOther
	}
	// A body the server sent that could not be read is its Problem, even
	// where the error also wraps a deadline (a read the watchdog or a
	// context ended): the server answered.
	switch watchstream.ProblemOf(err) {
	case watchstream.Undecodable:
		return observe.FailureUndecodable
	case watchstream.Truncated:
		return observe.FailureTruncated
	case watchstream.Malformed, watchstream.UnknownKind, watchstream.TooLarge:
		return observe.FailureMalformed
	}
	return observe.FailureUnreachable
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
	// errStreamingUnfit wraps an object a streaming list brought that does
	// not fit the type, under SkipUndecodable: LIST, which skips it, from
	// then on.
	errStreamingUnfit = errors.New("informer: an object does not fit the type; using LIST, which skips it")
	// errIdle ends a watch that heard nothing for Options.Watch.IdleTimeout
	// on a server that has shown no bookmark cadence: a quiet resource,
	// reopened, no failure.
	errIdle = errors.New("informer: watch idle, reopening")
)

// isDecodeError reports a reply the server sent that could not be read
// whole into objects (any watchstream.Problem). Retrying may not help, and
// calling it "unreachable" would send the operator to check the network
// instead of the data.
func isDecodeError(err error) bool { return watchstream.ProblemOf(err) != 0 }
