package fakeapiserver

import (
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/meta"
)

func TestDropEmptyLeavesOutWhatTheGoTypeOmits(t *testing.T) {
	for _, tc := range []struct {
		name     string
		res      *Resource
		in, want string
	}{
		{"metadata's empty lists and maps, a config map's data", &Resource{GVR: meta.GVR{Version: "v1", Resource: "configmaps"}, Kind: "ConfigMap"},
			`{"data":{},"metadata":{"annotations":{},"finalizers":[],"labels":{},"name":"a","ownerReferences":[]}}`,
			`{"metadata":{"name":"a"}}`},
		{"inside lists of objects; an empty struct and a list that is not omitempty stay", deploymentsRes,
			`{"spec":{"template":{"spec":{"containers":[{"args":[],"env":[],"name":"c","resources":{}}],"volumes":[]}}}}`,
			`{"spec":{"template":{"spec":{"containers":[{"name":"c","resources":{}}]}}}}`},
		{"a pod without containers keeps its empty list", &Resource{GVR: meta.GVR{Version: "v1", Resource: "pods"}, Kind: "Pod"},
			`{"spec":{"containers":[]}}`, `{"spec":{"containers":[]}}`},
		{"a custom resource is stored as written", &Resource{GVR: meta.GVR{Group: "example.com", Version: "v1", Resource: "widgets"}, Kind: "Widget"},
			`{"metadata":{"finalizers":[]},"spec":{"list":[]}}`, `{"metadata":{"finalizers":[]},"spec":{"list":[]}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := decode(t, tc.in)
			dropEmpty(tc.res, m)
			b, err := json.Marshal(m, deterministic)
			require.NoError(t, err)
			require.Equal(t, tc.want, string(b))
		})
	}
}
