package fifo_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/zerokube/zerokube/fifo"
)

// benchObjects returns n objects with distinct keys, built before timing.
func benchObjects(n int) []obj {
	objs := make([]obj, n)
	for i := range objs {
		objs[i] = o(fmt.Sprintf("ns-%d/pod-%d", i%50, i), i)
	}
	return objs
}

func benchKinds() []kind { return kinds()[:2] } // DeltaFIFO, InOrder (batch 100)

func noop([]fifo.Delta[obj], bool) error { return nil }

func drain(b *testing.B, q fifo.Queue[obj]) {
	for q.Len() > 0 {
		if err := q.Pop(context.Background(), noop); err != nil {
			b.Fatal(err)
		}
	}
}

func reportOps(b *testing.B, ops int) {
	b.ReportMetric(float64(ops)/b.Elapsed().Seconds(), "ops/s")
}

// BenchmarkAdd: Add of a new key, the watch's ADDED path. Keys are drained
// every 10k adds so the queue stays a realistic size.
func BenchmarkAdd(b *testing.B) {
	objs := benchObjects(10_000)
	for _, k := range benchKinds() {
		b.Run(k.name, func(b *testing.B) {
			q := k.new(nil)
			defer q.Close()
			b.ReportAllocs()
			for i := range b.N {
				if err := q.Add(objs[i%len(objs)]); err != nil {
					b.Fatal(err)
				}
				if i%len(objs) == len(objs)-1 {
					b.StopTimer()
					drain(b, q)
					b.StartTimer()
				}
			}
			reportOps(b, b.N)
		})
	}
}

// BenchmarkUpdate: updates to 1,000 objects that are already queued, the
// path of a busy object while the consumer lags. DeltaFIFO appends to the
// key's list; InOrder appends to the queue.
func BenchmarkUpdate(b *testing.B) {
	objs := benchObjects(1_000)
	for _, k := range benchKinds() {
		b.Run(k.name, func(b *testing.B) {
			q := k.new(nil)
			defer q.Close()
			for _, x := range objs {
				q.Add(x)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if err := q.Update(objs[i%len(objs)]); err != nil {
					b.Fatal(err)
				}
				if i%20_000 == 19_999 { // bound the lists' growth
					b.StopTimer()
					drain(b, q)
					for _, x := range objs {
						q.Add(x)
					}
					b.StartTimer()
				}
			}
			reportOps(b, b.N)
		})
	}
}

// BenchmarkPop: popping one object's delta, with an empty process
// function, from a queue refilled (untimed) with 10,000 objects whenever it
// runs empty. allocs/op is Pop's own.
func BenchmarkPop(b *testing.B) {
	objs := benchObjects(10_000)
	for _, k := range benchKinds() {
		b.Run(k.name, func(b *testing.B) {
			q := k.new(nil)
			defer q.Close()
			popped := 0
			count := func(ds []fifo.Delta[obj], _ bool) error {
				popped += len(ds)
				return nil
			}
			b.ReportAllocs()
			b.ResetTimer()
			for popped < b.N {
				if q.Len() == 0 {
					b.StopTimer()
					for _, x := range objs[:min(len(objs), b.N-popped)] {
						q.Add(x)
					}
					b.StartTimer()
				}
				if err := q.Pop(context.Background(), count); err != nil {
					b.Fatal(err)
				}
			}
			reportOps(b, popped)
		})
	}
}

// BenchmarkAddPop: a producer and a consumer goroutine at full speed, the
// steady state of an informer. One op is one delta through the queue.
func BenchmarkAddPop(b *testing.B) {
	objs := benchObjects(10_000)
	for _, k := range benchKinds() {
		b.Run(k.name, func(b *testing.B) {
			q := k.new(nil)
			defer q.Close()
			done := make(chan error, 1)
			go func() {
				n := 0
				count := func(ds []fifo.Delta[obj], _ bool) error { n += len(ds); return nil }
				var err error
				for n < b.N && err == nil { // every delta is delivered: none merge away
					err = q.Pop(context.Background(), count)
				}
				done <- err
			}()
			b.ReportAllocs()
			for i := range b.N {
				if err := q.Update(objs[i%len(objs)]); err != nil {
					b.Fatal(err)
				}
			}
			if err := <-done; err != nil { // the clock runs until the consumer is through
				b.Fatal(err)
			}
			reportOps(b, b.N)
		})
	}
}

// BenchmarkReplace10k: a relist of 10,000 objects into a queue whose store
// holds 10,000, half of which vanished (so 5,000 tombstones), then popping
// everything: one key a Pop from DeltaFIFO, the whole relist in one Pop from
// DeltaFIFO/whole (as the informer has it).
func BenchmarkReplace10k(b *testing.B) {
	const n = 10_000
	objs := benchObjects(n + n/2)
	list := objs[n/2:]
	st := newStore()
	for _, x := range objs[:n] {
		st.m[x.Key] = x
	}
	for _, k := range append(benchKinds(), kinds()[3]) {
		b.Run(k.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				b.StopTimer()
				q := k.new(st)
				b.StartTimer()
				if err := q.Replace(list, "1"); err != nil {
					b.Fatal(err)
				}
				drain(b, q)
				q.Close()
			}
			b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "objects/s")
		})
	}
}
