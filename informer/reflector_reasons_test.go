package informer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/watchstream"
)

// TestAnswersThatCannotBeUsedAreNotUnreachable: a reply that stalled, a
// scheme mismatch and a refused TLS handshake each have their reason, even
// where they wrap what would otherwise read as no answer (a deadline, a
// transport error); FailFast stops on the mismatches, not on a stall.
func TestAnswersThatCannotBeUsedAreNotUnreachable(t *testing.T) {
	for _, tc := range []struct {
		err       error
		want      observe.FailureReason
		permanent bool
	}{
		{fmt.Errorf("informer: list: %w", &watchstream.DecodeError{Body: watchstream.BodyList, Problem: watchstream.Stalled,
			Err: fmt.Errorf("no item for 30s (%w)", context.Canceled)}), observe.FailureStalled, false},
		{fmt.Errorf("informer: watch: %w", &watchstream.DecodeError{Problem: watchstream.Stalled,
			Err: fmt.Errorf("no event for 3m0s (%w)", context.DeadlineExceeded)}), observe.FailureStalled, false},
		{fmt.Errorf("apiclient: GET /api: %w: %w", apiclient.ErrHTTPSToHTTP, errors.New("http: server gave HTTP response to HTTPS client")),
			observe.FailureMisconfigured, true},
		{fmt.Errorf("apiclient: GET /api: %w: %w", apiclient.ErrTLS, errors.New("x509: certificate signed by unknown authority")),
			observe.FailureTLS, true},
		// Each Problem of a body is its reason, wrapping what would
		// otherwise read as no answer.
		{fmt.Errorf("informer: watch: %w", &watchstream.DecodeError{Problem: watchstream.TooLarge,
			Err: fmt.Errorf("an object larger than 16 bytes: %w (%w)", watchstream.ErrTooLarge, context.DeadlineExceeded)}), observe.FailureMalformed, false},
		{fmt.Errorf("informer: list: %w", &watchstream.DecodeError{Problem: watchstream.Truncated, Err: io.ErrUnexpectedEOF}), observe.FailureTruncated, false},
		{fmt.Errorf("informer: list: %w", &watchstream.DecodeError{Problem: watchstream.Undecodable, Err: errors.New("labels")}), observe.FailureUndecodable, false},
		{fmt.Errorf("informer: list: %w", &watchstream.DecodeError{Problem: watchstream.UnknownKind, Err: errors.New("PodFromTheFuture")}), observe.FailureMalformed, false},
	} {
		got := classify(tc.err, 0)
		require.Equal(t, tc.want, got, "%v", tc.err)
		require.Equal(t, tc.permanent, permanent(got), "%v", tc.err)
	}
	require.Equal(t, "reply stalled", observe.FailureStalled.String())
	require.Equal(t, "TLS handshake failed", observe.FailureTLS.String())
}
