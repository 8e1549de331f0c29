package storage

import (
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/meta"
)

// The bytes are kube-apiserver v1.37.2's, copied from its watches: a
// bookmark is the kind's empty object, member order included, and a custom
// resource's is kind, apiVersion and metadata only.
func TestBookmarkFrameIsTheKindsEmptyObjectAsKubeAPIServerWritesIt(t *testing.T) {
	for _, tc := range []struct {
		res        Resource
		initialEnd bool
		want       string
	}{
		{Resource{GVR: meta.GVR{Version: "v1", Resource: "pods"}, Kind: "Pod"}, true,
			`{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"211",` +
				`"annotations":{"k8s.io/initial-events-end":"true"}},"spec":{"containers":null},"status":{}}}`},
		{Resource{GVR: meta.GVR{Group: "apps", Version: "v1", Resource: "deployments"}, Kind: "Deployment"}, false,
			`{"type":"BOOKMARK","object":{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"resourceVersion":"211"},` +
				`"spec":{"replicas":0,"selector":null,"template":{"metadata":{},"spec":{"containers":null}},"strategy":{}},"status":{}}}`},
		{Resource{GVR: meta.GVR{Version: "v1", Resource: "configmaps"}, Kind: "ConfigMap"}, false,
			`{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"211"}}}`},
		{Resource{GVR: meta.GVR{Group: "example.com", Version: "v1", Resource: "pods"}, Kind: "Pod"}, true,
			`{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"example.com/v1","metadata":{"resourceVersion":"211",` +
				`"annotations":{"k8s.io/initial-events-end":"true"}}}}`},
	} {
		got := BookmarkFrame(&tc.res, 211, tc.initialEnd)
		require.Equal(t, tc.want+"\n", string(got), "%s", tc.res.Qualified())
	}
}

// Every shell is a valid run of object members, so no kind's bookmark is
// a broken frame.
func TestEveryKindShellMakesValidJSON(t *testing.T) {
	for k, shell := range kindShells {
		require.True(t, jsontext.Value(`{"a":1`+shell+`}`).IsValid(), "%v: %s", k, shell)
	}
}
