package informer_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/discovery"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/meta"
)

// byName resolves a resource named as kubectl names it into the reference
// an informer is built for: the one way to build an informer by name.
func byName(t *testing.T, d *discovery.Client, name, namespace string) (apiclient.Ref, error) {
	r, err := d.Resolve(t.Context(), name)
	if err != nil {
		return apiclient.Ref{}, err
	}
	return r.Ref(namespace), nil
}

func TestANameFindsACustomResourceInstalledAfterDiscoveryWasRead(t *testing.T) {
	e := newEnv(t)
	d := discovery.New(e.client, discovery.Options{})
	_, err := byName(t, d, "foos", "default")
	require.True(t, discovery.IsNotFound(err), "not installed yet: %v", err)

	foos := meta.GVR{Group: "example.com", Version: "v1", Resource: "foos"}
	require.NoError(t, e.srv.Register(fakeapiserver.Resource{GVR: foos, Kind: "Foo", Namespaced: true, ShortNames: []string{"fo"}}))
	_, err = e.srv.Create(foos, map[string]any{"metadata": map[string]any{"name": "a", "namespace": "default"}})
	require.NoError(t, err)
	_, err = e.srv.Create(meta.GVR{Version: "v1", Resource: "namespaces"}, map[string]any{"metadata": map[string]any{"name": "other"}})
	require.NoError(t, err)
	_, err = e.srv.Create(foos, map[string]any{"metadata": map[string]any{"name": "b", "namespace": "other"}})
	require.NoError(t, err)

	ref, err := byName(t, d, "fo", "default")
	require.NoError(t, err)
	inf := informer.New[meta.Raw](d.APIClient(), ref, informer.Options[*meta.Raw]{Observe: informer.ObserveOptions{Logger: quiet()}})
	run(t, inf)
	synced(t, inf)
	got := inf.Lister().List(meta.LabelSelector{})
	require.Len(t, got, 1, "only the namespace asked for")
	require.Equal(t, "a", got[0].GetName())
	require.Equal(t, apiclient.Ref{GVR: foos, Namespace: "default", Scope: apiclient.ScopeNamespaced}, inf.Ref(), "the short name, resolved")
}

func TestANameOfAClusterScopedResourceIsWatchedWhateverTheNamespace(t *testing.T) {
	e := newEnv(t)
	_, err := e.srv.Create(meta.GVR{Version: "v1", Resource: "nodes"}, map[string]any{"metadata": map[string]any{"name": "n1"}})
	require.NoError(t, err)
	ref, err := byName(t, discovery.New(e.client, discovery.Options{}), "no", "default")
	require.NoError(t, err)
	inf := informer.New[meta.Raw](e.client, ref, informer.Options[*meta.Raw]{Observe: informer.ObserveOptions{Logger: quiet()}})
	run(t, inf)
	synced(t, inf)
	require.Len(t, inf.Lister().List(meta.LabelSelector{}), 1)
	require.Equal(t, apiclient.Ref{GVR: meta.GVR{Version: "v1", Resource: "nodes"}, Scope: apiclient.ScopeCluster}, inf.Ref(), "no namespace for a cluster-scoped resource")
}

func TestAFactorySharesOneInformerWhateverTheName(t *testing.T) {
	e := newEnv(t)
	d := discovery.New(e.client, discovery.Options{})
	f := informer.NewFactory(e.client, quiet())
	var got []*informer.Informer[meta.Raw, *meta.Raw]
	for _, name := range []string{"deploy", "deployments.apps", "Deployment", "apps/v1/deployments"} {
		ref, err := byName(t, d, name, "default")
		require.NoError(t, err, name)
		got = append(got, informer.Shared[meta.Raw](f, ref, informer.Options[*meta.Raw]{Observe: informer.ObserveOptions{Logger: quiet()}}))
	}
	for _, inf := range got[1:] {
		require.Same(t, got[0], inf)
	}
	deployments := meta.GVR{Group: "apps", Version: "v1", Resource: "deployments"}
	require.Equal(t, apiclient.Ref{GVR: deployments, Namespace: "default", Scope: apiclient.ScopeNamespaced}, got[0].Ref())
	byHand := informer.Shared[meta.Raw](f, apiclient.Ref{GVR: deployments, Namespace: "default"}, informer.Options[*meta.Raw]{Observe: informer.ObserveOptions{Logger: quiet()}})
	require.Same(t, got[0], byHand, "a Ref without a scope is the same resource: one cache")
	_, err := byName(t, d, "nothing", "default")
	require.True(t, discovery.IsNotFound(err), "%v", err)
}
