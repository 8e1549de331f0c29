package snapshot_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/snapshot"
)

func TestDecodeReturnsWhatEncodeWrote(t *testing.T) {
	saved := time.Date(2026, 12, 2, 18, 0, 0, 0, time.UTC)
	pods := mkPods(300)
	data := encode(t, snapshot.Header{Identity: testID, ResourceVersion: "4242", Saved: saved}, pods)
	for _, size := range []bool{false, true} {
		h, got, err := decode(data, size)
		require.NoError(t, err)
		require.Equal(t, "4242", h.ResourceVersion)
		require.Equal(t, int64(300), h.Count)
		require.True(t, saved.Equal(h.Saved))
		require.Equal(t, testID, h.Identity)
		require.Equal(t, pods, got)
	}
}

func TestAnEmptyCacheMakesAValidSnapshot(t *testing.T) {
	data := encode(t, snapshot.Header{Identity: testID, ResourceVersion: "7"}, nil)
	h, got, err := decode(data, true)
	require.NoError(t, err)
	require.Empty(t, got)
	require.Equal(t, "7", h.ResourceVersion)
}

func TestAnIdentityMismatchNamesTheField(t *testing.T) {
	data := encode(t, snapshot.Header{Identity: testID, ResourceVersion: "1"}, mkPods(3))
	cases := map[string]func(*snapshot.Identity){
		"server":        func(id *snapshot.Identity) { id.Server = "https://10.0.0.1:6443" },
		"group":         func(id *snapshot.Identity) { id.Group = "apps" },
		"version":       func(id *snapshot.Identity) { id.Version = "v2" },
		"resource":      func(id *snapshot.Identity) { id.Resource = "deployments" },
		"namespace":     func(id *snapshot.Identity) { id.Namespace = "" },
		"labelSelector": func(id *snapshot.Identity) { id.LabelSelector = "app=db" },
		"fieldSelector": func(id *snapshot.Identity) { id.FieldSelector = "spec.nodeName=n1" },
		"type":          func(id *snapshot.Identity) { id.Type = "main.Pod" },
		"shard":         func(id *snapshot.Identity) { id.Shard = "shardRange(object.metadata.uid, '0x0', '0x8')" },
		"managedFields": func(id *snapshot.Identity) { id.ManagedFields = true },
		"transform":     func(id *snapshot.Identity) { id.Transform = "v2" },
		"request":       func(id *snapshot.Identity) { id.Request = "PartialObjectMetadata" },
		"cluster":       func(id *snapshot.Identity) { id.Cluster = "5e0c4a9e-0000-4000-8000-000000000000" },
	}
	for field, change := range cases {
		t.Run(field, func(t *testing.T) {
			want := testID
			change(&want)
			_, got, err := snapshot.Decode[pod](t.Context(), bytes.NewReader(data), want, snapshot.ReadOptions{})
			requireReason(t, err, snapshot.ReasonIdentity)
			require.Nil(t, got)
			var se *snapshot.Error
			require.ErrorAs(t, err, &se)
			require.Equal(t, field, se.Field)
			require.Contains(t, err.Error(), field)
		})
	}
}

// A reader that cannot learn the cluster's id yet loads a snapshot of any
// cluster, and gets the snapshot's in the header to check later; every
// other field is still compared.
func TestAnUnknownClusterIsTakenFromTheSnapshot(t *testing.T) {
	id := testID
	id.Cluster = "uid-of-kube-system"
	data := encode(t, snapshot.Header{Identity: id, ResourceVersion: "1"}, mkPods(2))
	want := testID // Cluster ""
	unknown := snapshot.ReadOptions{ClusterUnknown: true}
	h, got, err := snapshot.Decode[pod](t.Context(), bytes.NewReader(data), want, unknown)
	require.NoError(t, err)
	require.Len(t, got, 2)
	require.Equal(t, "uid-of-kube-system", h.Cluster)
	_, _, err = snapshot.Decode[pod](t.Context(), bytes.NewReader(data), want, snapshot.ReadOptions{})
	requireReason(t, err, snapshot.ReasonIdentity)
	want.Resource = "deployments"
	_, _, err = snapshot.Decode[pod](t.Context(), bytes.NewReader(data), want, unknown)
	requireReason(t, err, snapshot.ReasonIdentity)
}

// rewriteVersion sets the format version and fixes the header checksum,
// as a future writer would have written it.
func rewriteVersion(data []byte, v uint32) []byte {
	out := bytes.Clone(data)
	binary.BigEndian.PutUint32(out[8:], v)
	n := binary.BigEndian.Uint32(out[12:])
	end := 16 + int(n)
	binary.BigEndian.PutUint32(out[end:], crc32.Checksum(out[:end], crc32.MakeTable(crc32.Castagnoli)))
	return out
}

func TestAnotherFormatVersionIsRejectedAsSuch(t *testing.T) {
	data := rewriteVersion(encode(t, snapshot.Header{Identity: testID, ResourceVersion: "1"}, mkPods(3)), 2)
	_, _, err := decode(data, true)
	requireReason(t, err, snapshot.ReasonVersion)
	require.Contains(t, err.Error(), `version is "2", want "1"`)
}

func TestARecordThatNoLongerDecodesIsADecodeError(t *testing.T) {
	data := encode(t, snapshot.Header{Identity: testID, ResourceVersion: "1"}, mkPods(3))
	type strict struct {
		Phase int `json:"phase"` // was a string
	}
	_, got, err := snapshot.Decode[strict](t.Context(), bytes.NewReader(data), testID, snapshot.ReadOptions{})
	requireReason(t, err, snapshot.ReasonDecode)
	require.Nil(t, got, "nothing of a rejected snapshot is returned")
}

func TestARecordOverTheLimitIsRejectedBeforeItIsRead(t *testing.T) {
	data := encode(t, snapshot.Header{Identity: testID, ResourceVersion: "1"}, mkPods(1))
	_, _, err := snapshot.Decode[pod](t.Context(), bytes.NewReader(data), testID, snapshot.ReadOptions{MaxRecord: 10})
	requireReason(t, err, snapshot.ReasonCorrupt)
	require.Contains(t, err.Error(), "exceeds the limit of 10")
}

func TestDecodingStopsWithTheContext(t *testing.T) {
	data := encode(t, snapshot.Header{Identity: testID, ResourceVersion: "1"}, mkPods(10))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, got, err := snapshot.Decode[pod](ctx, bytes.NewReader(data), testID, snapshot.ReadOptions{})
	require.ErrorIs(t, err, context.Canceled)
	require.Nil(t, got)
}

func TestWriterRefusesACountItDoesNotKeep(t *testing.T) {
	var b bytes.Buffer
	w, err := snapshot.NewWriter(&b, snapshot.Header{Identity: testID, Count: 2})
	require.NoError(t, err)
	require.NoError(t, w.Record([]byte(`{}`)))
	require.ErrorContains(t, w.Close(), "1 records announced")
	require.NoError(t, w.Record([]byte(`{}`)))
	require.ErrorContains(t, w.Record([]byte(`{}`)), "more records than")
	require.ErrorContains(t, w.Record(nil), "more records than")
	require.NoError(t, w.Close())
}
