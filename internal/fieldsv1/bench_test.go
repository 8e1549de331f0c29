package fieldsv1_test

import (
	"testing"

	"github.com/zerokube/zerokube/internal/fieldsv1"
	"github.com/zerokube/zerokube/internal/workload"
)

// BenchmarkFromJSON builds the field set of the workload's pods, compact
// JSON of about 5 KB each: the cost the workload generator pays per
// managedFields entry, and the hot path of this package's JSON scanner.
func BenchmarkFromJSON(b *testing.B) {
	pods := workload.Config{}.Generate(64).Pods
	size := 0
	for _, p := range pods {
		size += len(p)
	}
	atomic := map[string]bool{"containerStatuses": true, "tolerations": true, "sources": true}
	b.SetBytes(int64(size / len(pods)))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if len(fieldsv1.FromJSON(pods[i%len(pods)], atomic)) == 0 {
			b.Fatal("empty set")
		}
		i++
	}
}
