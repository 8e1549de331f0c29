package fakeapiserver_test

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/meta"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var (
	podsGVR = meta.GVR{Version: "v1", Resource: "pods"}
	cmGVR   = meta.GVR{Version: "v1", Resource: "configmaps"}
)

// call does one raw HTTP request and returns the code and decoded body.
func call(t *testing.T, method, url, contentType, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m), "body: %s", b)
	return resp.StatusCode, m
}

func get(t *testing.T, url string) (int, map[string]any) { return call(t, "GET", url, "", "") }

func pod(name string, labels map[string]string) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": name, "namespace": "default", "labels": labels},
		"spec":     map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}}}
}

func mustCreate(t *testing.T, srv *fakeapiserver.Server, gvr meta.GVR, obj any) string {
	t.Helper()
	r, err := srv.Create(gvr, obj)
	require.NoError(t, err)
	return r.ResourceVersion
}

// watchStream reads a chunked watch line by line.
type watchStream struct {
	t    *testing.T
	resp *http.Response
	sc   *bufio.Scanner
}

func openWatch(t *testing.T, url string, hdr map[string]string) *watchStream {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	require.NoError(t, err)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	return &watchStream{t: t, resp: resp, sc: sc}
}

type wireEvent struct {
	Type   string         `json:"type"`
	Object map[string]any `json:"object"`
}

func (w *watchStream) next() (wireEvent, bool) {
	w.t.Helper()
	if !w.sc.Scan() {
		return wireEvent{}, false
	}
	var e wireEvent
	require.NoError(w.t, json.Unmarshal(bytes.TrimSpace(w.sc.Bytes()), &e), "frame %q", w.sc.Text())
	return e, true
}

func (w *watchStream) mustNext() wireEvent {
	w.t.Helper()
	e, ok := w.next()
	require.True(w.t, ok, "stream ended: %v", w.sc.Err())
	return e
}

func nameOf(e wireEvent) string {
	md, _ := e.Object["metadata"].(map[string]any)
	n, _ := md["name"].(string)
	return n
}

func rvOf(obj map[string]any) string {
	md, _ := obj["metadata"].(map[string]any)
	n, _ := md["resourceVersion"].(string)
	return n
}

const shortWait = 5 * time.Second
