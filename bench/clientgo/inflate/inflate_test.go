package inflate

import (
	"bytes"
	stdgzip "compress/gzip"
	"io"
	"testing"

	kpgzip "github.com/klauspost/compress/gzip"

	"github.com/zerokube/zerokube/internal/workload"
)

// listGzip is a page of 2,000 pods of the comparison workload, gzipped at
// level 1 as kube-apiserver does.
func listGzip(tb testing.TB) (plain, gz []byte) {
	tb.Helper()
	items := workload.Config{PodSize: 9 << 10, AtomicLists: true}.Pods(2000)
	plain = workload.Pages("PodList", "v1", "1000", items, 0)[0]
	var buf bytes.Buffer
	w, err := stdgzip.NewWriterLevel(&buf, 1)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := w.Write(plain); err != nil {
		tb.Fatal(err)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return plain, buf.Bytes()
}

// BenchmarkInflate reads the page through each reader into io.Discard with
// 64 KiB reads; MB/s counts the uncompressed bytes.
func BenchmarkInflate(b *testing.B) {
	plain, gz := listGzip(b)
	b.Logf("page %d bytes, gzipped %d (%.2f)", len(plain), len(gz), float64(len(gz))/float64(len(plain)))
	buf := make([]byte, 64<<10)
	b.Run("reader=compress-gzip", func(b *testing.B) {
		b.SetBytes(int64(len(plain)))
		b.ReportAllocs()
		var zr stdgzip.Reader
		for b.Loop() {
			if err := zr.Reset(bytes.NewReader(gz)); err != nil {
				b.Fatal(err)
			}
			drain(b, &zr, buf, len(plain))
		}
	})
	b.Run("reader=klauspost-gzip", func(b *testing.B) {
		b.SetBytes(int64(len(plain)))
		b.ReportAllocs()
		var zr kpgzip.Reader
		for b.Loop() {
			if err := zr.Reset(bytes.NewReader(gz)); err != nil {
				b.Fatal(err)
			}
			drain(b, &zr, buf, len(plain))
		}
	})
}

func drain(b *testing.B, r io.Reader, buf []byte, want int) {
	n, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{r}, buf)
	if err != nil || int(n) != want {
		b.Fatal(n, err)
	}
}
