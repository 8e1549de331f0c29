package fakeapiserver_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/meta"
)

const aggregated = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

// getAccept GETs url with an Accept header and returns the Content-Type and
// the decoded body.
func getAccept(t *testing.T, url, accept string) (string, map[string]any) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var v map[string]any
	require.NoError(t, json.Unmarshal(b, &v))
	return resp.Header.Get("Content-Type"), v
}

func TestAggregatedDiscoveryListsBuiltinAndRegisteredResources(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	for _, v := range []string{"v1", "v2", "v1beta1"} {
		require.NoError(t, srv.Register(fakeapiserver.Resource{GVR: meta.GVR{Group: "example.com", Version: v, Resource: "widgets"},
			Kind: "Widget", ShortNames: []string{"wd"}, StatusSubresource: true}))
	}
	ct, core := getAccept(t, srv.URL()+"/api", aggregated+",application/json")
	require.Equal(t, aggregated, ct)
	require.Equal(t, "APIGroupDiscoveryList", core["kind"])
	require.Equal(t, "apidiscovery.k8s.io/v2", core["apiVersion"])
	items := core["items"].([]any)
	require.Len(t, items, 1)
	require.Equal(t, map[string]any{}, items[0].(map[string]any)["metadata"], "the core group has no name")

	// The server answers aggregated wherever the client lists it, as
	// kube-apiserver does.
	ct, apis := getAccept(t, srv.URL()+"/apis", "application/json, "+aggregated)
	require.Equal(t, aggregated, ct)
	var widgets map[string]any
	for _, g := range apis["items"].([]any) {
		if g.(map[string]any)["metadata"].(map[string]any)["name"] == "example.com" {
			widgets = g.(map[string]any)
		}
	}
	require.NotNil(t, widgets)
	var versions []any
	for _, v := range widgets["versions"].([]any) {
		versions = append(versions, v.(map[string]any)["version"])
		require.Equal(t, "Current", v.(map[string]any)["freshness"])
	}
	require.Equal(t, []any{"v2", "v1", "v1beta1"}, versions, "the preferred version first")
	w := widgets["versions"].([]any)[0].(map[string]any)["resources"].([]any)[0].(map[string]any)
	require.Equal(t, map[string]any{"resource": "widgets", "responseKind": map[string]any{"group": "", "version": "", "kind": "Widget"},
		"scope": "Cluster", "singularResource": "widget", "verbs": []any{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"},
		"shortNames": []any{"wd"}, "subresources": []any{map[string]any{"subresource": "status",
			"responseKind": map[string]any{"group": "", "version": "", "kind": "Widget"}, "verbs": []any{"get", "patch", "update"}}}}, w)

	// Plain JSON (and the v2beta1 that 1.37 no longer serves) gets the
	// legacy document.
	for _, accept := range []string{"application/json", strings.Replace(aggregated, "v=v2", "v=v2beta1", 1) + ",application/json"} {
		ct, legacy := getAccept(t, srv.URL()+"/apis", accept)
		require.Equal(t, "application/json", ct)
		require.Equal(t, "APIGroupList", legacy["kind"])
	}
}

func TestKubectlResolvesShortNamesFromTheFakesDiscovery(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	k := newKubectl(t, srv)
	require.NoError(t, srv.Register(fakeapiserver.Resource{GVR: meta.GVR{Group: "example.com", Version: "v1", Resource: "widgets"},
		Kind: "Widget", Namespaced: true, ShortNames: []string{"wd"}}))
	_, err := srv.Create(meta.GVR{Group: "example.com", Version: "v1", Resource: "widgets"},
		map[string]any{"metadata": map[string]any{"name": "w1", "namespace": "default"}})
	require.NoError(t, err)
	out := k.run("get", "wd", "-o", "name", "-v=6")
	require.Contains(t, out, "widget.example.com/w1")
	require.Contains(t, out, "/apis?timeout=32s 200", "kubectl read /apis")
	require.NotContains(t, out, "/apis/example.com/v1?timeout=32s", "kubectl read aggregated discovery, not the per-version document")
	require.Contains(t, k.run("api-resources", "--api-group=example.com", "--no-headers"), "wd")
}
