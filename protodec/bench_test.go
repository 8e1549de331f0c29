package protodec_test

import (
	"fmt"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/zerokube/zerokube/internal/workload"
	"github.com/zerokube/zerokube/meta"
	. "github.com/zerokube/zerokube/protodec"
)

// BenchmarkDecodePods decodes the project's benchmark pods (article size,
// about 5 KB of JSON each) one object at a time, as the list and watch
// paths do, from JSON (go-json-experiment, the JSON path's decoder) and
// from protobuf (this package), into the slim and the full pod types and
// meta.Raw, with managedFields skipped as an informer skips them. MB/s is
// of each encoding's own bytes; pods/s compares the two paths.
func BenchmarkDecodePods(b *testing.B) {
	js, pb := benchPods(b, 500, workload.ArticlePodSize)
	m := podMessage(b)
	var jsonBytes, pbBytes int
	for i := range js {
		jsonBytes, pbBytes = jsonBytes+len(js[i]), pbBytes+len(pb[i])
	}
	opts := meta.SkipManagedFields()
	types := []struct {
		name string
		make func() any
	}{
		{"SlimPod", func() any { return new(workload.SlimPod) }},
		{"Pod", func() any { return new(workload.Pod) }},
		{"Raw", func() any { return new(meta.Raw) }},
	}
	for _, ty := range types {
		b.Run(fmt.Sprintf("%s/json", ty.name), func(b *testing.B) {
			b.SetBytes(int64(jsonBytes))
			b.ReportAllocs()
			for b.Loop() {
				for _, j := range js {
					if err := json.Unmarshal(j, ty.make(), lenient, opts); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(len(js)*b.N)/b.Elapsed().Seconds(), "pods/s")
		})
		b.Run(fmt.Sprintf("%s/protobuf", ty.name), func(b *testing.B) {
			d := New(Options{SkipManagedFields: true, Sharer: meta.NewSharer(0), JSON: opts})
			b.SetBytes(int64(pbBytes))
			b.ReportAllocs()
			for b.Loop() {
				for _, p := range pb {
					if err := d.UnmarshalTyped(m, "v1", "Pod", p, ty.make()); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(len(pb)*b.N)/b.Elapsed().Seconds(), "pods/s")
		})
	}
}
