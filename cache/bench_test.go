package cache

import (
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"
)

// benchObjects makes n objects over 100 namespaces, each with a unique-ish
// "node" (50 objects per node, as on a busy cluster).
func benchObjects(n int) []*obj {
	out := make([]*obj, n)
	for i := range out {
		out[i] = &obj{
			ns:   fmt.Sprintf("ns-%03d", i%100),
			name: fmt.Sprintf("pod-%07d", i),
			tags: []string{fmt.Sprintf("node-%05d", i/50)},
		}
	}
	return out
}

func benchStore(objs []*obj) *Store[*obj] {
	s := New(objKey, testIndexers())
	s.Replace(objs)
	return s
}

// BenchmarkByIndex looks up one namespace (1% of the objects) and one node (50
// objects). ByIndex allocates the result slice once; ByIndexAppend with a reused
// buffer allocates nothing.
func BenchmarkByIndex(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		s := benchStore(benchObjects(n))
		b.Run(fmt.Sprintf("objects=%d/namespace/ByIndex", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				got, _ := s.ByIndex(NamespaceIndex, "ns-042")
				if len(got) != n/100 {
					b.Fatal(len(got))
				}
			}
		})
		b.Run(fmt.Sprintf("objects=%d/node/ByIndex", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if got, _ := s.ByIndex("tags", "node-00042"); len(got) != 50 {
					b.Fatal(len(got))
				}
			}
		})
		b.Run(fmt.Sprintf("objects=%d/node/ByIndexAppend", n), func(b *testing.B) {
			b.ReportAllocs()
			buf := make([]*obj, 0, 64)
			for b.Loop() {
				buf, _ = s.ByIndexAppend(buf[:0], "tags", "node-00042")
			}
		})
	}
}

// BenchmarkReplace swaps in 10k objects with two indexes, as a relist does.
func BenchmarkReplace(b *testing.B) {
	objs := benchObjects(10_000)
	s := benchStore(objs)
	b.ReportAllocs()
	for b.Loop() {
		s.Replace(objs)
	}
	b.ReportMetric(float64(b.N*len(objs))/b.Elapsed().Seconds(), "objects/s")
}

// BenchmarkUpdate moves objects between index values, the steady-state write.
func BenchmarkUpdate(b *testing.B) {
	objs := benchObjects(10_000)
	s := benchStore(objs)
	moved := benchObjects(10_000)
	for _, o := range moved {
		o.tags = []string{"elsewhere"}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			s.Update(moved[(i/2)%len(moved)])
		} else {
			s.Update(objs[(i/2)%len(objs)])
		}
		i++
	}
}

// BenchmarkBytesPerObject reports what the store retains per object on top of
// the objects themselves: the key string, the map entry and the index entries.
// Objects are allocated before the first measurement. "two-indexes" is a
// namespace index (100 objects per value) and a node index (50 per value);
// "unique-index" files each object under its own value, the case where small
// slice buckets save a map per value.
func BenchmarkBytesPerObject(b *testing.B) {
	const n = 10_000
	unique := Indexers[*obj]{"uid": func(o *obj) ([]string, error) { return []string{o.name}, nil }}
	cases := []struct {
		name     string
		indexers Indexers[*obj]
	}{
		{"no-index", nil},
		{"two-indexes", testIndexers()},
		{"unique-index", unique},
	}
	objs := benchObjects(n)
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var perObj float64
			for b.Loop() {
				before := heapInUse()
				s := New(objKey, c.indexers)
				s.Replace(objs)
				perObj = float64(heapInUse()-before) / n
				runtime.KeepAlive(s)
			}
			b.ReportMetric(perObj, "B/obj")
		})
	}
}

// BenchmarkGetDuringReplace measures reader latency while another goroutine
// replaces 10k objects over and over: invariant 2 says a reader waits at most
// for the swap, never for the rebuild.
func BenchmarkGetDuringReplace(b *testing.B) {
	objs := benchObjects(10_000)
	s := benchStore(objs)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				s.Replace(objs)
			}
		}
	}()
	lat := make([]time.Duration, 0, 1<<16)
	i := 0
	for b.Loop() {
		start := time.Now()
		s.GetByKey(objKey(objs[i%len(objs)]))
		if len(lat) < cap(lat) {
			lat = append(lat, time.Since(start))
		}
		i++
	}
	close(stop)
	<-done
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1e3, "p99-µs")
	b.ReportMetric(float64(lat[len(lat)-1].Nanoseconds())/1e3, "max-µs")
}

func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
