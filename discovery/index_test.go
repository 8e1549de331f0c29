package discovery_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/discovery"
	"github.com/zerokube/zerokube/meta"
)

// res makes a resource of group/version; the singular is the kind in lower
// case.
func res(group, version, plural, kind string, namespaced bool, short ...string) discovery.Resource {
	singular := []rune(kind)
	for i, c := range singular {
		if c >= 'A' && c <= 'Z' {
			singular[i] = c + 'a' - 'A'
		}
	}
	return discovery.Resource{GVR: meta.GVR{Group: group, Version: version, Resource: plural}, Kind: kind,
		SingularName: string(singular), Namespaced: namespaced, ShortNames: short}
}

// testIndex has what matters of kube-apiserver's discovery for the rules:
// events in two groups, autoscaling in two versions (v2 preferred), a
// custom resource whose short name is another resource's plural, and two
// groups that share a short name.
func testIndex() *discovery.Index {
	return discovery.NewIndex([]discovery.Group{
		{Name: "apps", Versions: []discovery.Version{{Version: "v1", Resources: []discovery.Resource{
			res("apps", "v1", "deployments", "Deployment", true, "deploy"),
			res("apps", "v1", "replicasets", "ReplicaSet", true, "rs")}}}},
		{Name: "", Versions: []discovery.Version{{Version: "v1", Resources: []discovery.Resource{
			res("", "v1", "pods", "Pod", true, "po"),
			res("", "v1", "nodes", "Node", false, "no"),
			res("", "v1", "events", "Event", true, "ev"),
			res("", "v1", "configmaps", "ConfigMap", true, "cm")}}}},
		{Name: "events.k8s.io", Versions: []discovery.Version{{Version: "v1", Resources: []discovery.Resource{
			res("events.k8s.io", "v1", "events", "Event", true, "ev")}}}},
		{Name: "autoscaling", Versions: []discovery.Version{
			{Version: "v2", Resources: []discovery.Resource{
				res("autoscaling", "v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler", true, "hpa")}},
			{Version: "v1", Resources: []discovery.Resource{
				res("autoscaling", "v1", "horizontalpodautoscalers", "HorizontalPodAutoscaler", true, "hpa")}}}},
		{Name: "example.com", Versions: []discovery.Version{{Version: "v1", Resources: []discovery.Resource{
			res("example.com", "v1", "foos", "Foo", true, "fo", "pods"),
			res("example.com", "v1", "bars", "Bar", false, "cm")}}}},
	})
}

func TestResolveFollowsKubectlsRules(t *testing.T) {
	x := testIndex()
	tests := []struct {
		name, in string
		want     meta.GVR
	}{
		{"plural", "pods", meta.GVR{Version: "v1", Resource: "pods"}},
		{"singular", "pod", meta.GVR{Version: "v1", Resource: "pods"}},
		{"short name", "deploy", meta.GVR{Group: "apps", Version: "v1", Resource: "deployments"}},
		{"kind", "Deployment", meta.GVR{Group: "apps", Version: "v1", Resource: "deployments"}},
		{"resource names ignore case", "PODS", meta.GVR{Version: "v1", Resource: "pods"}},
		{"resource.group", "deployments.apps", meta.GVR{Group: "apps", Version: "v1", Resource: "deployments"}},
		{"short name.group", "deploy.apps", meta.GVR{Group: "apps", Version: "v1", Resource: "deployments"}},
		{"resource.version.group", "horizontalpodautoscalers.v1.autoscaling",
			meta.GVR{Group: "autoscaling", Version: "v1", Resource: "horizontalpodautoscalers"}},
		{"kind.version.group", "HorizontalPodAutoscaler.v1.autoscaling",
			meta.GVR{Group: "autoscaling", Version: "v1", Resource: "horizontalpodautoscalers"}},
		{"the preferred version first", "hpa", meta.GVR{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers"}},
		{"an abbreviated group of a short name", "hpa.autoscal",
			meta.GVR{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers"}},
		{"the core group before the others", "events", meta.GVR{Version: "v1", Resource: "events"}},
		{"the core group's short name first", "ev", meta.GVR{Version: "v1", Resource: "events"}},
		{"a group picks the lower priority one", "events.events.k8s.io", meta.GVR{Group: "events.k8s.io", Version: "v1", Resource: "events"}},
		{"a plural beats another's short name", "pods", meta.GVR{Version: "v1", Resource: "pods"}},
		{"a shared short name goes to the first group", "cm", meta.GVR{Version: "v1", Resource: "configmaps"}},
		{"a group settles a shared short name", "cm.example.com", meta.GVR{Group: "example.com", Version: "v1", Resource: "bars"}},
		{"custom resource by short name", "fo", meta.GVR{Group: "example.com", Version: "v1", Resource: "foos"}},
		{"version/resource", "v1/pods", meta.GVR{Version: "v1", Resource: "pods"}},
		{"group/version/resource", "autoscaling/v1/horizontalpodautoscalers",
			meta.GVR{Group: "autoscaling", Version: "v1", Resource: "horizontalpodautoscalers"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := x.Resolve(tc.in)
			require.NoError(t, err)
			require.Equal(t, tc.want, r.GVR)
		})
	}
}

func TestResolveSaysWhatDidNotMatch(t *testing.T) {
	x := testIndex()
	for _, in := range []string{"", "widgets", "deployments.extensions", "deployments.v2.apps", "DEPLOY",
		"v9/pods", "apps/v1/pods", "a/b/c/d", ".pods", "/pods"} {
		_, err := x.Resolve(in)
		require.Error(t, err, in)
	}
	_, err := x.Resolve("widgets")
	require.True(t, discovery.IsNotFound(err), err)
	require.Contains(t, err.Error(), `"widgets"`)
}

func TestResolveKeepsScopeAndRefDropsTheNamespaceOfClusterResources(t *testing.T) {
	x := testIndex()
	n, err := x.Resolve("no")
	require.NoError(t, err)
	require.False(t, n.Namespaced)
	require.Equal(t, "", n.Ref("default").Namespace)
	require.Equal(t, apiclient.ScopeCluster, n.Ref("default").Scope)
	p, err := x.Resolve("po")
	require.NoError(t, err)
	require.Equal(t, "default", p.Ref("default").Namespace)
	require.Equal(t, apiclient.ScopeNamespaced, p.Ref("").Scope, "so that a write by name without a namespace is refused")
	require.Equal(t, "apps/v1", must(x.Resolve("deploy")).APIVersion())
}

func TestResolveRefusesAnAmbiguousName(t *testing.T) {
	x := discovery.NewIndex([]discovery.Group{{Name: "example.com", Versions: []discovery.Version{{Version: "v1",
		Resources: []discovery.Resource{res("example.com", "v1", "foos", "Foo", true), res("example.com", "v1", "foo", "Other", true)}}}}})
	_, err := x.Resolve("foo")
	require.True(t, discovery.IsAmbiguous(err), err)
}

func must(r discovery.Resource, err error) discovery.Resource {
	if err != nil {
		panic(err)
	}
	return r
}

func TestShadowedNamesTheOthersWithTheSameShortName(t *testing.T) {
	x := testIndex()
	cm, err := x.Resolve("cm")
	require.NoError(t, err)
	require.Equal(t, []string{"bars.example.com"}, x.Shadowed("cm", cm), "kubectl warns of it")
	require.Empty(t, x.Shadowed("configmaps", cm), "not a short name")
	ev, err := x.Resolve("ev")
	require.NoError(t, err)
	require.Equal(t, []string{"events.events.k8s.io"}, x.Shadowed("ev", ev))
	hpa, err := x.Resolve("hpa")
	require.NoError(t, err)
	require.Empty(t, x.Shadowed("hpa", hpa), "another version of the same resource is no ambiguity")
}
