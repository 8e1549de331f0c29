package fakeapiserver_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
)

func TestKubectlDeleteNamespaceWaitsUntilItIsGone(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	k := newKubectl(t, srv)
	manifest := filepath.Join(t.TempDir(), "team.yaml")
	require.NoError(t, os.WriteFile(manifest, []byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team\n---\n"+
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  namespace: team\ndata: {k: v}\n"), 0o600))
	require.Contains(t, k.run("apply", "-f", manifest), "configmap/cfg created")
	// kubectl delete waits (--wait) until the namespace is gone: the
	// fake's namespace controller has emptied and removed it by then.
	require.Contains(t, k.run("delete", "namespace", "team"), `namespace "team" deleted`)
	require.Contains(t, k.fails("get", "namespace", "team"), `namespaces "team" not found`)
	require.Contains(t, k.fails("delete", "namespace", "default"), "this namespace may not be deleted")
}

func TestKubectlServerSideApplyConflicts(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	k := newKubectl(t, srv)
	manifest := filepath.Join(t.TempDir(), "cm.yaml")
	write := func(v string) {
		require.NoError(t, os.WriteFile(manifest, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata: {k: "+v+"}\n"), 0o600))
	}
	write("v1")
	require.Contains(t, k.run("apply", "--server-side", "--field-manager=one", "-f", manifest), "serverside-applied")
	write("v2")
	out := k.fails("apply", "--server-side", "--field-manager=two", "-f", manifest)
	require.Contains(t, out, `Apply failed with 1 conflict: conflict with "one": .data.k`)
	require.Contains(t, k.run("apply", "--server-side", "--field-manager=two", "--force-conflicts", "-f", manifest), "serverside-applied")
	require.Equal(t, "v2", k.run("get", "configmap", "ssa", "-o", "jsonpath={.data.k}"))
}
