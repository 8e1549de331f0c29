package snapshot_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/snapshot"
)

// layout names the offset classes of a small snapshot: the header (magic,
// version, length, JSON, checksum), each record's length and body, and the
// trailer checksum.
type layout struct {
	data        []byte
	headerEnd   int   // end of the header checksum
	lengths     []int // offsets of the records' length fields
	trailer     int   // offset of the trailer checksum
	headerCRCAt int
}

func smallSnapshot(t *testing.T) layout {
	data := encode(t, snapshot.Header{Identity: testID, ResourceVersion: "99"}, mkPods(4))
	n := int(binary.BigEndian.Uint32(data[12:]))
	l := layout{data: data, headerCRCAt: 16 + n, headerEnd: 16 + n + 4, trailer: len(data) - 4}
	for off := l.headerEnd; off < l.trailer; {
		l.lengths = append(l.lengths, off)
		off += 4 + int(binary.BigEndian.Uint32(data[off:]))
	}
	require.Len(t, l.lengths, 4)
	return l
}

func (l layout) class(off int) string {
	switch {
	case off >= 12 && off < 16:
		return "header length"
	case off < l.headerCRCAt:
		return "header"
	case off < l.headerEnd:
		return "header checksum"
	case off >= l.trailer:
		return "trailer checksum"
	}
	for _, at := range l.lengths {
		if off >= at && off < at+4 {
			return "record length"
		}
	}
	return "record body"
}

// A crash mid-write leaves a prefix of the file: every prefix is rejected
// as truncated, whether or not the reader knows the file's size.
func TestATruncatedSnapshotIsRejectedAtEveryOffset(t *testing.T) {
	l := smallSnapshot(t)
	for n := range len(l.data) {
		for _, size := range []bool{false, true} {
			_, got, err := decode(l.data[:n], size)
			requireReason(t, err, snapshot.ReasonTruncated)
			require.Nil(t, got, "cut at %d (%s)", n, l.class(n))
		}
	}
}

// Damage anywhere is rejected: as corrupt, except that a damaged length
// (of the header or of a record) may point past the end and read as
// truncated.
func TestACorruptByteIsRejectedAtEveryOffset(t *testing.T) {
	l := smallSnapshot(t)
	seen := map[string]int{}
	for off := range len(l.data) {
		for _, flip := range []byte{0x01, 0x80, 0xff} {
			bad := bytes.Clone(l.data)
			bad[off] ^= flip
			class := l.class(off)
			seen[class]++
			want := []snapshot.Reason{snapshot.ReasonCorrupt}
			if class == "record length" || class == "header length" {
				want = append(want, snapshot.ReasonTruncated)
			}
			for _, size := range []bool{false, true} {
				_, got, err := decode(bad, size)
				if err == nil {
					t.Fatalf("byte %d (%s) ^ %#x accepted", off, class, flip)
				}
				if r, _ := snapshot.ReasonOf(err); !slices.Contains(want, r) {
					t.Fatalf("byte %d (%s) ^ %#x: %v", off, class, flip, err)
				}
				require.Nil(t, got)
			}
		}
	}
	require.Len(t, seen, 6, "every offset class was damaged: %v", seen)
}

func TestBytesAfterTheTrailerAreRejected(t *testing.T) {
	l := smallSnapshot(t)
	_, _, err := decode(append(bytes.Clone(l.data), 0), false)
	requireReason(t, err, snapshot.ReasonCorrupt)
	require.ErrorContains(t, err, "bytes after the trailer")
}

// A Save that dies while writing (here: its write function fails half way,
// as a crash would stop it) leaves the previous snapshot, whole, and no
// temporary file behind.
func TestAFailedSaveLeavesThePreviousSnapshot(t *testing.T) {
	dir := snapshot.Dir{Path: t.TempDir()}
	ctx := t.Context()
	old := mkPods(5)
	require.NoError(t, snapshot.SaveTo(ctx, dir, "pods", snapshot.Header{Identity: testID, ResourceVersion: "10"}, old))
	boom := errors.New("killed")
	err := dir.Save(ctx, "pods", func(w io.Writer) error {
		full := encode(t, snapshot.Header{Identity: testID, ResourceVersion: "20"}, mkPods(50))
		_, _ = w.Write(full[:len(full)/2])
		return boom
	})
	require.ErrorIs(t, err, boom)
	h, got, err := snapshot.LoadFrom[pod](ctx, dir, "pods", testID, snapshot.ReadOptions{})
	require.NoError(t, err)
	require.Equal(t, "10", h.ResourceVersion)
	require.Equal(t, old, got)
	entries, _ := os.ReadDir(dir.Path)
	require.Len(t, entries, 1, "only pods.snap remains")
}

// A process killed before its rename leaves a temporary file: Load ignores
// it and the next Save removes it. Every prefix of the new file in that
// temporary file is a crash at one point of the write.
func TestAKilledSaveLeavesThePreviousSnapshotUsable(t *testing.T) {
	dir := snapshot.Dir{Path: t.TempDir(), NoSync: true}
	ctx := t.Context()
	require.NoError(t, snapshot.SaveTo(ctx, dir, "pods", snapshot.Header{Identity: testID, ResourceVersion: "10"}, mkPods(3)))
	next := encode(t, snapshot.Header{Identity: testID, ResourceVersion: "20"}, mkPods(4))
	tmp := filepath.Join(dir.Path, "pods.snap.tmp-123")
	for n := 0; n < len(next); n += 7 {
		require.NoError(t, os.WriteFile(tmp, next[:n], 0o600))
		h, got, err := snapshot.LoadFrom[pod](ctx, dir, "pods", testID, snapshot.ReadOptions{})
		require.NoError(t, err)
		require.Equal(t, "10", h.ResourceVersion)
		require.Len(t, got, 3)
	}
	require.NoError(t, snapshot.SaveTo(ctx, dir, "pods", snapshot.Header{Identity: testID, ResourceVersion: "30"}, mkPods(2)))
	_, err := os.Stat(tmp)
	require.ErrorIs(t, err, os.ErrNotExist, "the leftover was removed")
}

// A snapshot damaged in place (a disk error, a manual edit) is rejected,
// and the next Save replaces it.
func TestADamagedFileIsRejectedAndReplacedByTheNextSave(t *testing.T) {
	dir := snapshot.Dir{Path: t.TempDir()}
	ctx := t.Context()
	require.NoError(t, snapshot.SaveTo(ctx, dir, "pods", snapshot.Header{Identity: testID, ResourceVersion: "10"}, mkPods(3)))
	path := filepath.Join(dir.Path, "pods.snap")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data[:len(data)-9], 0o600))
	_, _, err = snapshot.LoadFrom[pod](ctx, dir, "pods", testID, snapshot.ReadOptions{})
	requireReason(t, err, snapshot.ReasonTruncated)
	require.NoError(t, snapshot.SaveTo(ctx, dir, "pods", snapshot.Header{Identity: testID, ResourceVersion: "11"}, mkPods(3)))
	h, _, err := snapshot.LoadFrom[pod](ctx, dir, "pods", testID, snapshot.ReadOptions{})
	require.NoError(t, err)
	require.Equal(t, "11", h.ResourceVersion)
}
