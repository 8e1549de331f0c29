package fakeapiserver_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
)

func TestApplyRemovesWhatItsManagerNoLongerApplies(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	u := srv.URL() + "/api/v1/namespaces/default/configmaps/a?fieldManager="
	apply := func(manager, body string) map[string]any {
		t.Helper()
		code, obj := call(t, "PATCH", u+manager, "application/apply-patch+yaml",
			"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"+body)
		require.Less(t, code, 300, obj)
		return obj
	}
	apply("a", "  labels:\n    x: z\ndata:\n  k1: v\n  k2: v\n")
	apply("b", "data:\n  k2: v\n")
	obj := apply("a", "data:\n  k1: v\n")
	require.NotContains(t, obj["metadata"], "labels", "a map nobody owns anything of goes whole")
	require.Equal(t, map[string]any{"k1": "v", "k2": "v"}, obj["data"], "k2 is b's too")
	code, _ := call(t, "PATCH", u+"c", "application/merge-patch+json", `{"data":{"k3":"v"}}`)
	require.Equal(t, 200, code)
	obj = apply("a", "data:\n  k4: v\n")
	require.Equal(t, map[string]any{"k2": "v", "k3": "v", "k4": "v"}, obj["data"],
		"a's k1 goes; an update's field is not the applier's to remove")
	obj = apply("b", "")
	require.Equal(t, map[string]any{"k3": "v", "k4": "v"}, obj["data"])
	obj = apply("a", "")
	require.Equal(t, map[string]any{"k3": "v"}, obj["data"], "data stays: c owns part of it")
}
