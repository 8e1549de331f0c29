package apiclient_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/discovery"
	"github.com/zerokube/zerokube/meta"
)

// Issue 38 item 3: a per-node agent watches pods in every namespace
// (pods.Ref("")) and writes back through its informer's Ref. Without a
// namespace the PATCH went to /api/v1/pods/NAME, the server answered 404,
// and the agent's "NotFound means it was deleted" branch swallowed it.
// Now the Ref knows its resource is namespaced (discovery says so) and
// the write fails before it is sent, with an error that names the fix and
// is no NotFound.
func TestAWriteBackThroughAnAllNamespacesRefNamesTheFixAndIsNoNotFound(t *testing.T) {
	srv, c, spy := fakeClient(t, nil)
	ctx := context.Background()
	_, err := srv.Create(podsRef.GVR, map[string]any{"metadata": map[string]any{"name": "p", "namespace": "default"},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}}})
	require.NoError(t, err)
	pods, err := discovery.New(c, discovery.Options{}).Resolve(ctx, "pods")
	require.NoError(t, err)
	all := pods.Ref("") // what an informer of every namespace holds
	change := apiclient.MetadataChange{SetLabels: map[string]string{"seen-by": "node-1"}}

	_, err = apiclient.UpdateMetadata[conditioned](ctx, c, all, "p", change)
	require.Error(t, err)
	require.False(t, meta.IsNotFound(err), "taken for a deletion: %v", err)
	require.ErrorIs(t, err, apiclient.ErrNoNamespace)
	require.ErrorContains(t, err, "Namespaced(", "the error names the fix")
	require.ErrorContains(t, err, `PATCH v1/pods "p"`, "and the write")

	// Every request for one object refuses it the same way, and sends
	// nothing; an object's own namespace is enough for those that take it.
	nsLess := &conditioned{ObjectMeta: meta.ObjectMeta{Name: "p"}}
	for name, call := range map[string]func() error{
		"Get": func() error { _, err := apiclient.Get[conditioned](ctx, c, all, "p"); return err },
		"Patch": func() error {
			_, err := apiclient.Patch[conditioned](ctx, c, all, "p", meta.MergePatch, []byte(`{}`))
			return err
		},
		"Delete": func() error { return c.Delete(ctx, all, "p", apiclient.DeleteOptions{}) },
		"SetCondition": func() error {
			_, err := apiclient.SetCondition[conditioned](ctx, c, all, "p",
				meta.Condition{Type: "example.com/Ready", Status: meta.ConditionTrue, Reason: "Up"}, apiclient.ConditionOptions{})
			return err
		},
		"Update": func() error { _, err := apiclient.Update(ctx, c, all, nsLess); return err },
		"Create": func() error { _, err := apiclient.Create(ctx, c, all, nsLess); return err },
		"Apply": func() error {
			_, err := apiclient.Apply(ctx, c, all, nsLess, apiclient.ApplyOptions{FieldManager: "agent"})
			return err
		},
	} {
		err := call()
		require.ErrorIs(t, err, apiclient.ErrNoNamespace, name)
		require.False(t, meta.IsNotFound(err), name)
	}
	require.Zero(t, spy.count(), "no write was sent")

	// The fix: the object's own namespace.
	p, err := apiclient.UpdateMetadata[conditioned](ctx, c, all.Namespaced("default"), "p", change)
	require.NoError(t, err)
	require.Equal(t, "node-1", p.Labels["seen-by"])
	got, err := apiclient.Get[conditioned](ctx, c, all, "p")
	require.ErrorIs(t, err, apiclient.ErrNoNamespace)
	require.Nil(t, got)
	withNS := &conditioned{ObjectMeta: meta.ObjectMeta{Name: "q", Namespace: "default"}}
	_, err = apiclient.Create(ctx, c, all, withNS)
	require.NoError(t, err, "Create takes the object's namespace")

	// A cluster-scoped resource's Ref wants none.
	nss, err := discovery.New(c, discovery.Options{}).Resolve(ctx, "namespaces")
	require.NoError(t, err)
	_, err = apiclient.Get[meta.Raw](ctx, c, nss.Ref("ignored"), "default")
	require.NoError(t, err)
}
