package informer_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
)

// TestASchemeOrTLSMismatchIsNotUnreachable (issue 31 item 10): an https://
// URL pointed at the plain-HTTP fake, and the TLS fake without its CA: the
// server answered both times, so the failure is not "server unreachable",
// which sends the operator to check the network, but what does not match,
// and FailFast stops at once on it (retrying cannot fix either).
func TestASchemeOrTLSMismatchIsNotUnreachable(t *testing.T) {
	plain := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	withTLS := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet(), TLS: true})
	for _, tc := range []struct {
		name   string
		cfg    *apiclient.Config
		reason observe.FailureReason
		is     error
	}{
		{"https to plain http", &apiclient.Config{Host: strings.Replace(plain.URL(), "http://", "https://", 1)},
			observe.FailureMisconfigured, apiclient.ErrHTTPSToHTTP},
		{"a certificate the client refuses", &apiclient.Config{Host: withTLS.URL()}, // no CAData
			observe.FailureTLS, apiclient.ErrTLS},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := apiclient.New(tc.cfg)
			require.NoError(t, err)
			inf := informer.New[configMap](c, cmRef, informer.Options[*configMap]{Sync: informer.SyncOptions{FailFast: true}, Observe: informer.ObserveOptions{Logger: quiet()}})
			ctx, cancel := context.WithTimeout(t.Context(), wait)
			defer cancel()
			err = inf.Run(ctx)
			var se *informer.SyncError
			require.ErrorAs(t, err, &se)
			require.Equal(t, tc.reason, se.Reason, "%v", err)
			require.ErrorIs(t, err, tc.is)
			require.NotContains(t, err.Error(), "unreachable")
			require.NoError(t, ctx.Err(), "it stopped at the first attempt, not at the deadline")
		})
	}
}
