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
	// Err says what is wrong.
	Err error
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("watchstream: event %d at byte %d: %v", e.Event, e.Offset, e.Err)
}

func (e *DecodeError) Unwrap() error { return e.Err }
