package fakeapiserver

import (
	"errors"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver/internal/storage"
	"github.com/zerokube/zerokube/meta"
)

var deploymentsRes = &Resource{GVR: meta.GVR{Group: "apps", Version: "v1", Resource: "deployments"}, Kind: "Deployment", Namespaced: true}

// twoContainers is the Deployment of the kubectl regression (issue 31
// item 6): the second container goes, the first keeps its ports.
const twoContainers = `{"spec":{"template":{"spec":{"containers":[` +
	`{"name":"web","image":"nginx:1.27","ports":[{"containerPort":80,"protocol":"TCP"}]},` +
	`{"name":"side","image":"busybox"}]}}}}`

func TestStrategicMergeDirectives(t *testing.T) {
	for _, tc := range []struct {
		name, cur, patch, want string
	}{
		{"$patch delete removes a list element by its merge key, what kubectl apply sends for a removed container",
			twoContainers,
			`{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"web"}],"containers":[{"$patch":"delete","name":"side"}]}}}}`,
			`{"spec":{"template":{"spec":{"containers":[{"image":"nginx:1.27","name":"web","ports":[{"containerPort":80,"protocol":"TCP"}]}]}}}}`},
		{"$patch replace in a list makes the list the patch's other elements",
			twoContainers,
			`{"spec":{"template":{"spec":{"containers":[{"name":"new","image":"x"},{"$patch":"replace"}]}}}}`,
			`{"spec":{"template":{"spec":{"containers":[{"image":"x","name":"new"}]}}}}`},
		{"$patch replace in an object replaces it",
			`{"metadata":{"labels":{"a":"1","b":"2"}}}`, `{"metadata":{"labels":{"$patch":"replace","x":"1"}}}`,
			`{"metadata":{"labels":{"x":"1"}}}`},
		{"$patch delete in an object empties it",
			`{"metadata":{"annotations":{"a":"1"}}}`, `{"metadata":{"annotations":{"$patch":"delete"}}}`,
			`{"metadata":{}}`},
		{"$deleteFromPrimitiveList removes values from a merged list of scalars",
			`{"metadata":{"finalizers":["a","b","c"]}}`, `{"metadata":{"$deleteFromPrimitiveList/finalizers":["b"]}}`,
			`{"metadata":{"finalizers":["a","c"]}}`},
		{"$deleteFromPrimitiveList honours every value it lists",
			`{"metadata":{"finalizers":["a","b","c","d"]}}`, `{"metadata":{"$deleteFromPrimitiveList/finalizers":["b","d"]}}`,
			`{"metadata":{"finalizers":["a","c"]}}`},
		{"$deleteFromPrimitiveList on a list the object does not have adds nothing (issue 38 item 4)",
			`{"metadata":{"name":"x"}}`, `{"metadata":{"$deleteFromPrimitiveList/finalizers":["b"]}}`,
			`{"metadata":{"name":"x"}}`},
		{"$deleteFromPrimitiveList on a null list leaves it null",
			`{"metadata":{"finalizers":null}}`, `{"metadata":{"$deleteFromPrimitiveList/finalizers":["b"]}}`,
			`{"metadata":{"finalizers":null}}`},
		{"$deleteFromPrimitiveList deletes from a list without the merge strategy, a container's args (issue 38 item 4)",
			`{"spec":{"template":{"spec":{"containers":[{"args":["a","b","c"],"name":"web"}]}}}}`,
			`{"spec":{"template":{"spec":{"containers":[{"$deleteFromPrimitiveList/args":["c","a"],"name":"web"}]}}}}`,
			`{"spec":{"template":{"spec":{"containers":[{"args":["b"],"name":"web"}]}}}}`},
		{"a merged list of scalars is a union",
			`{"metadata":{"finalizers":["a","b"]}}`, `{"metadata":{"finalizers":["c","a"]}}`,
			`{"metadata":{"finalizers":["c","a","b"]}}`},
		{"$setElementOrder orders a list of scalars",
			`{"metadata":{"finalizers":["a","b"]}}`, `{"metadata":{"$setElementOrder/finalizers":["b","a","c"],"finalizers":["c"]}}`,
			`{"metadata":{"finalizers":["b","a","c"]}}`},
		{"$setElementOrder alone reorders a list of objects",
			twoContainers, `{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"side"},{"name":"web"}]}}}}`,
			`{"spec":{"template":{"spec":{"containers":[{"image":"busybox","name":"side"},` +
				`{"image":"nginx:1.27","name":"web","ports":[{"containerPort":80,"protocol":"TCP"}]}]}}}}`},
		{"$retainKeys clears the keys it does not list",
			`{"spec":{"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1}}}}`,
			`{"spec":{"strategy":{"$retainKeys":["type"],"type":"Recreate"}}}`,
			`{"spec":{"strategy":{"type":"Recreate"}}}`},
		{"ports merge by containerPort, the patch's new ones first",
			twoContainers, `{"spec":{"template":{"spec":{"containers":[{"name":"web","ports":[{"containerPort":443}]}]}}}}`,
			`{"spec":{"template":{"spec":{"containers":[{"image":"nginx:1.27","name":"web","ports":[{"containerPort":443},` +
				`{"containerPort":80,"protocol":"TCP"}]},{"image":"busybox","name":"side"}]}}}}`},
		{"env merges by name and volumeMounts by mountPath",
			`{"spec":{"template":{"spec":{"containers":[{"name":"c","env":[{"name":"A","value":"1"}],"volumeMounts":[{"mountPath":"/a","name":"v"}]}]}}}}`,
			`{"spec":{"template":{"spec":{"containers":[{"name":"c","env":[{"name":"A","value":"2"}],"volumeMounts":[{"mountPath":"/a","readOnly":true}]}]}}}}`,
			`{"spec":{"template":{"spec":{"containers":[{"env":[{"name":"A","value":"2"}],"name":"c","volumeMounts":[{"mountPath":"/a","name":"v","readOnly":true}]}]}}}}`},
		{"a list without a merge strategy is replaced",
			`{"spec":{"template":{"spec":{"tolerations":[{"key":"a"}]}}}}`, `{"spec":{"template":{"spec":{"tolerations":[{"key":"b"}]}}}}`,
			`{"spec":{"template":{"spec":{"tolerations":[{"key":"b"}]}}}}`},
		{"a new list is cleaned of its directives",
			`{"spec":{}}`, `{"spec":{"template":{"spec":{"containers":[{"name":"a"},{"$patch":"delete","name":"b"}]}}}}`,
			`{"spec":{"template":{"spec":{"containers":[{"name":"a"}]}}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := applyPatch(deploymentsRes, meta.StrategicMergePatch, decode(t, tc.cur), []byte(tc.patch))
			require.NoError(t, err)
			b, err := json.Marshal(got, deterministic)
			require.NoError(t, err)
			require.JSONEq(t, tc.want, string(b))
			require.Equal(t, tc.want, string(b), "order matters: lists keep kube-apiserver's order")
		})
	}
}

func TestStrategicMergeRefusals(t *testing.T) {
	for _, tc := range []struct {
		name, cur, patch string
		code             int32
		message          string
	}{
		{"$patch merge in a list, an error in apimachinery", twoContainers,
			`{"spec":{"template":{"spec":{"containers":[{"$patch":"merge","name":"web"}]}}}}`, 500, "merging lists cannot yet be specified in the patch"},
		{"$patch merge in an object", `{"metadata":{"labels":{"a":"1"}}}`, `{"metadata":{"labels":{"$patch":"merge"}}}`, 500, "unknown patch type: merge in map"},
		{"a key $retainKeys does not list", `{"spec":{"strategy":{"type":"RollingUpdate"}}}`,
			`{"spec":{"strategy":{"$retainKeys":["type"],"rollingUpdate":{"maxSurge":1}}}}`, 400, "invalid patch format of retainKeys"},
		{"$retainKeys that is no list", `{"spec":{}}`, `{"spec":{"$retainKeys":"type"}}`, 400, "invalid patch format of retainKeys"},
		{"$setElementOrder that is no list", twoContainers, `{"spec":{"template":{"spec":{"$setElementOrder/containers":{}}}}}`, 500,
			"invalid type for $setElementOrder/containers"},
		{"an element without its merge key", twoContainers, `{"spec":{"template":{"spec":{"containers":[{"image":"x"}]}}}}`, 500,
			"does not contain declared merge key: name"},
		{"a directive this server does not know", `{}`, `{"metadata":{"$bogus":["x"]}}`, 400, "$bogus"},
		{"a directive inside a list the patch replaces", `{"spec":{"template":{"spec":{"tolerations":[{"key":"a"}]}}}}`,
			`{"spec":{"template":{"spec":{"tolerations":[{"$patch":"delete","key":"a"}]}}}}`, 400, "$patch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := applyPatch(deploymentsRes, meta.StrategicMergePatch, decode(t, tc.cur), []byte(tc.patch))
			var se *meta.StatusError
			require.True(t, errors.As(err, &se), "want a Status, got %v", err)
			require.Equal(t, tc.code, se.Status.Code, se.Status.Message)
			require.Contains(t, se.Status.Message, tc.message)
		})
	}
}

func TestStrategicMergeOfACustomResourceIsUnsupported(t *testing.T) {
	res := &Resource{GVR: meta.GVR{Group: "example.com", Version: "v1", Resource: "widgets"}, Kind: "Widget"}
	_, err := applyPatch(res, meta.StrategicMergePatch, decode(t, `{}`), []byte(`{"spec":{"a":1}}`))
	var se *meta.StatusError
	require.True(t, errors.As(err, &se), "%v", err)
	require.Equal(t, int32(415), se.Status.Code)
	_, err = applyPatch(res, meta.MergePatch, decode(t, `{}`), []byte(`{"spec":{"a":1}}`))
	require.NoError(t, err, "a merge patch needs no schema")
}

func decode(t *testing.T, s string) object {
	t.Helper()
	m, err := storage.DecodeObject([]byte(s))
	require.NoError(t, err)
	return m
}
