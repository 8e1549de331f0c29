package fakeapiserver_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/meta"
)

var configMapsGVR = meta.GVR{Version: "v1", Resource: "configmaps"}

// rawGet sends a GET with the Accept-Encoding given (identity when empty),
// and header name/value pairs, so net/http neither asks for gzip nor
// inflates the reply on its own.
func rawGet(t *testing.T, u, acceptEncoding string, hdr ...string) (*http.Response, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), shortWait)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", u, nil)
	require.NoError(t, err)
	req.Header.Set("Accept-Encoding", acceptEncoding)
	if acceptEncoding == "" {
		req.Header.Set("Accept-Encoding", "identity")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, b
}

func inflate(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	require.NoError(t, err)
	out, err := io.ReadAll(zr)
	require.NoError(t, err)
	return out
}

// As kube-apiserver (responsewriters.deferredResponseWriter): a reply
// larger than 128 KiB is gzipped when the client's Accept-Encoding has the
// token "gzip", with Vary: Accept-Encoding; a smaller one, or one for a
// client that did not ask in those words, is sent as it is.
func TestRepliesOver128KiBAreGzippedForClientsThatAsk(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	list := srv.URL() + "/api/v1/namespaces/default/configmaps"
	for i := range 20 {
		mustCreate(t, srv, configMapsGVR, map[string]any{"metadata": map[string]any{"name": "c" + strconv.Itoa(i),
			"namespace": "default"}, "data": map[string]any{"k": strings.Repeat("x", 7<<10)}})
	}
	small, smallBody := rawGet(t, list+"?limit=2", "gzip")
	require.Empty(t, small.Header.Get("Content-Encoding"), "a small page is sent as it is")
	require.Empty(t, small.Header.Values("Vary"))
	require.Equal(t, strconv.Itoa(len(smallBody)), small.Header.Get("Content-Length"))

	plain, want := rawGet(t, list, "")
	require.Greater(t, len(want), 128<<10)
	require.Empty(t, plain.Header.Get("Content-Encoding"))
	for _, ae := range []string{"gzip", "deflate, gzip", " gzip ,br"} {
		resp, body := rawGet(t, list, ae)
		require.Equal(t, "gzip", resp.Header.Get("Content-Encoding"), "Accept-Encoding %q", ae)
		require.Equal(t, []string{"Accept-Encoding"}, resp.Header.Values("Vary"))
		require.Equal(t, "application/json", resp.Header.Get("Content-Type"))
		require.Equal(t, string(want), string(inflate(t, body)), "the same list, compressed")
	}
	for _, ae := range []string{"gzip;q=1.0", "x-gzip", "GZIP", "identity"} {
		resp, body := rawGet(t, list, ae)
		require.Empty(t, resp.Header.Get("Content-Encoding"), "Accept-Encoding %q", ae)
		require.Equal(t, string(want), string(body))
	}

	mustCreate(t, srv, configMapsGVR, map[string]any{"metadata": map[string]any{"name": "huge", "namespace": "default"},
		"data": map[string]any{"k": strings.Repeat("y", 140<<10)}})
	resp, body := rawGet(t, list+"/huge", "gzip")
	require.Equal(t, 200, resp.StatusCode)
	require.Equal(t, "gzip", resp.Header.Get("Content-Encoding"), "a GET of a large object too")
	require.Contains(t, string(inflate(t, body)), `"name":"huge"`)
}

// kubectl get asks for a Table: the Table built from a large list is what
// is measured against the threshold and compressed.
func TestTablesOver128KiBAreGzipped(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	for i := range 1500 {
		mustCreate(t, srv, configMapsGVR, map[string]any{"metadata": map[string]any{"name": "config-map-with-a-long-name-" + strconv.Itoa(i),
			"namespace": "default"}})
	}
	resp, b := rawGet(t, srv.URL()+"/api/v1/namespaces/default/configmaps", "gzip",
		"Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json")
	require.Equal(t, "gzip", resp.Header.Get("Content-Encoding"))
	table := inflate(t, b)
	require.Greater(t, len(table), 128<<10)
	require.Contains(t, string(table), `"kind":"Table"`)
}
