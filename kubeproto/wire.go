package kubeproto

import (
	"errors"
	"fmt"
	"strings"
)

// Protobuf wire types used by Kubernetes' messages.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

// maxDepth bounds message nesting, so hostile input cannot exhaust the stack.
const maxDepth = 100

// Errors a DecodeError wraps; test with errors.Is.
var (
	ErrTruncated   = errors.New("truncated")
	ErrMalformed   = errors.New("malformed")
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

// uvarint reads a varint at b[0:]; n is 0 when b is truncated or the varint
// longer than 10 bytes.
func uvarint(b []byte) (v uint64, n int) {
	if len(b) > 0 && b[0] < 0x80 {
		return uint64(b[0]), 1
	}
	for i := 0; i < len(b) && i < 10; i++ {
		c := b[i]
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			if i == 9 && c > 1 {
				return 0, 0
			}
			return v, i + 1
		}
	}
	return 0, 0
}

// next reads one field of a message at b[0:]: its number, wire type, value
// (for wireBytes the payload, otherwise the raw bytes), the scalar for
// wireVarint, and the total length consumed. On failure it returns n == 0
// and the cause.
func next(b []byte) (num int, typ int, val []byte, x uint64, n int, err error) {
	tag, tn := uvarint(b)
	if tn == 0 {
		return 0, 0, nil, 0, 0, ErrTruncated
	}
	num, typ = int(tag>>3), int(tag&7)
	if num <= 0 || tag>>3 > 1<<29-1 {
		return 0, 0, nil, 0, 0, fmt.Errorf("%w: field number %d", ErrMalformed, tag>>3)
	}
	rest := b[tn:]
	switch typ {
	case wireVarint:
		v, vn := uvarint(rest)
		if vn == 0 {
			return 0, 0, nil, 0, 0, ErrTruncated
		}
		return num, typ, rest[:vn], v, tn + vn, nil
	case wireBytes:
		l, ln := uvarint(rest)
		if ln == 0 {
			return 0, 0, nil, 0, 0, ErrTruncated
		}
		if l > uint64(len(rest)-ln) {
			return 0, 0, nil, 0, 0, fmt.Errorf("%w: length %d with %d bytes left", ErrTruncated, l, len(rest)-ln)
		}
		return num, typ, rest[ln : ln+int(l)], l, tn + ln + int(l), nil
	case wireFixed64:
		if len(rest) < 8 {
			return 0, 0, nil, 0, 0, ErrTruncated
		}
		return num, typ, rest[:8], 0, tn + 8, nil
	case wireFixed32:
		if len(rest) < 4 {
			return 0, 0, nil, 0, 0, ErrTruncated
		}
		return num, typ, rest[:4], 0, tn + 4, nil
	}
	return 0, 0, nil, 0, 0, fmt.Errorf("%w: wire type %d", ErrMalformed, typ)
}

func appendVarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func appendTag(b []byte, num, typ int) []byte { return appendVarint(b, uint64(num)<<3|uint64(typ)) }

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

func varintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

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
