package fakeapiserver_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
)

// TestServerMountsInHTTPTest: Server is an http.Handler; closing it before
// the httptest server ends the watches that server's Close waits for.
func TestServerMountsInHTTPTest(t *testing.T) {
	srv := fakeapiserver.New(fakeapiserver.Options{Logger: quiet()})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Close()
	code, body := call(t, "POST", hs.URL+"/api/v1/namespaces/default/configmaps", "application/json",
		`{"metadata":{"name":"a"}}`)
	require.Equal(t, 201, code, body)
	w := openWatch(t, hs.URL+"/api/v1/namespaces/default/configmaps?watch=1", nil)
	require.Equal(t, "ADDED", w.mustNext().Type)
	ctx, cancel := context.WithTimeout(context.Background(), shortWait)
	defer cancel()
	require.NoError(t, srv.AwaitWatchers(ctx, 1))
	require.NoError(t, srv.Close())
	require.Equal(t, 0, srv.Stats().ActiveWatchers)
	code, _ = call(t, "GET", hs.URL+"/api/v1/namespaces/default/configmaps", "", "")
	require.Equal(t, 503, code, "a closed server refuses requests")
}
