package snapshot_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/snapshot"
)

func TestDirLoadWithoutASnapshotIsNotFound(t *testing.T) {
	dir := snapshot.Dir{Path: filepath.Join(t.TempDir(), "missing")}
	_, _, err := snapshot.LoadFrom[pod](t.Context(), dir, "pods", testID, snapshot.ReadOptions{})
	require.ErrorIs(t, err, snapshot.ErrNotFound)
	require.ErrorIs(t, err, os.ErrNotExist)
	_, ok := snapshot.ReasonOf(err)
	require.False(t, ok, "a missing snapshot is not a rejected one")
}

func TestDirKeepsSnapshotsPrivate(t *testing.T) {
	dir := snapshot.Dir{Path: filepath.Join(t.TempDir(), "snaps")}
	require.NoError(t, snapshot.SaveTo(t.Context(), dir, "pods", snapshot.Header{Identity: testID}, mkPods(1)))
	di, err := os.Stat(dir.Path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), di.Mode().Perm())
	fi, err := os.Stat(filepath.Join(dir.Path, "pods.snap"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
}

func TestDirRefusesNamesThatAreNotPlainFileNames(t *testing.T) {
	dir := snapshot.Dir{Path: t.TempDir()}
	for _, name := range []string{"", "../x", "a/b", `a\b`, ".hidden", "nul\x00"} {
		_, err := dir.Load(t.Context(), name)
		require.ErrorContains(t, err, "invalid name", "%q", name)
	}
}
