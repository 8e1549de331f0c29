package protodec_test

import (
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/internal/workload"
	"github.com/zerokube/zerokube/kubeproto"
	"github.com/zerokube/zerokube/meta"
	. "github.com/zerokube/zerokube/protodec"
)

// TestARawWithoutManagedFieldsIsTheJSONPathsEvenWhenMetadataOccursTwice:
// meta.Raw under SkipManagedFields is transcoded without managedFields and
// its metadata decoded from the protobuf (raw.go). Two messages one after
// the other are one merged message to a protobuf parser, so metadata (with
// managedFields in each) occurs twice; the Raw must still be the one the
// JSON path gives for the merged object's JSON, bytes included.
func TestARawWithoutManagedFieldsIsTheJSONPathsEvenWhenMetadataOccursTwice(t *testing.T) {
	m, _ := kubeproto.MessageFor("v1", "Pod")
	pods := (workload.Config{PodSize: 9 << 10}).Pods(2)
	var pb []byte
	for _, js := range pods {
		var err error
		pb, err = kubeproto.AppendProto(pb, m, js)
		require.NoError(t, err)
	}
	j2, err := kubeproto.AppendJSON(nil, m, pb)
	require.NoError(t, err)
	require.Contains(t, string(j2), `"managedFields"`)
	same[meta.Raw](t, m, pb, j2)

	var r meta.Raw
	require.NoError(t, New(Options{SkipManagedFields: true}).UnmarshalTyped(m, "v1", "Pod", pb, &r))
	require.NotContains(t, string(r.Bytes()), `"managedFields"`)
	require.Equal(t, meta.TypeMeta{Kind: "Pod", APIVersion: "v1"}, r.TypeMeta)
	require.NotEmpty(t, r.Labels)
}

// TestASliceOfOneHoldsOneAsOnTheJSONPath: a cached object keeps its
// slices, and most hold one element. A first capacity of four (as protodec
// had) kept three empty OwnerReferences on every pod, 240 bytes a meta.Raw
// more than the JSON path's (measured: 5,316 against 5,083 B retained a
// pod in bench/clientgo's zk-raw).
func TestASliceOfOneHoldsOneAsOnTheJSONPath(t *testing.T) {
	m, _ := kubeproto.MessageFor("v1", "Pod")
	js := (workload.Config{PodSize: 9 << 10, AtomicLists: true}).Pods(1)[0]
	pb, err := kubeproto.AppendProto(nil, m, js)
	require.NoError(t, err)
	d := New(Options{SkipManagedFields: true})

	var r meta.Raw
	require.NoError(t, d.Unmarshal(m, pb, &r))
	require.Len(t, r.OwnerReferences, 1)
	require.Equal(t, 1, cap(r.OwnerReferences))
	require.Equal(t, len(r.Bytes()), cap(r.Bytes()), "the JSON a Raw keeps")

	var fromJSON, fromProto workload.Pod
	require.NoError(t, json.Unmarshal(js, &fromJSON, meta.SkipManagedFields()))
	require.NoError(t, d.Unmarshal(m, pb, &fromProto))
	require.Equal(t, cap(fromJSON.OwnerReferences), cap(fromProto.OwnerReferences))
	require.Equal(t, cap(fromJSON.Spec.Containers), cap(fromProto.Spec.Containers))
}
