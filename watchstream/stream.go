package watchstream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/zerokube/zerokube/kubeproto"
	"github.com/zerokube/zerokube/meta"
)

// Event is one decoded watch event.
type Event[P any] struct {
	Type meta.EventType
	// Object is the event's object, decoded once into a fresh value; the
	// Stream keeps no reference to it. For BOOKMARK it is the kind's empty
	// object with only metadata.resourceVersion (and annotations) set;
	// kube-apiserver encodes the rest of that empty value too (a pod's
	// "spec":{"containers":null},"status":{}), so P must accept it.
	Object P
	// ResourceVersion is the object's metadata.resourceVersion: for a
	// BOOKMARK, the version the watch has reached.
	ResourceVersion string
	// InitialEventsEnd is set on the BOOKMARK that ends the initial events
	// of a streaming list (annotation k8s.io/initial-events-end: "true").
	InitialEventsEnd bool
}

// Why the transport was closed; the first reason wins.
const (
	reasonNone      int32 = iota
	reasonDone            // the stream ended on its own (EOF or an error)
	reasonStopped         // Stop was called
	reasonCancelled       // the context was cancelled
	reasonStalled         // the watchdog: no event within the stall bound
)

// errClosed stands for the error of a read after the transport was closed;
// fail replaces it with the reason.
var errClosed = errors.New("watchstream: stream closed")

// Stream decodes one watch into typed events. Next (or All) must be called
// from one goroutine at a time; Stop may be called from any goroutine, at any
// time, any number of times.
type Stream[T any, P meta.PtrObject[T]] struct {
	ctx  context.Context
	opts Options
	max  int64 // opts.maxEventSize()

	// Exactly one of body and conn is set.
	body io.ReadCloser
	conn MessageConn

	wire *wireReader       // counts bytes
	lim  *limitReader      // caps the bytes of one event
	dec  *jsontext.Decoder // nil until the first Next
	dog  *watchdog         // nil without a stall timeout
	// initialDone: the bookmark that ends a streaming list's initial
	// events has come, so StallTimeout, not InitialStallTimeout, bounds
	// the next event. bound is the bound of the wait in progress.
	initialDone bool
	bound       time.Duration

	frames   *kubeproto.FrameReader // protobuf framing; nil until the first Next
	frameOff int64                  // byte offset of the next frame

	stopCtx   func() bool  // unregisters the context.AfterFunc
	why       atomic.Int32 // a reason…; set once, before the transport is closed
	closeOnce sync.Once

	events  int64       // events started, for DecodeError.Event
	pending []byte      // a raw object that came before its "type", reused
	env     envelope[P] // the event being decoded, reused
	err     error       // terminal: returned by every Next after the first failure
}

// New returns a Stream that decodes the chunked JSON framing from body, the
// body of a watch response. The Stream owns body: it closes it when the
// stream ends, on Stop, or when ctx is cancelled. New does not read.
func New[T any, P meta.PtrObject[T]](ctx context.Context, body io.ReadCloser, opts Options) *Stream[T, P] {
	s := &Stream[T, P]{ctx: ctx, opts: opts, max: opts.maxEventSize(), body: body}
	s.start(body)
	return s
}

// NewWebsocket returns a Stream that decodes one event per message from
// conn, a websocket watch (package apiclient/websocket dials one). The
// Stream owns conn as New owns a body. Options' ContentEncoding is ignored.
func NewWebsocket[T any, P meta.PtrObject[T]](ctx context.Context, conn MessageConn, opts Options) *Stream[T, P] {
	s := &Stream[T, P]{ctx: ctx, opts: opts, max: opts.maxEventSize(), conn: conn}
	s.start(nil)
	return s
}

// start wires the watchdog, the byte counter and the context hook.
func (s *Stream[T, P]) start(r io.Reader) {
	if s.opts.StallTimeout > 0 || s.opts.InitialStallTimeout > 0 {
		s.dog = newWatchdog(s.opts.clock(), func() { s.shut(reasonStalled) })
	}
	s.wire = &wireReader{r: r, metrics: s.opts.Metrics}
	s.lim = &limitReader{r: s.wire}
	s.stopCtx = context.AfterFunc(s.ctx, func() { s.shut(reasonCancelled) })
}

// Next blocks until the next event and returns it. At a clean end of the
// stream, and after Stop, it returns io.EOF. Otherwise the error ends the
// stream and every later call returns it again:
//   - an ERROR event: a wrapped *meta.StatusError (meta.IsGone etc. apply);
//   - bad input: a *DecodeError naming the event number and byte offset;
//   - no event for Options.StallTimeout (InitialStallTimeout before a
//     streaming list's end bookmark): a *DecodeError of Problem Stalled;
//   - ctx cancelled: an error wrapping context.Cause(ctx).
func (s *Stream[T, P]) Next() (Event[P], error) {
	if s.err != nil {
		return Event[P]{}, s.err
	}
	if s.ctx.Err() != nil {
		s.shut(reasonCancelled) // the AfterFunc may not have run yet
	}
	if s.why.Load() != reasonNone {
		// Stopped or cancelled: do not read on, even from a body whose
		// Close does not interrupt reads.
		s.fail(errClosed)
		return Event[P]{}, s.err
	}
	var ev Event[P]
	var err error
	if s.bound = s.stallBound(); s.bound > 0 {
		s.dog.arm(s.bound)
	}
	switch {
	case s.conn != nil:
		ev, err = s.nextMessage()
	case s.opts.ContentType == kubeproto.ContentType:
		ev, err = s.nextFrame()
	default:
		ev, err = s.nextChunk()
	}
	if s.bound > 0 {
		s.dog.disarm()
	}
	if err != nil {
		s.fail(err)
		return Event[P]{}, s.err
	}
	if ev.InitialEventsEnd {
		s.initialDone = true
	}
	if s.opts.Metrics != nil {
		s.opts.Metrics.EventDecoded(ev.Type)
	}
	return ev, nil
}

// stallBound is how long the next event may take; 0: no bound.
func (s *Stream[T, P]) stallBound() time.Duration {
	if s.dog == nil {
		return 0
	}
	if !s.initialDone && s.opts.InitialStallTimeout > 0 {
		return s.opts.InitialStallTimeout
	}
	return s.opts.StallTimeout
}

// All returns an iterator over the remaining events. It ends after the
// first error, which it yields, or silently at a clean end (io.EOF).
// Breaking out of the loop does not Stop the stream.
func (s *Stream[T, P]) All() iter.Seq2[Event[P], error] {
	return func(yield func(Event[P], error) bool) {
		for {
			ev, err := s.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if !yield(ev, err) || err != nil {
				return
			}
		}
	}
}

// Stop closes the connection, so that a Next blocked on a silent peer
// returns io.EOF promptly. It is idempotent and safe from any goroutine.
func (s *Stream[T, P]) Stop() { s.shut(reasonStopped) }

// shut records why the stream ends and closes the transport, once.
func (s *Stream[T, P]) shut(reason int32) {
	s.why.CompareAndSwap(reasonNone, reason)
	s.closeOnce.Do(func() {
		if s.dog != nil {
			s.dog.stop()
		}
		if reason != reasonCancelled {
			// The context hook itself may run before start has stored
			// stopCtx (ctx already done); it needs no unregistering.
			s.stopCtx()
		}
		if s.conn != nil {
			_ = s.conn.Close()
		} else {
			_ = s.body.Close()
		}
	})
}

// fail ends the stream with err, translated by why the transport closed:
// a read error after Stop is not the peer's fault.
func (s *Stream[T, P]) fail(err error) {
	s.shut(reasonDone)
	switch s.why.Load() {
	case reasonStopped:
		err = io.EOF
	case reasonCancelled:
		err = fmt.Errorf("watchstream: stopped: %w", context.Cause(s.ctx))
	case reasonStalled:
		err = s.decodeError(s.wire.n, &stallError{what: "event", d: s.bound})
	}
	var de *DecodeError
	if s.opts.Metrics != nil && errors.As(err, &de) && de.Problem != Stalled {
		s.opts.Metrics.DecodeError()
	}
	s.err = err
}

// decodeError builds the *DecodeError of the current event.
func (s *Stream[T, P]) decodeError(offset int64, err error) *DecodeError {
	de := newDecodeError(BodyWatch, offset, -1, err)
	de.Event = s.events
	return de
}

// initChunked builds the decoder on first use.
func (s *Stream[T, P]) initChunked() error {
	var r io.Reader = s.wire
	switch strings.ToLower(s.opts.ContentEncoding) {
	case "", "identity":
	case "gzip":
		r = newGzipMembers(s.wire)
	default:
		return fmt.Errorf("watchstream: unsupported content encoding %q", s.opts.ContentEncoding)
	}
	s.lim.r = r
	s.dec = jsontext.NewDecoder(s.lim, decoderOptions)
	return nil
}

// nextChunk decodes the next event of a chunked body.
func (s *Stream[T, P]) nextChunk() (Event[P], error) {
	if s.dec == nil {
		if err := s.initChunked(); err != nil {
			return Event[P]{}, err
		}
	}
	s.lim.allow(s.max)
	s.events++
	kind := s.dec.PeekKind()
	start := s.dec.InputOffset() + leadingSpace(s.dec.UnreadBuffer())
	if kind == 0 {
		// A clean end, or an error before the next value: ReadToken says which.
		_, err := s.dec.ReadToken()
		if err == io.EOF {
			s.events--
			return Event[P]{}, io.EOF
		}
		if err == nil {
			err = errors.New("unexpected token between events")
		}
		return Event[P]{}, s.wrap(start, err)
	}
	ev, err := s.decodeEvent(s.dec)
	if err == nil && s.dec.InputOffset()-start > s.max {
		err = s.tooLarge()
	}
	if err != nil {
		return Event[P]{}, s.wrap(start, err)
	}
	return ev, nil
}

// wrap turns a decoding error into a *DecodeError, except for the errors
// that are not about the input: a Status from an ERROR event, and errors
// reading a closed transport, which fail reinterprets.
func (s *Stream[T, P]) wrap(offset int64, err error) error {
	var se *meta.StatusError
	var de *DecodeError
	switch {
	case errors.As(err, &se), errors.As(err, &de):
		return err
	case s.wire.transportError("watch") != nil:
		return s.wire.transportError("watch")
	case errors.Is(err, errEventTooLarge):
		return s.decodeError(offset, s.tooLarge())
	}
	return s.decodeError(offset, err)
}

func (s *Stream[T, P]) tooLarge() error {
	return fmt.Errorf("event larger than MaxEventSize (%d bytes): %w", s.max, ErrTooLarge)
}

// leadingSpace counts the JSON whitespace at the start of b, so that offsets
// point at an event's first byte rather than at the newline before it.
func leadingSpace(b []byte) int64 {
	n := 0
	for n < len(b) && (b[n] == ' ' || b[n] == '\n' || b[n] == '\r' || b[n] == '\t') {
		n++
	}
	return int64(n)
}
