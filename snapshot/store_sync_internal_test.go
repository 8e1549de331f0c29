package snapshot

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A Save that a crash cannot undo: the new bytes are fsynced in the
// temporary file before the rename puts them under the snapshot's name,
// and the directory is fsynced after it, so that the rename itself is
// durable. Checked by what the target file holds at each fsync.
func TestSaveSyncsTheFileBeforeAndTheDirectoryAfterTheRename(t *testing.T) {
	type step struct{ what, path, target string }
	var steps []step
	dir := t.TempDir()
	target := filepath.Join(dir, "pods"+Suffix)
	d := Dir{Path: dir}
	d.synced = func(what, path string) {
		b, err := os.ReadFile(target)
		if err != nil {
			b = []byte("<none>")
		}
		steps = append(steps, step{what, path, string(b)})
	}
	save := func(content string) {
		require.NoError(t, d.Save(context.Background(), "pods", func(w io.Writer) error {
			_, err := io.WriteString(w, content)
			return err
		}))
	}
	save("one")
	save("two")
	require.Len(t, steps, 4, "a file and a directory fsync per Save: %v", steps)
	for i, want := range []struct{ before, after string }{{"<none>", "one"}, {"one", "two"}} {
		file, dirSync := steps[2*i], steps[2*i+1]
		require.Equal(t, "file", file.what, "Save %d: the temporary file first", i+1)
		require.Equal(t, dir, filepath.Dir(file.path))
		require.True(t, strings.HasPrefix(filepath.Base(file.path), "pods"+Suffix+".tmp-"), "the temporary file, not the target: %s", file.path)
		require.Equal(t, want.before, file.target, "Save %d: the file is synced before the rename", i+1)
		require.Equal(t, step{"dir", dir, want.after}, dirSync, "Save %d: the directory is synced after the rename", i+1)
	}
}

func TestNoSyncSyncsNothing(t *testing.T) {
	d := Dir{Path: t.TempDir(), NoSync: true}
	d.synced = func(what, path string) { t.Errorf("NoSync, yet %s %s was synced", what, path) }
	require.NoError(t, d.Save(context.Background(), "pods", func(w io.Writer) error { return nil }))
}
