package watchstream

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/zerokube/zerokube/meta"
)

// AppendFrame appends one watch event in the chunked framing to dst:
// `{"type":"<typ>","object":<object>}` and a newline. object must already be
// JSON (it is copied as is); an empty object is written as null.
func AppendFrame(dst []byte, typ meta.EventType, object []byte) []byte {
	dst = append(dst, `{"type":`...)
	// The five event types need no escaping, but AppendQuote keeps a bad
	// type from producing a frame that is not JSON at all.
	dst, _ = jsontext.AppendQuote(dst, string(typ))
	dst = append(dst, `,"object":`...)
	if len(object) == 0 {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, object...)
	}
	return append(dst, "}\n"...)
}

// EncoderOptions configures an Encoder. The zero value writes plain JSON.
type EncoderOptions struct {
	// Gzip compresses the stream as one gzip member per event, the way
	// kube-apiserver compresses watch-list streams: a reader that gunzips
	// member after member sees every event as soon as it is flushed. The
	// caller sets the Content-Encoding: gzip header itself.
	Gzip bool
}

// ErrEncoderClosed is returned by an Encoder's methods after Close.
var ErrEncoderClosed = errors.New("watchstream: encoder closed")

// Encoder writes watch events in the chunked framing, flushing after each
// event when the writer is an http.Flusher (an http.ResponseWriter is), so a
// watcher sees every event the moment it is written. It is safe for
// concurrent use; events are written whole, never interleaved.
type Encoder struct {
	mu      sync.Mutex // guards everything below
	w       io.Writer
	flusher http.Flusher // nil when w cannot flush
	gz      *gzip.Writer // nil unless opts.Gzip; Reset per member
	buf     bytes.Buffer // frame being built by Encode, reused
	closed  bool
}

// NewEncoder returns an Encoder that writes to w. It does not take ownership
// of w: Close does not close it.
func NewEncoder(w io.Writer, opts EncoderOptions) *Encoder {
	e := &Encoder{w: w}
	e.flusher, _ = w.(http.Flusher)
	if opts.Gzip {
		e.gz = gzip.NewWriter(w)
	}
	return e
}

// WriteFrame writes one complete frame (as made by AppendFrame) and flushes.
// With gzip the frame becomes one gzip member of its own.
func (e *Encoder) WriteFrame(frame []byte) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.writeFrameLocked(frame)
}

// writeFrameLocked requires that e.mu is held.
func (e *Encoder) writeFrameLocked(frame []byte) error {
	if e.closed {
		return ErrEncoderClosed
	}
	if e.gz != nil {
		// A member per frame: Close ends the member (trailer included)
		// without closing w, and Reset starts the next one.
		e.gz.Reset(e.w)
		if _, err := e.gz.Write(frame); err != nil {
			return fmt.Errorf("watchstream: write gzip frame: %w", err)
		}
		if err := e.gz.Close(); err != nil {
			return fmt.Errorf("watchstream: end gzip member: %w", err)
		}
	} else if _, err := e.w.Write(frame); err != nil {
		return fmt.Errorf("watchstream: write frame: %w", err)
	}
	if e.flusher != nil {
		e.flusher.Flush()
	}
	return nil
}

// Encode marshals obj as the object of an event of type typ and writes the
// frame. obj may be anything json.Marshal accepts: a typed object, a
// *meta.Raw, or a *meta.Status for an ERROR event.
func (e *Encoder) Encode(typ meta.EventType, obj any) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return ErrEncoderClosed
	}
	e.buf.Reset()
	e.buf.WriteString(`{"type":`)
	q, _ := jsontext.AppendQuote(e.buf.AvailableBuffer(), string(typ))
	e.buf.Write(q)
	e.buf.WriteString(`,"object":`)
	if err := json.MarshalWrite(&e.buf, obj); err != nil {
		return fmt.Errorf("watchstream: encode %s event: %w", typ, err)
	}
	e.buf.WriteString("}\n")
	return e.writeFrameLocked(e.buf.Bytes())
}

// Close marks the encoder closed; later writes fail with ErrEncoderClosed.
// Every frame was already flushed when it was written, so Close has nothing
// left to write and does not close the underlying writer.
func (e *Encoder) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	return nil
}
