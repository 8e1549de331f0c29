package leaderelection_test

import (
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
)

// wait bounds every wait of these tests for something that happens in
// real time (an HTTP round trip); fake time is stepped, never waited.
const wait = 10 * time.Second

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

// newServer starts a fake API server for the test.
func newServer(t testing.TB) *fakeapiserver.Server {
	t.Helper()
	return fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
}

// newClient is a client of srv; rt, when set, wraps its transport (a
// candidate's own network, which a test can cut).
func newClient(t testing.TB, srv *fakeapiserver.Server, rt func(http.RoundTripper) http.RoundTripper) *apiclient.Client {
	t.Helper()
	var opts apiclient.Options
	if rt != nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		opts.Transport = rt(tr)
	}
	c, err := apiclient.NewWithOptions(fakeapiservertest.ClientConfig(srv), opts)
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	return c
}
