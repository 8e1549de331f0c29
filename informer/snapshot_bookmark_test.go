package informer_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
)

// A quiet resource's snapshot follows the bookmarks: the resourceVersion
// saved is the last one the server vouched for, not that of the last
// change. Otherwise every restart after the history is compacted (minutes,
// on a busy cluster) would resume from a resourceVersion gone, and relist.
func TestASavedSnapshotFollowsTheBookmarks(t *testing.T) {
	e, dir := newEnv(t), t.TempDir()
	seed(t, e, "a", "b")
	a := startAgent(t, e, dir, nil)
	quiet := a.inf.LastSyncResourceVersion()
	// Writes elsewhere move the server's resourceVersion; the informer's
	// namespace stays quiet and hears of them only through bookmarks.
	_, err := e.srv.Create(meta.GVR{Version: "v1", Resource: "namespaces"}, map[string]any{"metadata": map[string]any{"name": "elsewhere"}})
	require.NoError(t, err)
	for i := range 3 {
		_, err := e.srv.Create(cmGVR, map[string]any{"metadata": map[string]any{"name": "x" + strconv.Itoa(i), "namespace": "elsewhere"}})
		require.NoError(t, err)
	}
	moved := strconv.FormatInt(e.srv.ResourceVersion(), 10)
	require.Eventually(t, func() bool {
		for _, ev := range a.tr.of(observe.StageBookmark) {
			if ev.ResourceVersion == moved {
				return true
			}
		}
		return false
	}, wait, 5*time.Millisecond, "a bookmark at %s", moved)
	a.stop()
	saved := a.tr.of(observe.StageSnapshotSaved)
	require.Len(t, saved, 1)
	require.NotEqual(t, quiet, saved[0].ResourceVersion, "the snapshot is not at the last change's resourceVersion")
	require.Equal(t, moved, saved[0].ResourceVersion, "the snapshot is at the last bookmark's resourceVersion")

	// And a restart resumes from there.
	second := startAgent(t, e, dir, nil)
	loaded := second.tr.of(observe.StageSnapshotLoaded)
	require.Len(t, loaded, 1)
	require.Equal(t, moved, loaded[0].ResourceVersion)
	ctx, cancel := context.WithTimeout(t.Context(), wait)
	defer cancel()
	require.NoError(t, second.inf.WaitForSync(ctx))
}
