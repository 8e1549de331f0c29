package protodec_test

import (
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/internal/workload"
	"github.com/zerokube/zerokube/kubeproto"
	"github.com/zerokube/zerokube/meta"
	. "github.com/zerokube/zerokube/protodec"
)

var lenient = jsontext.AllowDuplicateNames(true)

func podMessage(t testing.TB) kubeproto.Message {
	m, ok := kubeproto.MessageFor("v1", "Pod")
	require.True(t, ok)
	return m
}

// benchPods returns n of the project's benchmark pods as JSON and as the
// protobuf kubeproto's transcoder makes of them.
func benchPods(t testing.TB, n, size int) (js, pb [][]byte) {
	m := podMessage(t)
	js = workload.Config{PodSize: size}.Pods(n)
	for _, j := range js {
		b, err := kubeproto.AppendProto(nil, m, j)
		require.NoError(t, err)
		pb = append(pb, b)
	}
	return js, pb
}

// sameAsJSON decodes every pod both ways into a fresh T and compares.
func sameAsJSON[T any](t *testing.T, js, pb [][]byte, d *Decoder, jopts json.Options) {
	t.Helper()
	m := podMessage(t)
	for i := range js {
		var fromJSON, fromProto T
		require.NoError(t, json.Unmarshal(js[i], &fromJSON, lenient, jopts))
		require.NoError(t, d.Unmarshal(m, pb[i], &fromProto), "pod %d", i)
		require.Equal(t, fromJSON, fromProto, "pod %d", i)
	}
}

func TestTheBenchmarkPodsDecodeAsTheirJSONDoes(t *testing.T) {
	js, pb := benchPods(t, 50, workload.ArticlePodSize)
	rich, richPB := benchPods(t, 20, 9<<10)
	js, pb = append(js, rich...), append(pb, richPB...)
	skip := New(Options{SkipManagedFields: true, JSON: meta.SkipManagedFields()})
	keep := New(Options{})
	t.Run("Pod", func(t *testing.T) { sameAsJSON[workload.Pod](t, js, pb, skip, meta.SkipManagedFields()) })
	t.Run("SlimPod", func(t *testing.T) { sameAsJSON[workload.SlimPod](t, js, pb, skip, meta.SkipManagedFields()) })
	t.Run("SlimPodFullMeta", func(t *testing.T) {
		sameAsJSON[workload.SlimPodFullMeta](t, js, pb, skip, meta.SkipManagedFields())
	})
	t.Run("PodWithManagedFields", func(t *testing.T) {
		// managedFields are kept as JSON: their transcoded form must be
		// the same JSON value, not the same bytes.
		m := podMessage(t)
		for i := range js {
			var fromJSON, fromProto workload.Pod
			require.NoError(t, json.Unmarshal(js[i], &fromJSON))
			require.NoError(t, keep.Unmarshal(m, pb[i], &fromProto))
			requireSameJSON(t, fromJSON.ManagedFields, fromProto.ManagedFields)
			fromJSON.ManagedFields, fromProto.ManagedFields = nil, nil
			require.Equal(t, fromJSON, fromProto, "pod %d", i)
		}
	})
}

// requireSameJSON compares two JSON values by what they decode to.
func requireSameJSON(t *testing.T, want, got []byte) {
	t.Helper()
	var w, g any
	require.NoError(t, json.Unmarshal(want, &w))
	require.NoError(t, json.Unmarshal(got, &g))
	require.Equal(t, w, g)
}

func TestRawHoldsTheTranscodedJSONWithItsMetadataDecoded(t *testing.T) {
	js, pb := benchPods(t, 20, workload.ArticlePodSize)
	m := podMessage(t)
	d := New(Options{SkipManagedFields: true, JSON: meta.SkipManagedFields()})
	for i := range js {
		var fromJSON, fromProto meta.Raw
		require.NoError(t, json.Unmarshal(js[i], &fromJSON, meta.SkipManagedFields()))
		require.NoError(t, d.UnmarshalTyped(m, "v1", "Pod", pb[i], &fromProto))
		require.Equal(t, fromJSON.ObjectMeta, fromProto.ObjectMeta)
		require.Equal(t, meta.TypeMeta{Kind: "Pod", APIVersion: "v1"}, fromProto.TypeMeta)
		// Raw holds the transcoded JSON, kind and apiVersion first.
		want, err := kubeproto.AppendJSON([]byte(`{"kind":"Pod","apiVersion":"v1",`), m, pb[i])
		require.NoError(t, err)
		want = append(want[:len(`{"kind":"Pod","apiVersion":"v1",`)], want[len(`{"kind":"Pod","apiVersion":"v1",`)+1:]...)
		var w, got any
		require.NoError(t, json.Unmarshal(want, &w))
		delete(w.(map[string]any)["metadata"].(map[string]any), "managedFields") // dropped, as JSON's Raw drops them
		require.NoError(t, json.Unmarshal(fromProto.Bytes(), &got))
		require.Equal(t, w, got, "pod %d", i)
	}
}
