package watchstream

import (
	"errors"
	"fmt"
)

// ErrEventTooLarge is wrapped by the *DecodeError of an event larger than
// Options.MaxEventSize.
var ErrEventTooLarge = errors.New("watchstream: event too large")

// ErrIdleTimeout is wrapped by the error that ends a stream on which no byte
// arrived for Options.IdleTimeout.
var ErrIdleTimeout = errors.New("watchstream: idle timeout")

// DecodeError reports input that is not a valid watch stream: truncated or
// malformed JSON, an unknown event type, an object that does not decode into
// the caller's type, an event over the size limit, an abnormal websocket
// close. It ends the stream.
type DecodeError struct {
	// Event is the 1-based number of the event being decoded.
	Event int64
	// Offset is the byte offset of the problem: in the (gunzipped) body for
	// chunked streams, within the message for websockets.
	Offset int64
	// Object is "namespace/name" of an event's object that is valid JSON
	// but does not fit the caller's type, as far as its metadata decoded
	// before the failure (kube-apiserver writes metadata first); "" for
	// other problems or when not known.
	Object string
	// Path is the JSON pointer of the value that did not fit, such as
	// "/object/spec/ports/0/port"; "" when not known.
	Path string
	// Err says what is wrong.
	Err error
}

func (e *DecodeError) Error() string {
	what := ""
	if e.Object != "" {
		what = " (object " + e.Object + ")"
	}
	if e.Path != "" {
		what += " at " + e.Path
	}
	return fmt.Sprintf("watchstream: event %d at byte %d%s: %v", e.Event, e.Offset, what, e.Err)
}

// objectError carries the name of an object that did not decode, and for
// protobuf the path of its value, to the DecodeError built around it.
type objectError struct {
	key  string
	path string // the value's JSON pointer in the event, when not in a JSON error
	err  error
}

func (e *objectError) Error() string { return e.err.Error() }
func (e *objectError) Unwrap() error { return e.err }

func (e *DecodeError) Unwrap() error { return e.Err }
