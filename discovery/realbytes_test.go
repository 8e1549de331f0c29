package discovery

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/meta"
)

// kubeIndex is an Index of the aggregated documents kube-apiserver v1.37.2
// served for /api and /apis (testdata, taken with the Accept header of
// AcceptAggregated).
func kubeIndex(t *testing.T) *Index {
	t.Helper()
	var groups []Group
	for _, p := range []string{"/api", "/apis"} {
		b, err := os.ReadFile("testdata/kube-apiserver-v1.37.2-" + p[1:] + ".json")
		require.NoError(t, err)
		gs, legacy, err := parseAggregated(p, b)
		require.NoError(t, err)
		require.Nil(t, legacy)
		groups = append(groups, gs...)
	}
	return NewIndex(groups)
}

func TestResolveOnKubeAPIServersOwnDocuments(t *testing.T) {
	x := kubeIndex(t)
	for in, want := range map[string]meta.GVR{
		"hpa": {Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers"},
		"horizontalpodautoscalers.v1.autoscaling": {Group: "autoscaling", Version: "v1", Resource: "horizontalpodautoscalers"},
		"events":                     {Version: "v1", Resource: "events"},
		"ev":                         {Version: "v1", Resource: "events"},
		"events.events.k8s.io":       {Group: "events.k8s.io", Version: "v1", Resource: "events"},
		"netpol":                     {Group: "networking.k8s.io", Version: "v1", Resource: "networkpolicies"},
		"sts":                        {Group: "apps", Version: "v1", Resource: "statefulsets"},
		"cj":                         {Group: "batch", Version: "v1", Resource: "cronjobs"},
		"crd":                        {Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"},
		"ClusterRole":                {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"},
		"svc":                        {Version: "v1", Resource: "services"},
		"ingresses":                  {Group: "networking.k8s.io", Version: "v1", Resource: "ingresses"},
		"pvc":                        {Version: "v1", Resource: "persistentvolumeclaims"},
		"leases.coordination.k8s.io": {Group: "coordination.k8s.io", Version: "v1", Resource: "leases"},
	} {
		r, err := x.Resolve(in)
		require.NoError(t, err, in)
		require.Equal(t, want, r.GVR, in)
	}
	n, err := x.Resolve("no")
	require.NoError(t, err)
	require.False(t, n.Namespaced)
	p, err := x.Resolve("po")
	require.NoError(t, err)
	require.Contains(t, p.Subresources, "status")
	require.Contains(t, p.Subresources, "eviction")
}
