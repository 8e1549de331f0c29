package storage

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/meta"
)

func fieldSelector(t *testing.T, s string) meta.FieldSelector {
	t.Helper()
	f, err := meta.ParseFieldSelector(s)
	require.NoError(t, err)
	return f
}

// TestFieldSelectorMatchesWithoutDecoding: a per-node agent's selector is
// answered from the fields stored beside the object, not by decoding it for
// every object of every LIST and every watcher of every event.
func TestFieldSelectorMatchesWithoutDecoding(t *testing.T) {
	s, _ := newTestStore(Options{})
	pods := benchPodsResource()
	o, err := s.Create(pods, benchPod("a", 7))
	require.NoError(t, err)
	for sel, want := range map[string]bool{
		"spec.nodeName=node-7":                        true,
		"spec.nodeName=node-8":                        false,
		"spec.nodeName!=node-7,status.phase=Running":  false,
		"status.phase=Running,status.podIP=10.0.7.12": true,
		"status.nominatedNodeName=":                   true,
	} {
		f := Filter{Field: fieldSelector(t, sel)}
		require.Equal(t, want, f.Matches(o), sel)
		require.Zero(t, testing.AllocsPerRun(10, func() { f.Matches(o) }), "%s allocates: it decodes the object", sel)
	}
}

// TestStoredFieldsAreWhatTheStoredJSONSays: the fields read from the map a
// write built equal those read from the stored JSON decoded, also where
// the map holds Go values JSON decodes as something else.
func TestStoredFieldsAreWhatTheStoredJSONSays(t *testing.T) {
	s, _ := newTestStore(Options{})
	res := &Resource{GVR: meta.GVR{Group: "example.com", Version: "v1", Resource: "widgets"}, Kind: "Widget",
		Namespaced: true, FieldSelectors: []string{
			"kind", "apiVersion", "metadata.resourceVersion", "spec.count", "spec.big", "spec.on", "spec.names",
			"spec.sub", "spec.sub.leaf", "spec.typed.leaf", "spec.none", "spec.absent", "spec.ptr", "status",
		}}
	type typed struct {
		Leaf string `json:"leaf"`
	}
	var nilPtr *int
	o, err := s.Create(res, map[string]any{
		"metadata": map[string]any{"name": "w", "namespace": "default"},
		"spec": map[string]any{"count": int64(3), "big": uint64(1 << 60), "on": true, "names": []string{"a"},
			"sub": map[string]string{"leaf": "x"}, "typed": typed{Leaf: "y"}, "none": nil, "ptr": nilPtr},
		"status": map[string]any{},
	})
	require.NoError(t, err)
	decoded := o.Decode()
	for i, path := range res.FieldSelectors {
		v, ok := LookupField(decoded, path)
		require.Equal(t, fieldValue{v, ok}, o.fields.values[i], path)
	}
	require.Equal(t, fieldValue{"3", true}, o.fields.values[3], "an int64 is the number the JSON holds")
	require.Equal(t, fieldValue{"x", true}, o.fields.values[8], "a map[string]string is an object")
}

// TestAFieldAddedToTheResourceLaterIsReadFromTheObject: a field the
// resource did not list when the object was stored is still matched, from
// the object itself.
func TestAFieldAddedToTheResourceLaterIsReadFromTheObject(t *testing.T) {
	s, _ := newTestStore(Options{})
	pods := benchPodsResource()
	o, err := s.Create(pods, benchPod("a", 7))
	require.NoError(t, err)
	pods.FieldSelectors = append(pods.FieldSelectors[:len(pods.FieldSelectors):len(pods.FieldSelectors)], "status.hostIP")
	f := Filter{Field: fieldSelector(t, "status.hostIP=192.168.0.7")}
	require.True(t, f.Matches(o))
}
