package informer

import (
	"errors"

	"github.com/zerokube/zerokube/apiclient"
)

// answerReason classifies the failures of a server that answered but
// whose answer could not be used, which would otherwise pass for no
// answer at all ("unreachable"): a reply that stalled, a scheme or TLS
// mismatch. ok is false for every other error (classify decides).
func answerReason(err error) (FailureReason, bool) {
	switch {
	case errors.Is(err, ErrStalled):
		return FailureStalled, true
	case errors.Is(err, apiclient.ErrHTTPSToHTTP):
		return FailureMisconfigured, true
	case errors.Is(err, apiclient.ErrTLS):
		return FailureTLS, true
	}
	return 0, false
}
