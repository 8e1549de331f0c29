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
