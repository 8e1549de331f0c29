package fakeapiserver

import (
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// gzipThreshold is the body size above which a reply is compressed for a
// client that accepts gzip: kube-apiserver's defaultGzipThresholdBytes
// (apiserver endpoints/handlers/responsewriters, deferredResponseWriter),
// which compresses a body larger than 128 KiB and sends smaller ones as
// they are, whatever the client asked.
const gzipThreshold = 128 << 10

// gzipLevel is kube-apiserver's gzipContentEncodingLevel: level 1 costs the
// least CPU for a ratio close to the best (responsewriters/compression.go).
const gzipLevel = gzip.BestSpeed

// acceptsGzip reports whether an Accept-Encoding header asks for gzip the
// way kube-apiserver reads it (responsewriters.ContentEncodingSupported):
// one of its comma-separated tokens is exactly "gzip" once trimmed, so
// "gzip;q=1" or "x-gzip" do not count.
func acceptsGzip(h string) bool {
	for tok := range strings.SplitSeq(h, ",") {
		if strings.TrimSpace(tok) == "gzip" {
			return true
		}
	}
	return false
}

// gzipPool recycles gzip writers: a writer holds about 800 KB of
// compressor state, too much to make per reply. The zero value is ready.
type gzipPool struct{ p sync.Pool }

func (gp *gzipPool) get(w io.Writer) *gzip.Writer {
	if zw, ok := gp.p.Get().(*gzip.Writer); ok {
		zw.Reset(w)
		return zw
	}
	zw, _ := gzip.NewWriterLevel(w, gzipLevel) // the level is valid
	return zw
}

func (gp *gzipPool) put(zw *gzip.Writer) {
	zw.Reset(io.Discard) // drop the reference to the response
	gp.p.Put(zw)
}

// gzipReply compresses a reply whose Content-Length, declared before its
// header is written, is over gzipThreshold: it then drops the length
// (the compressed one is not known up front), says Content-Encoding: gzip
// and Vary: Accept-Encoding as kube-apiserver does, and writes the body
// through a pooled gzip writer. Every reply but a watch declares its
// length, so a small one passes through untouched and costs nothing more.
type gzipReply struct {
	http.ResponseWriter
	pool        *gzipPool
	zw          *gzip.Writer // set once compressing
	wroteHeader bool
}

func (g *gzipReply) WriteHeader(code int) {
	if g.wroteHeader {
		return
	}
	g.wroteHeader = true
	h := g.Header()
	if n, err := strconv.Atoi(h.Get("Content-Length")); err == nil && n > gzipThreshold && h.Get("Content-Encoding") == "" {
		h.Del("Content-Length")
		h.Set("Content-Encoding", "gzip")
		h.Add("Vary", "Accept-Encoding")
		g.zw = g.pool.get(g.ResponseWriter)
	}
	g.ResponseWriter.WriteHeader(code)
}

func (g *gzipReply) Write(p []byte) (int, error) {
	if !g.wroteHeader {
		g.WriteHeader(http.StatusOK)
	}
	if g.zw != nil {
		return g.zw.Write(p)
	}
	return g.ResponseWriter.Write(p)
}

// close ends the gzip stream, if there is one, and recycles its writer.
func (g *gzipReply) close() {
	if g.zw == nil {
		return
	}
	_ = g.zw.Close() // the client may have left; nothing more to tell it
	g.pool.put(g.zw)
	g.zw = nil
}

// perFlushGzip compresses a watch stream one gzip member per write, each
// flushed to the client at once. The member's data is sync-flushed before
// the member is closed, as kube-apiserver's perFlushGzipWriter does, so it
// lands in a block that is not the member's last: Go's gzip.Reader (what
// net/http and client-go inflate with) then returns it without first
// waiting for the next member's header. The writer goes back to the pool
// after every write, so an idle watch holds no compressor.
type perFlushGzip struct {
	w    http.ResponseWriter
	pool *gzipPool
}

func (p *perFlushGzip) write(b []byte) error {
	zw := p.pool.get(p.w)
	defer p.pool.put(zw)
	if _, err := zw.Write(b); err != nil {
		return fmt.Errorf("fakeapiserver: gzip watch frames: %w", err)
	}
	if err := zw.Flush(); err != nil {
		return fmt.Errorf("fakeapiserver: gzip watch frames: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("fakeapiserver: end gzip member: %w", err)
	}
	p.w.(http.Flusher).Flush()
	return nil
}
