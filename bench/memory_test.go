package bench_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/bench"
	"github.com/zerokube/zerokube/cache"
	"github.com/zerokube/zerokube/internal/workload"
	"github.com/zerokube/zerokube/meta"
)

// BenchmarkRetained measures what a cache of the workload costs: heap bytes
// still reachable after GC per cached object, in a cache.Store with the
// namespace index (as the informer keeps it), after a paginated LIST from
// memory. "nomf" variants drop managedFields as they arrive (what
// Options.Decode.Transform is for). It also reports the peak heap during the list
// as a multiple of the final retained heap.
//
// The size=9k variants are issue #8's comparison with client-go v0.37,
// whose typed informer retained about 19.5 KB per 9.2 KB pod, managedFields
// kept (clientGoConfig): the full type here keeps them too, full-nomf is
// the informer's default.
func BenchmarkRetained(b *testing.B) {
	for _, n := range podCounts() {
		retainedTypes(b, fmt.Sprintf("pods=%d", n), podFixture(b, n, workload.ArticlePodSize))
	}
	retainedTypes(b, "pods=5000/size=9k", configFixture(b, 5000, clientGoConfig))
}

// retainedTypes runs the Retained benchmark of fixture f for every type.
func retainedTypes(b *testing.B, name string, f *fixture) {
	b.Run(name+"/type=raw", func(b *testing.B) { retainedBench[meta.Raw](b, f, false) })
	b.Run(name+"/type=slim", func(b *testing.B) { retainedBench[workload.SlimPod](b, f, false) })
	b.Run(name+"/type=slim-fullmeta", func(b *testing.B) { retainedBench[workload.SlimPodFullMeta](b, f, false) })
	b.Run(name+"/type=slim-fullmeta-nomf", func(b *testing.B) { retainedBench[workload.SlimPodFullMeta](b, f, true) })
	b.Run(name+"/type=full", func(b *testing.B) { retainedBench[workload.Pod](b, f, false) })
	b.Run(name+"/type=full-nomf", func(b *testing.B) { retainedBench[workload.Pod](b, f, true) })
}

func retainedBench[T any, P meta.PtrObject[T]](b *testing.B, f *fixture, dropMF bool) {
	c := memClient(b, f.pages)
	defer c.CloseIdleConnections()
	ctx := context.Background()
	var retained, peak uint64
	iters := 0
	for b.Loop() {
		base := bench.HeapAfterGC()
		ph := bench.StartPeakHeap(0)
		store := cache.New(func(p P) string { return meta.Key(p) }, cache.Indexers[P]{
			cache.NamespaceIndex: cache.NamespaceIndexFunc(func(p P) string { return p.GetNamespace() }),
		})
		_, err := apiclient.ListAll[T, P](ctx, c, podsRef, apiclient.ListOptions{Limit: pageSize}, nil, func(p P) error {
			if m, ok := any(p).(meta.FullMeta); ok && dropMF {
				m.GetObjectMeta().ManagedFields = nil
			}
			store.Add(p)
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		pk := ph.Stop()
		after := bench.HeapAfterGC()
		if store.Len() != f.n {
			b.Fatalf("cached %d objects, want %d", store.Len(), f.n)
		}
		runtime.KeepAlive(store)
		retained += after - min(base, after)
		peak += pk - min(base, pk)
		iters++
	}
	perObj := float64(retained) / float64(iters) / float64(f.n)
	b.ReportMetric(perObj, "B/obj")
	b.ReportMetric(perObj/(float64(f.itemBytes)/float64(f.n)), "x-json")
	b.ReportMetric(float64(peak)/float64(max(retained, 1)), "peak-x-final")
}
