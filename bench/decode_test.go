package bench_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/internal/workload"
	"github.com/zerokube/zerokube/meta"
)

// BenchmarkDecodeFloor is the floor itself: jsontext validation of the
// paginated PodList replies with the decoders' options (floorOptions), in
// MB/s.
func BenchmarkDecodeFloor(b *testing.B) {
	for _, n := range podCounts() {
		f := podFixture(b, n, workload.ArticlePodSize)
		b.Run(fmt.Sprintf("pods=%d", n), func(b *testing.B) {
			b.SetBytes(f.pageBytes())
			iters := 0
			for b.Loop() {
				for _, p := range f.pages {
					if !jsontext.Value(p).IsValid(floorOptions) {
						b.Fatal("invalid")
					}
				}
				iters++
			}
			perOp := b.Elapsed().Seconds() / float64(iters)
			b.ReportMetric(float64(n)/perOp, "objects/s")
		})
	}
}

// BenchmarkListDecode is the client's cost of a full LIST: every page
// served from memory through apiclient.ListAll (HTTP transport, item
// streaming, decoding), into meta.Raw, a slim struct and the full pod.
func BenchmarkListDecode(b *testing.B) {
	for _, n := range podCounts() {
		f := podFixture(b, n, workload.ArticlePodSize)
		for _, paged := range []bool{true, false} {
			pages, mode := f.pages, "paginated"
			if !paged {
				pages, mode = [][]byte{f.wholeList()}, "whole"
			}
			name := fmt.Sprintf("pods=%d/%s", n, mode)
			b.Run(name+"/type=raw", func(b *testing.B) { listBench[meta.Raw](b, f, pages, paged) })
			b.Run(name+"/type=slim", func(b *testing.B) { listBench[workload.SlimPod](b, f, pages, paged) })
			b.Run(name+"/type=full", func(b *testing.B) { listBench[workload.Pod](b, f, pages, paged) })
		}
	}
}

func listBench[T any, P meta.PtrObject[T]](b *testing.B, f *fixture, pages [][]byte, paged bool) {
	c := memClient(b, pages)
	defer c.CloseIdleConnections()
	fl := floor(b, pages)
	opts := apiclient.ListOptions{}
	if paged {
		opts.Limit = pageSize
	}
	var bytes int64
	for _, p := range pages {
		bytes += int64(len(p))
	}
	b.SetBytes(bytes)
	b.ReportAllocs()
	ctx := context.Background()
	iters := 0
	var spent cost
	for b.Loop() {
		got := 0
		var err error
		spent.add(measure(func() {
			_, err = apiclient.ListAll[T, P](ctx, c, podsRef, opts, nil, func(P) error { got++; return nil })
		}))
		if err != nil {
			b.Fatal(err)
		}
		if got != f.n {
			b.Fatalf("listed %d objects, want %d", got, f.n)
		}
		iters++
	}
	reportRate(b, iters, f.n, spent, fl)
}
