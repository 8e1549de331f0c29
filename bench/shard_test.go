package bench_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/zerokube/zerokube/bench"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/internal/workload"
	"github.com/zerokube/zerokube/shard"
)

// BenchmarkShardMemory is the memory one replica keeps when N replicas
// share 50,000 pods (article-sized, the informer's default type and
// options), each caching one shard: the heap the synced informer retains,
// per replica and per cached pod. The server here ignores the selector, so
// the informer filters on its own: what it retains is the same as with a
// server that filters (only the transfer differs).
func BenchmarkShardMemory(b *testing.B) {
	const n = 50_000
	f := podFixture(b, n, workload.ArticlePodSize)
	for _, shards := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("pods=%d/shards=%d", n, shards), func(b *testing.B) {
			c := memClient(b, f.pages)
			defer c.CloseIdleConnections()
			sel, err := shard.Of(0, shards)
			if err != nil {
				b.Fatal(err)
			}
			var retained uint64
			cached, iters := 0, 0
			for b.Loop() {
				base := bench.HeapAfterGC()
				sh, err := informer.NewShard(sel)
				if err != nil {
					b.Fatal(err)
				}
				r, err := startInformer[workload.Pod](c, informer.Options[*workload.Pod]{Shard: sh})
				if err != nil {
					b.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				err = r.inf.WaitForSync(ctx)
				cancel()
				if err != nil {
					b.Fatal(err)
				}
				after := bench.HeapAfterGC()
				cached = r.inf.Store().Len()
				runtime.KeepAlive(r)
				if err := r.stop(); err != nil {
					b.Fatal(err)
				}
				retained += after - min(base, after)
				iters++
			}
			perReplica := float64(retained) / float64(iters)
			b.ReportMetric(perReplica/1e6, "MB/replica")
			b.ReportMetric(float64(cached), "pods/replica")
			b.ReportMetric(perReplica/float64(max(cached, 1)), "B/pod")
		})
	}
}
