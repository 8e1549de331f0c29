package fakeapiserver

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// The faults of this file.
const (
	FaultSlowBody    Fault = "slow-body"    // a reply's body stalled or trickled (SlowBodies)
	FaultCorruptBody Fault = "corrupt-body" // a reply's body corrupted (CorruptBodies)
)

// SlowBody describes replies whose body the server sends slowly, as an
// overloaded API server or a proxy holding a connection does: the status
// and headers go out at once, then After bytes of the body, then one byte
// every Every (a trickle that keeps a per-read watchdog content while
// nothing useful arrives), or nothing more at all when Every is 0 (a
// stall). The reply goes on so until it is complete or the client leaves.
type SlowBody struct {
	// Count replies (Forever: every one until ClearFaults) matching Verb
	// and QueryContains (empty matches all) are slowed.
	Count int
	// Verb: list or watch (a streaming list is a watch; QueryContains
	// "sendInitialEvents=true" singles it out).
	Verb          string
	QueryContains string
	After         int
	Every         time.Duration
	// Bytes go out each Every (0: one): a steady pace that a loaded
	// machine keeps, where a byte a millisecond would lose its ticks.
	Bytes   int
	corrupt bool // CorruptBodies
}

// CorruptBody describes replies whose body the server corrupts (for
// CorruptBodies): After bytes go out as they are, every byte after them
// inverted (XOR 0xff), at full speed. With After 4 on a protobuf watch
// (Options.DisableWatchListCompression for a streaming list, which is
// gzipped otherwise), the first frame keeps its length and loses its
// envelope: a frame no client can decode.
type CorruptBody struct {
	Count         int // Forever: every matching reply until ClearFaults
	Verb          string
	QueryContains string
	After         int
}

// CorruptBodies corrupts the body of the next b.Count matching replies.
func (s *Server) CorruptBodies(b CorruptBody) {
	s.SlowBodies(SlowBody{Count: b.Count, Verb: b.Verb, QueryContains: b.QueryContains, After: b.After, corrupt: true})
}

// SlowBodies slows the body of the next b.Count matching replies.
func (s *Server) SlowBodies(b SlowBody) {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	s.faults.slow = append(s.faults.slow, &b)
}

// slowBody returns w wrapped to send its body slowly when a SlowBody is
// due for the request, else w.
func (s *Server) slowBody(w http.ResponseWriter, r *http.Request, verb string) http.ResponseWriter {
	s.faults.mu.Lock()
	var hit *SlowBody
	for i, b := range s.faults.slow {
		if (b.Verb == "" || b.Verb == verb) && strings.Contains(r.URL.RawQuery, b.QueryContains) {
			c := *b
			hit = &c
			if b.Count != Forever {
				if b.Count--; b.Count <= 0 {
					s.faults.slow = append(s.faults.slow[:i], s.faults.slow[i+1:]...)
				}
			}
			break
		}
	}
	s.faults.mu.Unlock()
	if hit == nil {
		return w
	}
	if hit.corrupt {
		s.record(FaultCorruptBody, "verb", verb, "path", r.URL.Path, "after", hit.After)
	} else {
		s.record(FaultSlowBody, "verb", verb, "path", r.URL.Path, "after", hit.After, "every", hit.Every)
	}
	return &slowWriter{ResponseWriter: w, r: r, left: hit.After, every: hit.Every, step: max(hit.Bytes, 1), corrupt: hit.corrupt}
}

// slowWriter writes left bytes, then one byte per every (none when every
// is 0), until the request's context ends; or, corrupt, every byte after
// the first left inverted.
type slowWriter struct {
	http.ResponseWriter
	r       *http.Request
	left    int
	every   time.Duration
	step    int // bytes a tick
	corrupt bool
	// paceStart is when the trickle began, paced what it has sent since.
	paceStart time.Time
	paced     int
}

func (w *slowWriter) Write(b []byte) (int, error) {
	return w.write(w.ResponseWriter, w.Flush, w.r.Context().Done(), b)
}

// write sends b to dst as the fault says: left bytes as they are, then
// the rest inverted (corrupt) or a byte per every, flushing each, until
// done.
func (w *slowWriter) write(dst io.Writer, flush func(), done <-chan struct{}, b []byte) (int, error) {
	n := 0
	if w.left > 0 {
		k := min(len(b), w.left)
		m, err := dst.Write(b[:k])
		n, w.left = n+m, w.left-m
		if err != nil {
			return n, err
		}
		b = b[k:]
	}
	if len(b) == 0 {
		return n, nil
	}
	if w.corrupt {
		bad := make([]byte, len(b))
		for i, c := range b {
			bad[i] = c ^ 0xff
		}
		m, err := dst.Write(bad)
		return n + m, err
	}
	flush() // what went out so far reaches the client
	if w.every <= 0 {
		<-done
		return n, net.ErrClosed
	}
	t := time.NewTicker(w.every)
	defer t.Stop()
	for len(b) > 0 {
		select {
		case <-done:
			return n, net.ErrClosed
		case <-t.C:
		}
		// The pace is kept over the whole body: a tick a loaded machine
		// delivered late (or dropped) sends what was due meanwhile.
		if w.paceStart.IsZero() {
			w.paceStart = time.Now().Add(-w.every)
		}
		due := int(time.Since(w.paceStart)/w.every)*w.step - w.paced
		k := min(len(b), due)
		if k <= 0 {
			continue
		}
		m, err := dst.Write(b[:k])
		n, w.paced = n+m, w.paced+m
		if err != nil {
			return n, err
		}
		flush()
		b = b[k:]
	}
	return n, nil
}

// Hijack hands a websocket upgrade the connection, slowed or corrupted
// from the first frame on as a chunked body is from its first byte (the
// handshake's reply, gorilla's first write, goes out as it is): without
// it the upgrade failed with a 500 no API server sends.
func (w *slowWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	return &slowConn{Conn: c, w: w, closed: make(chan struct{})}, brw, nil
}

// slowConn is a hijacked connection under a body fault.
type slowConn struct {
	net.Conn
	w         *slowWriter
	shookHand bool
	closed    chan struct{}
	closeOnce sync.Once
}

func (c *slowConn) Write(b []byte) (int, error) {
	if !c.shookHand {
		c.shookHand = true
		return c.Conn.Write(b)
	}
	return c.w.write(c.Conn, func() {}, c.closed, b)
}

func (c *slowConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return c.Conn.Close()
}

func (w *slowWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap is for http.ResponseController.
func (w *slowWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
