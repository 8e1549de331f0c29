package fakeapiserver_test

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/internal/testutil"
	"github.com/zerokube/zerokube/kubeproto"
	"github.com/zerokube/zerokube/meta"
)

// raw does one request and returns the code, Content-Type and body.
func raw(t *testing.T, method, url string, hdr map[string]string, body []byte) (int, string, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	require.NoError(t, err)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header.Get("Content-Type"), b
}

var asProtobuf = map[string]string{"Accept": kubeproto.ContentType + ", application/json"}

func TestGetsListsAndErrorsAnswerProtobufForBuiltInKinds(t *testing.T) {
	srv := fakeapiservertest.Start(t)
	mustCreate(t, srv, podsGVR, pod("a", map[string]string{"app": "x"}))
	// (pod("b", nil) would store "labels":{}, which kube-apiserver never
	// writes and protobuf cannot tell from no labels.)
	mustCreate(t, srv, podsGVR, pod("b", map[string]string{"app": "y"}))
	for _, path := range []string{
		"/api/v1/namespaces/default/pods/a",
		"/api/v1/namespaces/default/pods",
		"/api/v1/namespaces/default/pods?limit=1",
		"/api/v1/namespaces/default/configmaps", // empty: items [] in JSON, none in protobuf
		"/api/v1/namespaces/default/pods/nope",  // a Status
		"/api/v1/namespaces/default/pods?limit=abc",
	} {
		t.Run(path, func(t *testing.T) {
			jcode, _, js := raw(t, "GET", srv.URL()+path, nil, nil)
			pcode, ct, pb := raw(t, "GET", srv.URL()+path, asProtobuf, nil)
			require.Equal(t, jcode, pcode)
			require.Equal(t, kubeproto.ContentType, ct)
			var want map[string]any
			require.NoError(t, json.Unmarshal(js, &want))
			assert.Equal(t, want, testutil.ProtoJSON(t, pb))
		})
	}
}

func TestCustomResourcesStayJSONAndRefuseProtobufOnly(t *testing.T) {
	srv := fakeapiservertest.Start(t)
	widgets := meta.GVR{Group: "example.com", Version: "v1", Resource: "widgets"}
	require.NoError(t, srv.Register(fakeapiserver.Resource{GVR: widgets, Kind: "Widget", Namespaced: true}))
	u := srv.URL() + "/apis/example.com/v1/namespaces/default/widgets"
	code, ct, _ := raw(t, "GET", u, asProtobuf, nil)
	require.Equal(t, 200, code)
	require.Equal(t, "application/json", ct, "protobuf with a JSON fallback gets JSON")

	code, ct, b := raw(t, "GET", u, map[string]string{"Accept": kubeproto.ContentType}, nil)
	require.Equal(t, 406, code)
	require.Equal(t, kubeproto.ContentType, ct, "the 406 Status itself is protobuf, as kube-apiserver sends it")
	real, err := os.ReadFile("../kubeproto/testdata/real/status-notacceptable-cr.pb")
	require.NoError(t, err)
	assert.Equal(t, real, b, "byte for byte kube-apiserver v1.37.2's answer")

	code, _, _ = raw(t, "POST", u, map[string]string{"Content-Type": kubeproto.ContentType}, []byte("k8s\x00"))
	require.Equal(t, 415, code)
}

func TestProtobufBodiesAreDecodedForBuiltInKinds(t *testing.T) {
	srv := fakeapiservertest.Start(t)
	body, err := kubeproto.AppendObjectProto(nil, []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"k":"v"},"binaryData":{"b":"AAE="}}`))
	require.NoError(t, err)
	hdr := map[string]string{"Content-Type": kubeproto.ContentType, "Accept": kubeproto.ContentType}
	code, ct, b := raw(t, "POST", srv.URL()+"/api/v1/namespaces/default/configmaps", hdr, body)
	require.Equal(t, 201, code, string(b))
	require.Equal(t, kubeproto.ContentType, ct)
	got := testutil.ProtoJSON(t, b)
	assert.Equal(t, map[string]any{"k": "v"}, got["data"])
	assert.Equal(t, map[string]any{"b": "AAE="}, got["binaryData"])

	code, _, b = raw(t, "POST", srv.URL()+"/api/v1/namespaces/default/configmaps", hdr, []byte("k8s\x00\x0a\xff"))
	require.Equal(t, 400, code)
	assert.Contains(t, testutil.ProtoJSON(t, b)["message"], "kubeproto: decode envelope")
}

// readProtoWatch reads n events of a protobuf watch.
func readProtoWatch(t *testing.T, body io.Reader, n int) []map[string]any {
	t.Helper()
	fr := kubeproto.NewFrameReader(body, 0)
	var evs []map[string]any
	for len(evs) < n {
		msg, err := fr.Next()
		require.NoError(t, err)
		ev, err := kubeproto.DecodeWatchEvent(msg)
		require.NoError(t, err)
		obj := testutil.ProtoJSON(t, ev.Object)
		obj["_type"] = ev.Type
		evs = append(evs, obj)
	}
	return evs
}

func TestWatchesStreamProtobufFrames(t *testing.T) {
	srv := fakeapiservertest.Start(t)
	rv := mustCreate(t, srv, cmGVR, map[string]any{"metadata": map[string]any{"name": "a", "namespace": "default"}})
	u := srv.URL() + "/api/v1/namespaces/default/configmaps?watch=1&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan"
	req, err := http.NewRequest("GET", u, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", kubeproto.ContentType+", application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, kubeproto.WatchContentType, resp.Header.Get("Content-Type"))

	evs := readProtoWatch(t, resp.Body, 2)
	assert.Equal(t, "ADDED", evs[0]["_type"])
	assert.Equal(t, rv, evs[0]["metadata"].(map[string]any)["resourceVersion"])
	assert.Equal(t, "BOOKMARK", evs[1]["_type"])
	assert.Equal(t, "true", evs[1]["metadata"].(map[string]any)["annotations"].(map[string]any)["k8s.io/initial-events-end"])

	_, err = srv.Create(cmGVR, map[string]any{"metadata": map[string]any{"name": "b", "namespace": "default"}, "data": map[string]any{"x": "y"}})
	require.NoError(t, err)
	require.NoError(t, srv.Delete(cmGVR, "default", "a"))
	evs = readProtoWatch(t, resp.Body, 2)
	assert.Equal(t, []any{"ADDED", "DELETED"}, []any{evs[0]["_type"], evs[1]["_type"]})
	assert.Equal(t, map[string]any{"x": "y"}, evs[0]["data"])
	assert.Equal(t, "ConfigMap", evs[1]["kind"])
}

func TestAWatchTooOldEndsWithAProtobufErrorEvent(t *testing.T) {
	srv := fakeapiservertest.Start(t)
	mustCreate(t, srv, cmGVR, map[string]any{"metadata": map[string]any{"name": "a", "namespace": "default"}})
	srv.Compact(0)
	req, err := http.NewRequest("GET", srv.URL()+"/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=1", nil)
	require.NoError(t, err)
	req.Header.Set("Accept", kubeproto.ContentType)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	ev := readProtoWatch(t, resp.Body, 1)[0]
	assert.Equal(t, "ERROR", ev["_type"])
	assert.Equal(t, "Status", ev["kind"])
	assert.Equal(t, float64(410), ev["code"])
	assert.True(t, strings.HasPrefix(ev["message"].(string), "too old resource version"), ev["message"])
}
