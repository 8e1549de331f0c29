package fakeapiserver_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/internal/testutil"
	"github.com/zerokube/zerokube/kubeproto"
)

// Issue 38 item 4: a metadata-only watch that fails after 200 sends the
// failure's Status in its ERROR event, as kube-apiserver does
// (k8s.io/apiserver's transformObject passes a Status through), never the
// Status turned into a PartialObjectMetadata, whose metadata would be the
// Status's empty one: the client would lose the 410 and never relist.
// Chunked and websocket, JSON and protobuf (conformance
// partial/watch-error checks the chunked ones on kube-apiserver).
func TestAMetadataWatchSendsTheStatusOfItsErrorEvent(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	mustCreate(t, srv, cmGVR, map[string]any{"metadata": map[string]any{"name": "a", "namespace": "default"}})
	mustCreate(t, srv, cmGVR, map[string]any{"metadata": map[string]any{"name": "b", "namespace": "default"}})
	srv.Compact(0)
	const path = "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=1"
	const params = ";as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
	accepts := map[string]string{
		"json":     "application/json" + params + ",application/json",
		"protobuf": kubeproto.ContentType + params + ",application/json" + params + ",application/json",
	}
	for enc, accept := range accepts {
		t.Run("chunked "+enc, func(t *testing.T) {
			w := openWatch(t, srv.URL()+path, map[string]string{"Accept": accept})
			require.Equal(t, 200, w.resp.StatusCode)
			var ev map[string]any
			if enc == "protobuf" {
				ev = readProtoWatch(t, w.resp.Body, 1)[0]
				ev["type"] = ev["_type"]
			} else {
				e := w.mustNext()
				ev = e.Object
				ev["type"] = e.Type
			}
			requireExpiredStatus(t, ev)
		})
		t.Run("websocket "+enc, func(t *testing.T) {
			conn, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL(), "http")+path,
				http.Header{"Origin": {srv.URL()}, "Accept": {accept}})
			require.NoError(t, err)
			defer conn.Close()
			_, msg, err := conn.ReadMessage()
			require.NoError(t, err)
			var ev map[string]any
			if enc == "protobuf" {
				we, err := kubeproto.DecodeWatchEvent(msg)
				require.NoError(t, err)
				ev = testutil.ProtoJSON(t, we.Object)
				ev["type"] = we.Type
			} else {
				var e wireEvent
				require.NoError(t, json.Unmarshal(msg, &e))
				ev = e.Object
				ev["type"] = e.Type
			}
			requireExpiredStatus(t, ev)
		})
	}
}

// requireExpiredStatus checks an ERROR event's object (its type in
// "type") is the 410 Expired Status.
func requireExpiredStatus(t *testing.T, ev map[string]any) {
	t.Helper()
	require.Equal(t, "ERROR", ev["type"])
	require.Equal(t, "Status", ev["kind"], "%v", ev)
	require.Equal(t, "v1", ev["apiVersion"])
	require.Equal(t, float64(410), ev["code"])
	require.Equal(t, "Expired", ev["reason"])
}

// A metadata-only GET, LIST and watch event carry each object's metadata
// as the whole object has it (labels, annotations with characters JSON
// escapes for HTML, managedFields, the list's continue token), under
// kind PartialObjectMetadata(List) of meta.k8s.io/v1, and nothing else:
// the fake keeps the metadata's bytes and skips the rest unread.
func TestMetadataOnlyAnswersKeepTheObjectsMetadataWhole(t *testing.T) {
	getAs := func(t *testing.T, url, accept string) map[string]any {
		t.Helper()
		_, m := getAccept(t, url, accept)
		return m
	}
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	for _, name := range []string{"a", "b", "c"} {
		p := pod(name, map[string]string{"app": "web", "tier": name})
		p["metadata"].(map[string]any)["annotations"] = map[string]any{"note": "<b>&'\"é"}
		mustCreate(t, srv, podsGVR, p)
	}
	const params = ";g=meta.k8s.io;v=v1"
	base := srv.URL() + "/api/v1/namespaces/default/pods"
	whole := getAs(t, base+"?limit=2", "application/json")
	list := getAs(t, base+"?limit=2", "application/json;as=PartialObjectMetadataList"+params)
	require.Equal(t, "PartialObjectMetadataList", list["kind"])
	require.Equal(t, "meta.k8s.io/v1", list["apiVersion"])
	require.Equal(t, whole["metadata"], list["metadata"], "the list's metadata, continue token included")
	require.NotEmpty(t, list["metadata"].(map[string]any)["continue"])
	items, wholeItems := list["items"].([]any), whole["items"].([]any)
	require.Len(t, items, 2)
	for i, it := range items {
		require.Equal(t, map[string]any{"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
			"metadata": wholeItems[i].(map[string]any)["metadata"]}, it)
	}
	one := getAs(t, base+"/c", "application/json;as=PartialObjectMetadata"+params)
	require.Equal(t, map[string]any{"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
		"metadata": getAs(t, base+"/c", "application/json")["metadata"]}, one)

	w := openWatch(t, base+"?watch=1&resourceVersion=0", map[string]string{"Accept": "application/json;as=PartialObjectMetadata" + params})
	ev := w.mustNext()
	require.Equal(t, "ADDED", ev.Type)
	require.Equal(t, "PartialObjectMetadata", ev.Object["kind"])
	require.Equal(t, wholeItems[0].(map[string]any)["metadata"], ev.Object["metadata"])
	require.Len(t, ev.Object, 3, "kind, apiVersion, metadata: %v", ev.Object)
}
