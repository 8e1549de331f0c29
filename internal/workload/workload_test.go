package workload_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/internal/workload"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

func TestPodsAreDeterministicAndIndependent(t *testing.T) {
	c := workload.Config{Seed: 7, ReplicaSets: 10}
	d := c.Generate(50)
	require.Equal(t, d.Pods, c.Generate(50).Pods, "same seed, same bytes")
	require.Equal(t, d.Pods[42], c.PodJSON(42), "a pod does not depend on the others")
	require.NotEqual(t, d.Pods[42], workload.Config{Seed: 8}.PodJSON(42), "another seed, another pod")
}

func TestPodSizes(t *testing.T) {
	for _, tc := range []struct {
		size     int
		atomic   bool
		min, max int
		hasMF    bool
	}{
		{size: workload.SmallPodSize, min: 1000, max: 1600},
		{size: workload.ArticlePodSize, min: 4800, max: 6000, hasMF: true},
		{size: 9 << 10, min: 8800, max: 11000, hasMF: true},
		{size: 20 << 10, min: 19000, max: 22000, hasMF: true},
		{size: 9 << 10, atomic: true, min: 9000, max: 9800, hasMF: true},
	} {
		t.Run(fmt.Sprintf("%d/atomic=%v", tc.size, tc.atomic), func(t *testing.T) {
			d := workload.Config{PodSize: tc.size, ReplicaSets: 5, AtomicLists: tc.atomic}.Generate(20)
			mean := int(d.PodBytes()) / len(d.Pods)
			require.GreaterOrEqual(t, mean, tc.min)
			require.LessOrEqual(t, mean, tc.max)
			var p workload.Pod
			require.NoError(t, json.Unmarshal(d.Pods[3], &p))
			require.Equal(t, tc.hasMF, len(p.ManagedFields) > 0)
		})
	}
}

// The full Pod type must hold every field the generator writes, or the
// "full struct" benchmarks would silently skip part of the JSON.
func TestFullTypesRoundTrip(t *testing.T) {
	c := workload.Config{ReplicaSets: 3}
	d := c.Generate(3)
	check := func(b []byte, v any) {
		t.Helper()
		require.NoError(t, json.Unmarshal(b, v, json.RejectUnknownMembers(true)))
		out, err := json.Marshal(v, json.Deterministic(true))
		require.NoError(t, err)
		require.JSONEq(t, string(b), string(out))
	}
	check(d.Pods[1], new(workload.Pod))
	check(d.Deployments[1], new(workload.Deployment))
	check(d.ReplicaSets[1], new(workload.ReplicaSet))
}

func TestPagesCarryContinueTokens(t *testing.T) {
	items := workload.Config{PodSize: workload.SmallPodSize, ReplicaSets: 5}.Generate(25).Pods
	pages := workload.Pages("PodList", "v1", "123", items, 10)
	require.Len(t, pages, 3)
	var seen int
	for n, page := range pages {
		var l struct {
			Kind     string           `json:"kind"`
			Metadata meta.ListMeta    `json:"metadata"`
			Items    []jsontext.Value `json:"items"`
		}
		require.NoError(t, json.Unmarshal(page, &l))
		require.Equal(t, "PodList", l.Kind)
		require.Equal(t, "123", l.Metadata.ResourceVersion)
		for _, it := range l.Items {
			require.Equal(t, items[seen], []byte(it))
			seen++
		}
		if n == len(pages)-1 {
			require.Empty(t, l.Metadata.Continue)
			continue
		}
		start, err := workload.PageIndex(l.Metadata.Continue)
		require.NoError(t, err)
		require.Equal(t, seen, start)
		require.Equal(t, int64(len(items)-seen), *l.Metadata.RemainingItemCount)
	}
	require.Equal(t, len(items), seen)
}

func TestEmptyListIsOnePage(t *testing.T) {
	pages := workload.Pages("PodList", "v1", "5", nil, 10)
	require.Len(t, pages, 1)
	require.True(t, jsontext.Value(bytes.TrimSpace(pages[0])).IsValid())
}

func TestWatchFramesAreJSONLines(t *testing.T) {
	c := workload.Config{PodSize: workload.SmallPodSize}
	objs := c.PodEvents(5, 2, 100)
	var stream []byte
	for _, o := range objs {
		stream = watchstream.AppendFrame(stream, meta.Modified, o)
	}
	lines := bytes.Split(bytes.TrimSuffix(stream, []byte("\n")), []byte("\n"))
	require.Len(t, lines, 5)
	for i, l := range lines {
		var ev struct {
			Type   meta.EventType `json:"type"`
			Object workload.Pod   `json:"object"`
		}
		require.NoError(t, json.Unmarshal(l, &ev))
		require.Equal(t, meta.Modified, ev.Type)
		require.Equal(t, "Pod", ev.Object.Kind)
		require.Equal(t, fmt.Sprint(100+i), ev.Object.ResourceVersion)
	}
}

func TestWithTypeMeta(t *testing.T) {
	require.Equal(t, `{"kind":"Pod","apiVersion":"v1","metadata":{}}`,
		string(workload.WithTypeMeta([]byte(`{"metadata":{}}`), "Pod", "v1")))
	require.Equal(t, `{"kind":"Pod","apiVersion":"v1"}`, string(workload.WithTypeMeta([]byte(`{}`), "Pod", "v1")))
}

func Example() {
	c := workload.Config{Seed: 1, PodSize: workload.ArticlePodSize, ReplicaSets: 2}
	d := c.Generate(3)
	var p workload.Pod
	if err := json.Unmarshal(d.Pods[0], &p); err != nil {
		panic(err)
	}
	fmt.Println(p.Namespace, p.Name, p.Status.Phase, len(d.Deployments), len(d.ReplicaSets))
	// Output: team-00 checkout-000-r2f5tx85xh-vdzbx Running 2 2
}
