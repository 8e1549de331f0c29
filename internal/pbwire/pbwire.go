// Package pbwire is the protobuf wire format, as far as the project reads
// and writes it: varints, tags, and the length of every value. It is the
// one field reader under every protobuf decoder of the project: kubeproto
// (the envelope, watch events, the protobuf-to-JSON transcoder) and
// protodec (protobuf straight into Go types) both walk messages with it,
// so that a malformed input fails the same way in each.
//
// It sits below both and knows no message: no schema, no Kubernetes type.
// Everything works on a byte slice holding the whole message. A reader of
// a stream (a LIST body read item by item) builds on the same pieces:
// ReadVarint for a varint read from an io.ByteReader (or ConsumeVarint on
// what a bufio.Reader's Peek holds), SplitTag for a tag read so, and
// FixedLen for the size of a fixed-width value; only a length-delimited
// value needs its length read before it can be skipped.
//
// Invariants (each has a test in pbwire_test.go):
//  1. No function reads past the end of the slice it is given, nor past a
//     length-delimited value's own length: a length that overruns fails,
//     even where the bytes after the slice's end are in its capacity.
//  2. A failure is n < 0; Err(n) tells a cut input (ErrTruncated: more
//     bytes could make it whole) from one no more bytes can fix
//     (ErrMalformed: a varint longer than 10 bytes or past 64 bits, field
//     number 0 or past 2^29-1, a wire type other than 0, 1, 2 and 5).
//  3. Groups (wire types 3 and 4) are malformed: they are long deprecated
//     and appear in no Kubernetes message.
package pbwire

import (
	"errors"
	"fmt"
	"io"
)

// Type is a protobuf wire type.
type Type uint8

// The wire types Kubernetes' messages use.
const (
	Varint  Type = 0
	Fixed64 Type = 1
	Bytes   Type = 2
	Fixed32 Type = 5
)

// MaxFieldNumber is the largest field number protobuf allows.
const MaxFieldNumber = 1<<29 - 1

// MaxVarintLen is the longest varint: 10 bytes hold 64 bits.
const MaxVarintLen = 10

// The causes Err returns; kubeproto exports them as its own.
var (
	ErrTruncated = errors.New("truncated")
	ErrMalformed = errors.New("malformed")
)

// The failures, as negative lengths.
const (
	errTruncated   = -1
	errOverflow    = -2
	errFieldNumber = -3
	errWireType    = -4
)

var (
	errOverflowV    = fmt.Errorf("%w: a varint longer than 10 bytes or past 64 bits", ErrMalformed)
	errFieldNumberV = fmt.Errorf("%w: field number 0 or past %d", ErrMalformed, MaxFieldNumber)
	errWireTypeV    = fmt.Errorf("%w: a wire type other than 0, 1, 2 and 5", ErrMalformed)
)

// Err returns the cause of failure n (a negative length some function of
// this package returned), or nil when n >= 0.
func Err(n int) error {
	switch {
	case n >= 0:
		return nil
	case n == errOverflow:
		return errOverflowV
	case n == errFieldNumber:
		return errFieldNumberV
	case n == errWireType:
		return errWireTypeV
	}
	return ErrTruncated
}

// ConsumeVarint reads a varint at the start of b: its value and length,
// or n < 0 when b holds no complete varint (ErrTruncated) or it is longer
// than 10 bytes or past 64 bits (ErrMalformed).
func ConsumeVarint(b []byte) (v uint64, n int) {
	if len(b) > 0 && b[0] < 0x80 {
		return uint64(b[0]), 1
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if i == MaxVarintLen-1 && c > 1 {
			return 0, errOverflow // a 10th byte holds bit 63 only, and ends the varint
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return v, i + 1
		}
	}
	return 0, errTruncated
}

// errCut is a stream that ends inside a varint: truncated input, and
// io.ErrUnexpectedEOF, as any reader of a stream cut mid-value says.
var errCut = fmt.Errorf("%w (%w)", ErrTruncated, io.ErrUnexpectedEOF)

// ReadVarint reads a varint from a stream, byte by byte, for a reader
// that does not hold the whole message (a LIST body read item by item):
// its value and length. A stream that ends before the varint gives io.EOF;
// one that ends inside it, an error wrapping ErrTruncated and
// io.ErrUnexpectedEOF; a varint longer than 10 bytes or past 64 bits,
// ErrMalformed; a read error, that error.
func ReadVarint(r io.ByteReader) (v uint64, n int, err error) {
	for i := 0; ; i++ {
		c, err := r.ReadByte()
		if err != nil {
			if err == io.EOF && i > 0 {
				err = errCut
			}
			return 0, i, err
		}
		if i == MaxVarintLen-1 && c > 1 {
			return 0, i + 1, errOverflowV
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return v, i + 1, nil
		}
	}
}

// SplitTag splits a tag into its field number and wire type, or n < 0
// when the field number is 0 or past MaxFieldNumber. It does not check the
// wire type: FixedLen and ConsumeValue do.
func SplitTag(tag uint64) (num int, t Type, n int) {
	if tag>>3 == 0 || tag>>3 > MaxFieldNumber {
		return 0, 0, errFieldNumber
	}
	return int(tag >> 3), Type(tag & 7), 0
}

// ConsumeTag reads a field's tag: its number, wire type and length.
func ConsumeTag(b []byte) (num int, t Type, n int) {
	tag, n := ConsumeVarint(b)
	if n < 0 {
		return 0, 0, n
	}
	num, t, e := SplitTag(tag)
	if e < 0 {
		return 0, 0, e
	}
	return num, t, n
}

// FixedLen is the size of a value of wire type t when the type alone
// fixes it (8 for Fixed64, 4 for Fixed32); 0 for Varint and Bytes, whose
// size the value says; n < 0 for any other type.
func FixedLen(t Type) int {
	switch t {
	case Fixed64:
		return 8
	case Fixed32:
		return 4
	case Varint, Bytes:
		return 0
	}
	return errWireType
}

// ConsumeBytes reads a length-delimited value: its content, and the length
// of the whole encoding (length prefix and content).
func ConsumeBytes(b []byte) (v []byte, n int) {
	l, n := ConsumeVarint(b)
	if n < 0 {
		return nil, n
	}
	if l > uint64(len(b)-n) {
		return nil, errTruncated
	}
	return b[n : n+int(l)], n + int(l)
}

// ConsumeFixed64 reads 8 little-endian bytes.
func ConsumeFixed64(b []byte) (uint64, int) {
	if len(b) < 8 {
		return 0, errTruncated
	}
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56, 8
}

// ConsumeFixed32 reads 4 little-endian bytes.
func ConsumeFixed32(b []byte) (uint32, int) {
	if len(b) < 4 {
		return 0, errTruncated
	}
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24, 4
}

// ConsumeValue returns the length of the value of wire type t at the
// start of b (for Bytes, length prefix included).
func ConsumeValue(t Type, b []byte) int {
	switch t {
	case Varint:
		_, n := ConsumeVarint(b)
		return n
	case Bytes:
		_, n := ConsumeBytes(b)
		return n
	}
	l := FixedLen(t)
	if l < 0 {
		return l
	}
	if len(b) < l {
		return errTruncated
	}
	return l
}

// Field is one field of a message, as Next reads it.
type Field struct {
	Num  int
	Type Type
	// Raw is the value as it follows the tag: for Bytes, with its length
	// prefix. It aliases the input.
	Raw []byte
	// Val is the value's content: for Bytes, the payload without its
	// length prefix; otherwise Raw.
	Val []byte
	// X is a Varint's value, a fixed value read little-endian, or the
	// length of a Bytes payload.
	X uint64
}

// Next reads the field at the start of b: the field and the length of its
// whole encoding (tag and value), or n < 0.
func Next(b []byte) (f Field, n int) {
	num, t, tn := ConsumeTag(b)
	if tn < 0 {
		return Field{}, tn
	}
	rest := b[tn:]
	var m int
	switch t {
	case Varint:
		f.X, m = ConsumeVarint(rest)
		f.Val = rest[:max(m, 0)]
	case Bytes:
		f.Val, m = ConsumeBytes(rest)
		f.X = uint64(len(f.Val))
	case Fixed64:
		f.X, m = ConsumeFixed64(rest)
		f.Val = rest[:max(m, 0)]
	case Fixed32:
		var x uint32
		x, m = ConsumeFixed32(rest)
		f.X, f.Val = uint64(x), rest[:max(m, 0)]
	default:
		m = errWireType
	}
	if m < 0 {
		return Field{}, m
	}
	f.Num, f.Type, f.Raw = num, t, rest[:m]
	return f, tn + m
}

// AppendVarint appends v as a varint.
func AppendVarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// AppendTag appends the tag of field num with wire type t.
func AppendTag(b []byte, num int, t Type) []byte {
	return AppendVarint(b, uint64(num)<<3|uint64(t))
}

// SizeVarint is the length of v as a varint.
func SizeVarint(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}
