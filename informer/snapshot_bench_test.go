package informer

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/zerokube/zerokube/cache"
	"github.com/zerokube/zerokube/fifo"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/snapshot"
)

// BenchmarkSnapshotCapture is what a periodic snapshot costs the informer's
// other goroutines: capture holds the reflector's gate (its queue writes
// wait) while it copies the cache's pointers under the cache's read lock
// (the processing loop's writes wait). pause-µs is that time per snapshot;
// encode-ms is the encoding that follows outside every lock, for scale.
func BenchmarkSnapshotCapture(b *testing.B) {
	for _, n := range []int{5000, 50000} {
		b.Run(fmt.Sprintf("objects=%d", n), func(b *testing.B) {
			key := func(p *pod) string { return meta.Key(p) }
			store := cache.New(key, nil)
			for i := range n {
				p := mkPod(fmt.Sprintf("pod-%06d", i), fmt.Sprint(i+1))
				p.Labels = map[string]string{"app": "web"}
				store.Add(p)
			}
			q := fifo.NewInOrder(fifo.InOrderOptions[*pod]{Key: key, KnownObjects: store})
			o := Options[*pod]{Snapshot: SnapshotOptions{Dir: b.TempDir()}}.withDefaults()
			s := newSnapshotter[pod](o, newConsistentPoint(store, q, newRecord(time.Minute), func() string { return "" }, o.Clock))
			s.point.rv = fmt.Sprint(n)
			var items []*pod
			for b.Loop() {
				c, err := s.point.capture(context.Background(), true)
				if err != nil {
					b.Fatal(err)
				}
				items = c.items
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "pause-µs")
			b.StopTimer()
			start := time.Now()
			if err := snapshot.Encode(context.Background(), io.Discard, snapshot.Header{ResourceVersion: "1"}, items); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(time.Since(start).Microseconds())/1000, "encode-ms")
		})
	}
}
