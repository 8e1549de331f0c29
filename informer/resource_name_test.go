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

func TestNewForNameFindsACustomResourceInstalledAfterDiscoveryWasRead(t *testing.T) {
	e := newEnv(t)
	d := discovery.New(e.client, discovery.Options{})
	_, err := informer.NewForName[meta.Raw](t.Context(), d, "foos", "default", informer.Options[*meta.Raw]{Logger: quiet()})
	require.True(t, discovery.IsNotFound(err), "not installed yet: %v", err)

	foos := meta.GVR{Group: "example.com", Version: "v1", Resource: "foos"}
	require.NoError(t, e.srv.Register(fakeapiserver.Resource{GVR: foos, Kind: "Foo", Namespaced: true, ShortNames: []string{"fo"}}))
	_, err = e.srv.Create(foos, map[string]any{"metadata": map[string]any{"name": "a", "namespace": "default"}})
	require.NoError(t, err)
	_, err = e.srv.Create(meta.GVR{Version: "v1", Resource: "namespaces"}, map[string]any{"metadata": map[string]any{"name": "other"}})
	require.NoError(t, err)
	_, err = e.srv.Create(foos, map[string]any{"metadata": map[string]any{"name": "b", "namespace": "other"}})
	require.NoError(t, err)

	inf, err := informer.NewForName[meta.Raw](t.Context(), d, "fo", "default", informer.Options[*meta.Raw]{Logger: quiet()})
	require.NoError(t, err)
	run(t, inf)
	synced(t, inf)
	got := inf.Lister().List(meta.LabelSelector{})
	require.Len(t, got, 1, "only the namespace asked for")
	require.Equal(t, "a", got[0].GetName())
	require.Equal(t, apiclient.Ref{GVR: foos, Namespace: "default"}, inf.Ref(), "the short name, resolved")
}

func TestNewForNameWatchesAClusterScopedResourceWhateverTheNamespace(t *testing.T) {
	e := newEnv(t)
	_, err := e.srv.Create(meta.GVR{Version: "v1", Resource: "nodes"}, map[string]any{"metadata": map[string]any{"name": "n1"}})
	require.NoError(t, err)
	inf, err := informer.NewForName[meta.Raw](t.Context(), discovery.New(e.client, discovery.Options{}), "no", "default",
		informer.Options[*meta.Raw]{Logger: quiet()})
	require.NoError(t, err)
	run(t, inf)
	synced(t, inf)
	require.Len(t, inf.Lister().List(meta.LabelSelector{}), 1)
	require.Equal(t, apiclient.Ref{GVR: meta.GVR{Version: "v1", Resource: "nodes"}}, inf.Ref(), "no namespace for a cluster-scoped resource")
}

func TestForNameSharesOneInformerWhateverTheName(t *testing.T) {
	e := newEnv(t)
	d := discovery.New(e.client, discovery.Options{})
	f := informer.NewFactory(e.client, quiet())
	var got []*informer.Informer[meta.Raw, *meta.Raw]
	for _, name := range []string{"deploy", "deployments.apps", "Deployment", "apps/v1/deployments"} {
		inf, err := informer.ForName[meta.Raw](t.Context(), f, d, name, "default", informer.Options[*meta.Raw]{Logger: quiet()})
		require.NoError(t, err, name)
		got = append(got, inf)
	}
	for _, inf := range got[1:] {
		require.Same(t, got[0], inf)
	}
	deployments := meta.GVR{Group: "apps", Version: "v1", Resource: "deployments"}
	require.Equal(t, apiclient.Ref{GVR: deployments, Namespace: "default"}, got[0].Ref())
	require.Zero(t, informer.New[meta.Raw](informer.NewListerWatcher[meta.Raw](e.client, got[0].Ref(), informer.Options[*meta.Raw]{}),
		informer.Options[*meta.Raw]{Logger: quiet()}).Ref(), "New over a ListerWatcher: no resource to say")
	_, err := informer.ForName[meta.Raw](t.Context(), f, d, "nothing", "default", informer.Options[*meta.Raw]{})
	require.True(t, discovery.IsNotFound(err), "%v", err)
}
