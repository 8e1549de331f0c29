package workqueue

import (
	"context"
	"sync"
	"testing"

	"github.com/zerokube/zerokube/clock/clocktest"
)

// BenchmarkAddGetDone is one item's whole trip through the queue on one
// goroutine: the queue's own cost, without contention.
func BenchmarkAddGetDone(b *testing.B) {
	q := New[int](Options[int]{})
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		q.Add(i)
		item, _ := q.Get(ctx)
		q.Done(item)
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "items/s")
}

// BenchmarkParallel has 4 workers taking items that the benchmark goroutine
// adds, 1024 distinct keys so de-duplication plays a part.
func BenchmarkParallel(b *testing.B) {
	q := New[int](Options[int]{})
	ctx := context.Background()
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				item, err := q.Get(ctx)
				if err != nil {
					return
				}
				q.Done(item)
			}
		}()
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		q.Add(i & 1023)
		i++
	}
	if err := q.ShutDownWithDrain(ctx); err != nil {
		b.Fatal(err)
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "adds/s")
}

// BenchmarkAddRateLimited measures the default limiter's bookkeeping plus a
// delayed add (a heap push and a timer), then forgets the item.
func BenchmarkAddRateLimited(b *testing.B) {
	clock := clocktest.New()
	q := New[int](Options[int]{Clock: clock})
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		q.AddRateLimited(i & 1023)
		q.Forget(i & 1023)
		i++
	}
	q.ShutDown()
}
