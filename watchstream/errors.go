package watchstream

import (
	"errors"
	"fmt"
	"io"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/zerokube/zerokube/kubeproto"
	"github.com/zerokube/zerokube/protodec"
)

// ErrTooLarge is wrapped by the *DecodeError of an event, a list item or an
// object larger than Options.MaxEventSize.
var ErrTooLarge = errors.New("watchstream: larger than the size limit")

// ErrStalled is wrapped by the *DecodeError (Problem Stalled) of a reply
// that delivered no object for Options.StallTimeout.
var ErrStalled = errors.New("the reply stalled")

// Problem says what is wrong with a reply body: the closed set of ways
// bytes from the server can fail to become objects, the same for both
// wires (JSON, protobuf) and every verb.
type Problem uint8

const (
	// Malformed: the bytes are not JSON or protobuf, or not the shape of
	// a list, an event or an object (a missing envelope, an unknown event
	// type, an ERROR event whose object is not a Status, trailing data).
	Malformed Problem = iota + 1
	// Truncated: the body ended inside a value or a frame. Usually the
	// connection was cut; the server did answer.
	Truncated
	// Undecodable: a well-formed object that does not fit the caller's
	// type (a string where the type declares an int32). The error names
	// the object and the JSON pointer of the value, on both wires.
	Undecodable
	// UnknownKind: a protobuf object of a kind kubeproto's table lacks (a
	// server newer than the table). Asking for JSON decodes it.
	UnknownKind
	// TooLarge: an event, item or object over Options.MaxEventSize.
	TooLarge
	// Stalled: the server stopped delivering: no object within
	// Options.StallTimeout (a LIST's next item, a watch's next event).
	// The same fault whichever limit or verb caught it.
	Stalled
)

var problemNames = [...]string{Malformed: "malformed", Truncated: "truncated",
	Undecodable: "does not fit the type", UnknownKind: "unknown kind", TooLarge: "too large", Stalled: "stalled"}

func (p Problem) String() string {
	if int(p) < len(problemNames) && problemNames[p] != "" {
		return problemNames[p]
	}
	return fmt.Sprintf("Problem(%d)", uint8(p))
}

// Body names which kind of reply a DecodeError is about.
type Body uint8

const (
	BodyWatch  Body = iota // a watch or streaming list: events
	BodyList               // a LIST page: items
	BodyObject             // one object (a GET or a write's reply)
)

// DecodeError reports a reply body that could not be read into objects:
// the one error type of this package, for LIST pages, watch events and
// single objects, on both wires. Problem says what went wrong; the other
// fields say where. It ends the stream or fails the page, except an
// Undecodable list item under Options.SkipUndecodable, which is reported
// and stepped over.
type DecodeError struct {
	Body    Body
	Problem Problem
	// Event is the 1-based number of the event being decoded (watches).
	Event int64
	// Item is the 0-based index of the item in its page (lists); -1 when
	// the failure is outside the items. The message counts items from 1,
	// as it counts events.
	Item int
	// Offset is the byte offset of the problem: in the (gunzipped) body,
	// within the message for websockets.
	Offset int64
	// Object is "namespace/name" of an object that is well-formed but
	// does not fit the caller's type, as far as its metadata decoded
	// (kube-apiserver writes metadata first); "" when not known.
	Object string
	// Path is the JSON pointer of the value that did not fit, within the
	// event ("/object/spec/ports/0/port") or the list item
	// ("/spec/ports/0/port"), the same over protobuf as over JSON; ""
	// when not known.
	Path string
	// Err says what is wrong.
	Err error
}

func (e *DecodeError) Error() string {
	where := ""
	switch e.Body {
	case BodyWatch:
		where = fmt.Sprintf("event %d at byte %d", e.Event, e.Offset)
	case BodyList:
		where = fmt.Sprintf("list at byte %d", e.Offset)
		if e.Item >= 0 {
			// Counted from 1, as events are: "list item 1" is the first.
			where = fmt.Sprintf("list item %d at byte %d", e.Item+1, e.Offset)
		}
	default:
		where = fmt.Sprintf("object at byte %d", e.Offset)
	}
	if e.Object != "" {
		where += " (object " + e.Object + ")"
	}
	if e.Path != "" {
		where += " at " + e.Path
	}
	return fmt.Sprintf("watchstream: %s: %s: %v", where, e.Problem, e.Err)
}

func (e *DecodeError) Unwrap() error { return e.Err }

// ProblemOf returns the Problem of the *DecodeError in err's chain, and 0
// when there is none: callers classify failures by it instead of naming
// the decoders underneath.
func ProblemOf(err error) Problem {
	var de *DecodeError
	if errors.As(err, &de) {
		return de.Problem
	}
	return 0
}

// newDecodeError builds the *DecodeError of a failure at offset, taking
// the offset and the path from a JSON error when it has them, and the
// Problem from the error's chain.
func newDecodeError(body Body, offset int64, item int, err error) *DecodeError {
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		offset = se.ByteOffset
	}
	de := &DecodeError{Body: body, Problem: problemOf(err), Item: item, Offset: offset, Err: err}
	var oe *objectError
	if errors.As(err, &oe) {
		de.Object, de.Path = oe.key, oe.path
	}
	var sem *json.SemanticError
	if de.Path == "" && de.Problem == Undecodable && errors.As(err, &sem) {
		de.Path = string(sem.JSONPointer)
	}
	return de
}

// problemOf is the one place a decoder's error becomes a Problem. Order
// matters: a JSON semantic error can wrap an unexpected end of input, which
// is the body's end, not the type's fault.
func problemOf(err error) Problem {
	var sem *json.SemanticError
	var syn *jsontext.SyntacticError
	switch {
	case errors.Is(err, ErrStalled):
		return Stalled
	case errors.Is(err, ErrTooLarge), errors.Is(err, kubeproto.ErrTooLarge):
		return TooLarge
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, ErrCut):
		return Truncated
	case errors.Is(err, kubeproto.ErrUnknownKind):
		return UnknownKind
	case errors.As(err, &syn):
		return Malformed
	case protodec.IsContentError(err), errors.As(err, &sem):
		return Undecodable
	}
	return Malformed
}

// ErrCut is wrapped by MessageConn.NextMessage's error when the peer
// closed a websocket abnormally mid-watch: the transport ending the body,
// like a chunked body cut short (Problem Truncated).
var ErrCut = errors.New("the stream was cut")

// objectError carries the name of an object that did not decode, and for
// protobuf the path of its value, to the DecodeError built around it.
type objectError struct {
	key  string
	path string // the value's JSON pointer in the event, when not in a JSON error
	err  error
}

func (e *objectError) Error() string { return e.err.Error() }
func (e *objectError) Unwrap() error { return e.err }
