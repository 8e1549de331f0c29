package apiclient_test

import (
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/apiclient/websocket"
	"github.com/zerokube/zerokube/meta"
)

// An https:// URL pointed at a plain-HTTP server, and a server certificate
// the client does not trust: the server answered both times, so the error
// says what does not match (ErrHTTPSToHTTP, ErrTLS) instead of passing for
// a server out of reach (issue 31 item 10), and keeps Go's error.
func TestASchemeOrTLSMismatchSaysSo(t *testing.T) {
	var reached atomic.Int32
	h := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached.Add(1) })
	plain := httptest.NewServer(h)
	defer plain.Close()
	tlsSrv := httptest.NewUnstartedServer(h)
	tlsSrv.Config.ErrorLog = log.New(io.Discard, "", 0) // it logs each refused handshake
	tlsSrv.StartTLS()
	defer tlsSrv.Close()
	ref := apiclient.Ref{GVR: meta.GVR{Version: "v1", Resource: "pods"}}
	for _, tc := range []struct {
		name, host string
		want       error
		not        error
		says       string
	}{
		{"https to plain http", "https://" + plain.Listener.Addr().String(), apiclient.ErrHTTPSToHTTP, apiclient.ErrTLS,
			"server gave HTTP response to HTTPS client"},
		{"a certificate the client refuses", tlsSrv.URL, apiclient.ErrTLS, apiclient.ErrHTTPSToHTTP,
			"certificate signed by unknown authority"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := apiclient.New(&apiclient.Config{Host: tc.host})
			require.NoError(t, err)
			_, err = apiclient.Get[meta.Raw](context.Background(), c, ref, "x")
			require.ErrorIs(t, err, tc.want)
			require.NotErrorIs(t, err, tc.not)
			require.ErrorContains(t, err, tc.says)
			require.Zero(t, meta.Code(err), "no Status: the request never got through")
			// A websocket watch dials on its own (gorilla's dialer): the
			// same mismatch must say the same.
			_, err = apiclient.Watch[meta.Raw](context.Background(), c, ref, apiclient.WatchOptions{Websocket: websocket.Dialer{}})
			require.ErrorIs(t, err, tc.want, "websocket")
			require.NotErrorIs(t, err, tc.not, "websocket")
		})
	}
	require.Zero(t, reached.Load())
}
