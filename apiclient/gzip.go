package apiclient

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/zerokube/zerokube/internal/gunzip"
)

// The client asks for gzip itself (the transport's own transparent gzip is
// off) for two reasons, both measured in bench/clientgo:
//
//  1. kube-apiserver gzips every reply over 128 KiB that a client accepts
//     gzip for, at level 1 (k8s.io/apiserver responsewriters), so a large
//     LIST spends more CPU inflating than decoding: klauspost/compress's
//     inflater does it in about half the CPU of compress/gzip, with 5
//     allocations per reply instead of thousands
//     (bench/clientgo/inflate: BenchmarkInflate). A program built with the
//     tag zerokube_stdgzip inflates with compress/gzip instead, and links
//     one inflater less (package internal/gunzip).
//  2. Over HTTP/2 every read of at least 4 KiB from a body sends a
//     WINDOW_UPDATE frame (one write, encrypted under TLS), and an inflater
//     reads its input 4 KiB at a time. It reads here through a 64 KiB
//     buffer instead.
//
// Config.DisableCompression stops asking: on loopback and fast in-cluster
// links the bytes cost less than the inflating.

// readBufferSize is the size of the reads under an inflater.
const readBufferSize = 64 << 10

// gunzipped is a gzip reply's body, inflated as it is read.
type gunzipped struct {
	body io.ReadCloser
	br   *bufio.Reader
	zr   *gunzip.Reader
	err  error // of the header, reported by the first Read
}

var (
	gzipReaders = sync.Pool{New: func() any { return new(gunzip.Reader) }}
	bufReaders  = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, readBufferSize) }}
)

// inflate replaces a gzipped reply's body with its inflated content and
// drops the headers that describe the compressed form, as the transport's
// own transparent gzip does.
func inflate(resp *http.Response) {
	if resp.Header.Get("Content-Encoding") != "gzip" {
		return
	}
	g := &gunzipped{body: resp.Body, br: bufReaders.Get().(*bufio.Reader), zr: gzipReaders.Get().(*gunzip.Reader)}
	g.br.Reset(resp.Body)
	if err := g.zr.Reset(g.br); err != nil {
		g.err = fmt.Errorf("apiclient: gzip reply: %w", err)
	}
	resp.Body = g
	resp.Header.Del("Content-Encoding")
	resp.Header.Del("Content-Length")
	resp.ContentLength = -1
	resp.Uncompressed = true
}

func (g *gunzipped) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.zr.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("apiclient: gzip reply: %w", err)
		g.err = err
	}
	return n, err
}

// Close closes the reply's body and returns the readers to their pools.
func (g *gunzipped) Close() error {
	err := g.body.Close()
	if g.zr != nil {
		g.br.Reset(nil)
		bufReaders.Put(g.br)
		gzipReaders.Put(g.zr)
		g.zr, g.br = nil, nil
		if g.err == nil {
			g.err = errClosed
		}
	}
	return err
}

var errClosed = fmt.Errorf("apiclient: read of a closed reply body: %w", http.ErrBodyReadAfterClose)
