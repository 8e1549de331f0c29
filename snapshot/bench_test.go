package snapshot_test

import (
	"bytes"
	"context"
	"io"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/snapshot"
)

// BenchmarkDecode loads 5,000 slim pods. Its bytes/op are the objects it
// returns plus the reader's buffers, not the file: alloc-B/obj stays near
// what each decoded pod costs (obj-B, measured by decoding them from
// memory) while file-B/obj, the size of each record, is not allocated
// again. The "whole-file" variant reads the file into memory first, as a
// reader without streaming would, for comparison.
func BenchmarkDecode(b *testing.B) {
	const n = 5000
	data := encode(b, snapshot.Header{Identity: testID, ResourceVersion: "1"}, mkPods(n))
	objBytes := retainedPerPod(b, data)
	run := func(b *testing.B, read func() io.Reader) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			_, got, err := snapshot.Decode[pod](context.Background(), read(), testID, snapshot.ReadOptions{})
			if err != nil || len(got) != n {
				b.Fatal(err, len(got))
			}
		}
		b.ReportMetric(float64(len(data))/n, "file-B/obj")
		b.ReportMetric(objBytes, "obj-B")
	}
	b.Run("streaming", func(b *testing.B) {
		run(b, func() io.Reader { return &onlyReader{bytes.NewReader(data)} })
	})
	b.Run("whole-file", func(b *testing.B) {
		run(b, func() io.Reader {
			whole, _ := io.ReadAll(&onlyReader{bytes.NewReader(data)})
			return bytes.NewReader(whole)
		})
	})
}

// onlyReader hides bytes.Reader's WriterTo, so reading costs what a file's does.
type onlyReader struct{ r io.Reader }

func (o *onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// retainedPerPod is the heap one decoded pod keeps alive.
func retainedPerPod(b *testing.B, data []byte) float64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, got, err := snapshot.Decode[pod](context.Background(), bytes.NewReader(data), testID, snapshot.ReadOptions{})
	require.NoError(b, err)
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(got)
	return float64(after.HeapAlloc-before.HeapAlloc) / float64(len(got))
}
