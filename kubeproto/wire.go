package kubeproto

import (
	"errors"
	"fmt"
	"strings"

	"github.com/zerokube/zerokube/internal/pbwire"
)

// Protobuf wire types used by Kubernetes' messages: pbwire's, untyped, as
// the table and the transcoder keep them in ints and uint8s.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

// The values above are pbwire's: an index other than 0 fails to compile.
var _ = [1]struct{}{}[wireVarint-int(pbwire.Varint)]
var _ = [1]struct{}{}[wireFixed64-int(pbwire.Fixed64)]
var _ = [1]struct{}{}[wireBytes-int(pbwire.Bytes)]
var _ = [1]struct{}{}[wireFixed32-int(pbwire.Fixed32)]

// maxDepth bounds message nesting, so hostile input cannot exhaust the stack.
const maxDepth = 100

// Errors a DecodeError wraps; test with errors.Is.
var (
	ErrTruncated   = pbwire.ErrTruncated // the input ends inside a value, or a length overruns its message
	ErrMalformed   = pbwire.ErrMalformed // no more bytes could make the input whole
	ErrNoMagic     = errors.New(`missing the "k8s\x00" prefix`)
	ErrUnknownKind = errors.New("kind not in the protobuf table")
	ErrTooLarge    = errors.New("frame larger than the limit")
)

// DecodeError says what failed, where (the message and field path) and at
// which byte offset of the input.
type DecodeError struct {
	What   string // e.g. "envelope", "watch event", "k8s.io.api.core.v1.Pod"
	Path   string // field path inside What, e.g. "spec.containers[2].image"; may be empty
	Offset int    // byte offset in the input given to the failing call
	Err    error  // the cause (ErrTruncated, ErrMalformed, ...)
	Detail string // more words, may be empty
}

func (e *DecodeError) Error() string {
	var b strings.Builder
	b.WriteString("kubeproto: decode ")
	b.WriteString(e.What)
	if e.Path != "" {
		b.WriteString(" field ")
		b.WriteString(e.Path)
	}
	fmt.Fprintf(&b, " at byte %d: %v", e.Offset, e.Err)
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	return b.String()
}

func (e *DecodeError) Unwrap() error { return e.Err }

// prefix adds an outer path element, as the error unwinds to the top.
func (e *DecodeError) prefix(elem string, off int) *DecodeError {
	switch {
	case e.Path == "":
		e.Path = elem
	case elem == "" || strings.HasPrefix(e.Path, "["):
		e.Path = elem + e.Path
	default:
		e.Path = elem + "." + e.Path
	}
	e.Offset += off
	return e
}

func errAt(what string, off int, err error, detail string) *DecodeError {
	return &DecodeError{What: what, Offset: off, Err: err, Detail: detail}
}

// next reads one field of a message at b[0:] with the project's one field
// reader (pbwire): its number, wire type, value (for wireBytes the
// payload, otherwise the raw bytes), the scalar for wireVarint and the
// fixed types, and the total length consumed. On failure it returns n == 0
// and the cause (ErrTruncated or ErrMalformed).
func next(b []byte) (num int, typ int, val []byte, x uint64, n int, err error) {
	f, n := pbwire.Next(b)
	if n < 0 {
		return 0, 0, nil, 0, 0, pbwire.Err(n)
	}
	return f.Num, int(f.Type), f.Val, f.X, n, nil
}

func appendVarint(b []byte, v uint64) []byte { return pbwire.AppendVarint(b, v) }

func appendTag(b []byte, num, typ int) []byte { return pbwire.AppendTag(b, num, pbwire.Type(typ)) }

func appendBytesField(b []byte, num int, v []byte) []byte {
	b = appendTag(b, num, wireBytes)
	b = appendVarint(b, uint64(len(v)))
	return append(b, v...)
}

func appendStringField(b []byte, num int, v string) []byte {
	b = appendTag(b, num, wireBytes)
	b = appendVarint(b, uint64(len(v)))
	return append(b, v...)
}

func varintLen(v uint64) int { return pbwire.SizeVarint(v) }

// beginLen starts a length-delimited field whose length is not known yet:
// it reserves one byte and returns the offset of the payload.
func beginLen(b []byte, num int) ([]byte, int) {
	b = appendTag(b, num, wireBytes)
	b = append(b, 0)
	return b, len(b)
}

// endLen writes the length of the payload begun at start, moving the
// payload when the length needs more than the reserved byte.
func endLen(b []byte, start int) []byte {
	l := len(b) - start
	if l < 0x80 {
		b[start-1] = byte(l)
		return b
	}
	extra := varintLen(uint64(l)) - 1
	b = append(b, make([]byte, extra)...)
	copy(b[start+extra:], b[start:start+l])
	appendVarint(b[start-1:start-1], uint64(l))
	return b
}
