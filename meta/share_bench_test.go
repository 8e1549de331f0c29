package meta_test

import (
	"fmt"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/zerokube/zerokube/meta"
)

// BenchmarkSharer measures what a Sharer adds to decoding the labels of
// pods: 1,000 label maps of 4 entries from 50 ReplicaSets, in list order
// (pods of one ReplicaSet side by side), decoded through a Sharer and
// without one. The Sharer's share of an agent's CPU was 9% in issue 32's
// profile; sharing must cost less than the maps it saves building.
func BenchmarkSharer(b *testing.B) {
	var docs [][]byte
	for rs := range 50 {
		for range 20 {
			docs = append(docs, fmt.Appendf(nil, `{"labels":{"app":"web-%d","pod-template-hash":"7f9c8d6b%02d","tier":"frontend","release":"r%d"}}`, rs, rs, rs%7))
		}
	}
	type obj struct {
		Labels map[string]string `json:"labels"`
	}
	run := func(b *testing.B, opts ...json.Options) {
		b.ReportAllocs()
		for b.Loop() {
			for _, d := range docs {
				var o obj
				if err := json.Unmarshal(d, &o, opts...); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(docs)), "ns/map")
	}
	b.Run("shared", func(b *testing.B) {
		run(b, json.WithUnmarshalers(meta.NewSharer(meta.ShareMaps).Unmarshalers()))
	})
	b.Run("plain", func(b *testing.B) { run(b) })
	b.Run("shared-parallel", func(b *testing.B) {
		sh := meta.NewSharer(meta.ShareMaps)
		opt := json.WithUnmarshalers(sh.Unmarshalers())
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			i := 0
			for pb.Next() {
				var o obj
				if err := json.Unmarshal(docs[i%len(docs)], &o, opt); err != nil {
					b.Error(err)
					return
				}
				i++
			}
		})
	})
}
