package fakeapiserver

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/websocket"

	"github.com/zerokube/zerokube/fakeapiserver/internal/storage"
	"github.com/zerokube/zerokube/kubeproto"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

// sink is the transport of one watch: chunked HTTP or websocket.
type sink interface {
	write(frame []byte) error
	// cut writes the first half of frame and drops the connection.
	cut(frame []byte)
	// end closes the stream normally.
	end()
}

type chunkedSink struct {
	enc *watchstream.Encoder
	// zip, when set, compresses the stream one gzip member per write, as
	// kube-apiserver compresses a watch list one member per flush
	// (endpoints/handlers/watch.go: perFlushGzipWriter).
	zip *perFlushGzip
	// proto, when set, turns the JSON frames into protobuf ones
	// (protobuf.go).
	proto *protoFrames
}

func (c chunkedSink) write(frame []byte) error {
	if c.proto != nil {
		var err error
		if frame, err = c.proto.convert(frame); err != nil {
			return err
		}
	}
	return c.raw(frame)
}

func (c chunkedSink) raw(b []byte) error {
	if c.zip != nil {
		return c.zip.write(b)
	}
	return c.enc.WriteFrame(b)
}
func (c chunkedSink) end() { _ = c.enc.Close() }
func (c chunkedSink) cut(frame []byte) {
	if c.proto != nil {
		frame, _ = c.proto.convert(frame)
	}
	_ = c.raw(frame[:len(frame)/2])
	// net/http drops the connection without the final chunk.
	panic(http.ErrAbortHandler)
}

type websocketSink struct {
	conn *websocket.Conn
	// proto, when set, sends each event as one binary message holding a
	// bare WatchEvent (no length prefix), as kube-apiserver does.
	proto *protoFrames
	// partial sends each event's object as its PartialObjectMetadata
	// (request.partial).
	partial bool
}

func (c websocketSink) write(frame []byte) error {
	if c.partial {
		frame = partialFrames(frame)
	}
	if c.proto == nil {
		// One event per text message, its trailing newline kept, as
		// kube-apiserver's messages are.
		if err := c.conn.WriteMessage(websocket.TextMessage, frame); err != nil {
			return fmt.Errorf("fakeapiserver: write websocket frame: %w", err)
		}
		return nil
	}
	return c.proto.each(frame, func(ev []byte) error {
		return c.conn.WriteMessage(websocket.BinaryMessage, ev)
	})
}
func (c websocketSink) cut(frame []byte) {
	mt := websocket.TextMessage
	if c.proto != nil {
		mt, frame = websocket.BinaryMessage, c.proto.first(frame)
	}
	_ = c.conn.WriteMessage(mt, frame[:len(frame)/2])
	_ = c.conn.NetConn().Close()
}
func (c websocketSink) end() {
	msg := websocket.FormatCloseMessage(websocket.CloseNormalClosure, "")
	_ = c.conn.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second))
	_ = c.conn.Close()
}

// watchOptions are the validated parameters of a WATCH.
type watchOptions struct {
	store   storage.WatchOptions
	timeout time.Duration
}

func (s *Server) parseWatchOptions(q url.Values) (watchOptions, error) {
	var o watchOptions
	lo, err := parseListOptions(q, true)
	if err != nil {
		return o, err
	}
	o.store = storage.WatchOptions{RV: lo.RV, SendInitial: isTrue(q.Get("sendInitialEvents")),
		Bookmarks: isTrue(q.Get("allowWatchBookmarks"))}
	o.timeout = s.opts.MinRequestTimeout + time.Duration(rand.Int64N(int64(s.opts.MinRequestTimeout)))
	if t := q.Get("timeoutSeconds"); t != "" {
		n, err := strconv.ParseInt(t, 10, 64)
		if err != nil || n < 0 {
			return o, errBadRequest("invalid timeoutSeconds: %q", t)
		}
		if n > 0 {
			o.timeout = time.Duration(n) * time.Second
		}
	}
	return o, nil
}

func (s *Server) handleWatch(w http.ResponseWriter, r *http.Request, req request) {
	q := r.URL.Query()
	o, err := s.parseWatchOptions(q)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	f, err := s.selection(req, q)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if websocket.IsWebSocketUpgrade(r) && r.Header.Get("Origin") == "" {
		s.writeError(w, r, meta.NewStatusError(403, meta.ReasonForbidden, "websocket upgrade without an Origin header"))
		return
	}
	st, err := s.store.Watch(r.Context(), req.res, f, o.store)
	var tooOld storage.TooOldError
	switch {
	case err == nil:
	case errors.As(err, &tooOld):
		// Accepted, then an ERROR event: the way kube-apiserver reports it.
		s.serveWatchError(w, r, newProtoFrames(req), tooOld.Status)
		return
	default:
		s.writeError(w, r, err)
		return
	}
	defer s.store.RemoveWatcher(st.W)
	if o.store.SendInitial && s.takeArmed(&s.faults.cutStreams) {
		s.cutStreamingList(st)
	}
	ctx := r.Context()
	var sk sink
	if websocket.IsWebSocketUpgrade(r) {
		var cancel context.CancelFunc
		if sk, ctx, cancel = s.upgrade(w, r, newProtoFrames(req), req.partial); sk == nil {
			return
		}
		defer cancel()
	} else {
		sk = s.chunked(w, r, o.store.SendInitial, newProtoFrames(req))
	}
	s.serveStream(ctx, st, sk, o.timeout)
}

// chunked starts a chunked watch reply. A watch list (sendInitialEvents)
// is gzipped for a client that accepts it, as kube-apiserver v1.37 does
// with its WatchListCompression gate (beta, on by default; watch.go:
// watchResponseWriter.BeginStream); other watches never are.
func (s *Server) chunked(w http.ResponseWriter, r *http.Request, watchList bool, proto *protoFrames) sink {
	gz := watchList && !s.opts.DisableWatchListCompression && acceptsGzip(r.Header.Get("Accept-Encoding"))
	w.Header().Set("Content-Type", "application/json")
	if proto != nil {
		w.Header().Set("Content-Type", kubeproto.WatchContentType)
	}
	w.Header().Set("Cache-Control", "no-cache, private")
	if gz {
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Add("Vary", "Accept-Encoding")
	}
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	sk := chunkedSink{enc: watchstream.NewEncoder(w, watchstream.EncoderOptions{}), proto: proto}
	if gz {
		sk.zip = &perFlushGzip{w: w, pool: &s.gzips}
	}
	return sk
}

// upgrade switches to websocket. It returns a context that ends when the
// client goes away (a reader goroutine sees the close).
func (s *Server) upgrade(w http.ResponseWriter, r *http.Request, proto *protoFrames, partial bool) (sink, context.Context, context.CancelFunc) {
	up := websocket.Upgrader{
		CheckOrigin:  func(*http.Request) bool { return true }, // presence was checked
		Subprotocols: acceptedSubprotocols(websocket.Subprotocols(r)),
	}
	conn, err := up.Upgrade(w, r, nil)
	if err != nil {
		return nil, nil, nil // Upgrade already answered
	}
	ctx, cancel := context.WithCancel(r.Context())
	go func() {
		defer cancel()
		for {
			if _, _, err := conn.NextReader(); err != nil {
				// The client is gone: closing ends a write blocked on it
				// too (a slowed body's, which waits for the close).
				_ = conn.Close()
				return
			}
		}
	}()
	return websocketSink{conn: conn, proto: proto, partial: partial}, ctx, func() { cancel(); _ = conn.Close(); s.conns.forget(connOf(r)) }
}

// acceptedSubprotocols drops the bearer-token pseudo-protocol, leaving at
// most one real one for the upgrader to accept.
func acceptedSubprotocols(offered []string) []string {
	for _, p := range offered {
		if !strings.HasPrefix(p, bearerProtocolPrefix) {
			return []string{p}
		}
	}
	return nil
}

const bearerProtocolPrefix = "base64url.bearer.authorization.k8s.io."

func tokenFromSubprotocols(r *http.Request) string {
	for _, p := range websocket.Subprotocols(r) {
		if t, ok := strings.CutPrefix(p, bearerProtocolPrefix); ok {
			b, err := base64.RawURLEncoding.DecodeString(t)
			if err == nil {
				return string(b)
			}
		}
	}
	return ""
}

// serveWatchError answers 200 and one ERROR event, then ends.
func (s *Server) serveWatchError(w http.ResponseWriter, r *http.Request, proto *protoFrames, se *meta.StatusError) {
	if websocket.IsWebSocketUpgrade(r) {
		sk, _, cancel := s.upgrade(w, r, proto, false) // an ERROR event is a Status, never converted
		if sk == nil {
			return
		}
		defer cancel()
		_ = sk.write(statusFrame(se))
		sk.end()
		return
	}
	// Compressed like any other event of a watch list: the stream had
	// begun before the error was known.
	sk := s.chunked(w, r, isTrue(r.URL.Query().Get("sendInitialEvents")), proto)
	_ = sk.write(statusFrame(se))
}

// serveStream writes the start of the watch, then live frames, until the
// watch ends, times out, or the client leaves.
func (s *Server) serveStream(ctx context.Context, st *storage.WatchStart, sk sink, timeout time.Duration) {
	w := st.W
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	if s.sendInitial(w, sk, st.Initial) != nil {
		return
	}
	if st.EndEarly {
		sk.end() // fault: before the initial-events-end bookmark
		return
	}
	if st.InitialEnd != nil && s.send(w, sk, st.InitialEnd) != nil {
		return
	}
	for _, frame := range st.Replay {
		if s.send(w, sk, frame) != nil {
			return
		}
	}
	var batch []byte // reused by coalesce
	var tick <-chan time.Time
	if w.Bookmarks() {
		t := time.NewTicker(s.opts.BookmarkInterval)
		defer t.Stop()
		tick = t.C
	}
	for {
		if w.Stalled() {
			// Half-open: nothing more is written, nothing is closed.
			<-ctx.Done()
			return
		}
		select {
		case frame, ok := <-w.Frames():
			if !ok {
				sk.end()
				return
			}
			var frames []byte
			var n int
			var closed bool
			frames, batch, n, closed = s.coalesce(w, sk, frame, batch)
			if s.sendN(w, sk, frames, n) != nil {
				return
			}
			if closed {
				sk.end()
				return
			}
		case <-tick:
			s.bookmark(w)
		case <-w.Poked():
		case <-deadline.C:
			s.finish(w, sk)
			return
		case <-ctx.Done():
			return
		}
	}
}

// finish ends a watch at its deadline: a last bookmark when allowed (as
// kube-apiserver sends one shortly before), after the frames queued.
func (s *Server) finish(w *storage.Watcher, sk sink) {
	if w.Bookmarks() {
		s.bookmark(w)
	}
	for {
		select {
		case frame, ok := <-w.Frames():
			if !ok || s.send(w, sk, frame) != nil {
				sk.end()
				return
			}
		default:
			sk.end()
			return
		}
	}
}

// maxCoalesce bounds the frames written with one flush.
const maxCoalesce = 64

// coalesce appends to buf the frame and whatever else is already queued (up
// to maxCoalesce frames), so a watcher that is behind catches up with one
// write and one flush instead of one per event: clients must not expect
// chunks to line up with events. Websocket messages stay one per event,
// and a stream armed to be cut is not batched. closed reports that the
// server ended the watch after these frames. buf is the caller's reusable
// buffer, returned grown; frame itself is shared and never appended to.
func (s *Server) coalesce(w *storage.Watcher, sk sink, frame, buf []byte) (frames, newBuf []byte, n int, closed bool) {
	if _, ok := sk.(chunkedSink); !ok || w.CutArmed() || len(w.Frames()) == 0 {
		return frame, buf, 1, false
	}
	buf = append(buf[:0], frame...)
	for n = 1; n < maxCoalesce; n++ {
		select {
		case f, ok := <-w.Frames():
			if !ok {
				return buf, buf, n, true
			}
			buf = append(buf, f...)
		default:
			return buf, buf, n, false
		}
	}
	return buf, buf, n, false
}

// initialFlushAt is how much of the initial events is gathered into one
// write and flush. kube-apiserver flushes a watch when no more events are
// ready, and all the initial ones are: a flush per event cost a write
// syscall per object on a streaming list.
const initialFlushAt = 64 << 10

// sendInitial writes the initial ADDED events. Over chunked HTTP they go
// out in batches of about initialFlushAt bytes (one gzip member each when
// compressed), built in a pooled buffer straight from the stored bytes; a
// websocket gets one message per event, and a stream armed to be cut gets
// single frames so the cut lands mid-event.
func (s *Server) sendInitial(w *storage.Watcher, sk sink, initial []*storage.Object) error {
	bp := s.bufs.get()
	defer s.bufs.put(bp)
	_, batch := sk.(chunkedSink)
	b, n := (*bp)[:0], 0
	for _, o := range initial {
		b = watchstream.AppendFrame(b, meta.Added, o.Full())
		n++
		if batch && len(b) < initialFlushAt && !w.CutArmed() {
			continue
		}
		if err := s.sendN(w, sk, b, n); err != nil {
			*bp = b
			return err
		}
		b, n = b[:0], 0
	}
	*bp = b
	if n == 0 {
		return nil
	}
	return s.sendN(w, sk, b, n)
}

// sendN is send for a write that holds n frames.
func (s *Server) sendN(w *storage.Watcher, sk sink, frames []byte, n int) error {
	if err := s.send(w, sk, frames); err != nil {
		return err
	}
	s.stats.events.Add(int64(n - 1))
	return nil
}

// send writes one frame, unless a fault cuts the stream at it.
func (s *Server) send(w *storage.Watcher, sk sink, frame []byte) error {
	if w.TakeCut() {
		s.log.Info("fakeapiserver: fault: cutting a watch mid-event", "resource", w.Resource().Qualified())
		sk.cut(frame)
		return errCut
	}
	if err := sk.write(frame); err != nil {
		return err
	}
	s.stats.events.Add(1)
	return nil
}

// bookmark queues a periodic BOOKMARK, unless a fault turned them off.
func (s *Server) bookmark(w *storage.Watcher) {
	if !s.faults.noBookmarks.Load() {
		s.store.Bookmark(w)
	}
}

// errCut ends a stream whose connection a fault cut.
var errCut = errors.New("fakeapiserver: watch cut by fault injection")
