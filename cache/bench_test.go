package cache

import (
	"fmt"
	"runtime"
	"testing"
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
// the objects themselves: the key string, the map entry and the index entries
// (namespace and node). Objects are allocated before the first measurement.
func BenchmarkBytesPerObject(b *testing.B) {
	const n = 10_000
	objs := benchObjects(n)
	var perObj float64
	for b.Loop() {
		before := heapInUse()
		s := benchStore(objs)
		after := heapInUse()
		perObj = float64(after-before) / n
		runtime.KeepAlive(s)
	}
	b.ReportMetric(perObj, "B/obj")
}

func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
