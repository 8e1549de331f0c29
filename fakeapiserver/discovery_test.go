package fakeapiserver_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/meta"
)

func TestDiscoveryListsBuiltinAndRegisteredResources(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	widgets := meta.GVR{Group: "example.com", Version: "v1alpha1", Resource: "widgets"}
	require.NoError(t, srv.Register(fakeapiserver.Resource{GVR: widgets, Kind: "Widget", Namespaced: true}))
	require.Error(t, srv.Register(fakeapiserver.Resource{GVR: widgets, Kind: "Widget"}), "registered twice")

	code, v := get(t, srv.URL()+"/version")
	require.Equal(t, 200, code)
	require.Equal(t, "1", v["major"])
	code, apis := get(t, srv.URL()+"/api")
	require.Equal(t, 200, code)
	require.Equal(t, []any{"v1"}, apis["versions"])
	code, groups := get(t, srv.URL()+"/apis")
	require.Equal(t, 200, code)
	var names []string
	for _, g := range groups["groups"].([]any) {
		names = append(names, g.(map[string]any)["name"].(string))
	}
	require.Equal(t, []string{"apiextensions.k8s.io", "apps", "authorization.k8s.io", "batch", "coordination.k8s.io", "example.com"}, names)

	code, core := get(t, srv.URL()+"/api/v1")
	require.Equal(t, 200, code)
	found := map[string]map[string]any{}
	for _, r := range core["resources"].([]any) {
		found[r.(map[string]any)["name"].(string)] = r.(map[string]any)
	}
	require.Equal(t, "Pod", found["pods"]["kind"])
	require.Equal(t, true, found["pods"]["namespaced"])
	require.Equal(t, false, found["nodes"]["namespaced"])
	require.Contains(t, found["pods"]["verbs"], "watch")
	require.Equal(t, []any{"po"}, found["pods"]["shortNames"])

	code, _ = get(t, srv.URL()+"/apis/example.com/v1alpha1")
	require.Equal(t, 200, code)
	code, _ = get(t, srv.URL()+"/apis/nope/v1")
	require.Equal(t, 404, code)

	// A registered kind is served like a built-in one.
	code, obj := call(t, "POST", srv.URL()+"/apis/example.com/v1alpha1/namespaces/default/widgets", "application/json",
		`{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":3}}`)
	require.Equal(t, 201, code, obj)
	code, list := get(t, srv.URL()+"/apis/example.com/v1alpha1/widgets")
	require.Equal(t, 200, code)
	require.Equal(t, "WidgetList", list["kind"])
	require.Len(t, list["items"], 1)
}

func TestClusterScopedResources(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	code, n := call(t, "POST", srv.URL()+"/api/v1/nodes", "application/json", `{"metadata":{"name":"node-1","namespace":"ignored"}}`)
	require.Equal(t, 201, code, n)
	require.NotContains(t, n["metadata"], "namespace")
	code, _ = get(t, srv.URL()+"/api/v1/nodes/node-1")
	require.Equal(t, 200, code)
	code, _ = get(t, srv.URL()+"/api/v1/namespaces/default/nodes")
	require.Equal(t, 404, code)

	// Deleting a namespace deletes what is in it.
	code, _ = call(t, "POST", srv.URL()+"/api/v1/namespaces", "application/json", `{"metadata":{"name":"team"}}`)
	require.Equal(t, 201, code)
	code, _ = call(t, "POST", srv.URL()+"/api/v1/namespaces/team/configmaps", "application/json", `{"metadata":{"name":"c"}}`)
	require.Equal(t, 201, code)
	code, _ = call(t, "DELETE", srv.URL()+"/api/v1/namespaces/team", "", "")
	require.Equal(t, 200, code)
	code, _ = get(t, srv.URL()+"/api/v1/namespaces/team/configmaps/c")
	require.Equal(t, 404, code)
}
