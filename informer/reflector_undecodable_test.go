package informer_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
)

// putUndecodable stores a ConfigMap whose data holds a number: valid JSON
// that does not fit configMap's map[string]string.
func putUndecodable(t *testing.T, e *env, name string) {
	t.Helper()
	_, err := e.srv.Create(cmGVR, map[string]any{"metadata": map[string]any{"name": name, "namespace": "default"},
		"data": map[string]any{"v": 5}})
	require.NoError(t, err)
}

// TestUndecodableObjectIsNamedUntilDeleted: by default one object that
// does not fit the type stops the sync, and WaitForSync says which object,
// where, and why, with its own reason; once it is deleted the informer
// syncs.
func TestUndecodableObjectIsNamedUntilDeleted(t *testing.T) {
	e := newEnv(t)
	e.put(t, "a", "1", nil)
	putUndecodable(t, e, "b")
	inf := informer.New[configMap](e.client, cmRef, fastOpts())
	run(t, inf)
	var se *informer.SyncError
	require.Eventually(t, func() bool { se = inf.SyncError(); return se != nil }, wait, time.Millisecond)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	err := inf.WaitForSync(ctx)
	require.ErrorAs(t, err, &se)
	require.Equal(t, observe.FailureUndecodable, se.Reason)
	for _, part := range []string{"page 1", "default/b", "/data/v"} {
		require.ErrorContains(t, err, part)
	}
	require.True(t, errors.Is(err, context.DeadlineExceeded))
	require.Empty(t, inf.Undecodable())

	require.NoError(t, e.srv.Delete(cmGVR, "default", "b"))
	synced(t, inf)
	converges(t, e, inf)
}

// TestSkipUndecodableSyncsWithoutTheObject: with the opt-in policy the
// informer syncs without the object, and says so.
func TestSkipUndecodableSyncsWithoutTheObject(t *testing.T) {
	e := newEnv(t)
	e.put(t, "a", "1", nil)
	putUndecodable(t, e, "b")
	opts := fastOpts()
	opts.Decode.SkipUndecodable = true
	inf := informer.New[configMap](e.client, cmRef, opts)
	run(t, inf)
	synced(t, inf)
	require.Equal(t, []string{"default/a"}, inf.Store().ListKeys())
	u := inf.Undecodable()
	require.Len(t, u, 1)
	require.Equal(t, "default/b", u[0].Key)
	require.Equal(t, "/data/v", u[0].Path)
	require.Equal(t, 1, u[0].Page)
	require.Error(t, u[0].Err)
}
