package meta_test

import (
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/zerokube/zerokube/internal/workload"
	"github.com/zerokube/zerokube/meta"
)

// BenchmarkRaw decodes the article's 5 KB pods (managedFields included) into
// a meta.Raw, beside the decode floor of the same bytes: the cost a Raw
// informer pays per object on top of validating it. Both accept duplicate
// names, as the list and watch decoders do.
var lenient = jsontext.AllowDuplicateNames(true)

func BenchmarkRaw(b *testing.B) {
	pods := workload.Config{}.Generate(64).Pods
	size := 0
	for _, p := range pods {
		size += len(p)
	}
	b.Run("floor=validate", func(b *testing.B) {
		b.SetBytes(int64(size / len(pods)))
		i := 0
		for b.Loop() {
			if !jsontext.Value(pods[i%len(pods)]).IsValid(lenient) {
				b.Fatal("invalid")
			}
			i++
		}
	})
	b.Run("into=Raw", func(b *testing.B) {
		b.SetBytes(int64(size / len(pods)))
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			var r meta.Raw
			if err := json.Unmarshal(pods[i%len(pods)], &r, lenient); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}
