package protodec

// The protobuf wire format, as far as decoding needs it: varints, tags,
// and the length of every value, so that fields a Go type does not declare
// are stepped over without being decoded.

// wireType is a protobuf wire type.
type wireType uint8

const (
	wVarint  wireType = 0
	wFixed64 wireType = 1
	wBytes   wireType = 2
	wFixed32 wireType = 5
)

// consumeVarint reads a varint from b: its value and length, or n < 0 when
// b holds no complete varint of at most 10 bytes.
func consumeVarint(b []byte) (v uint64, n int) {
	for i := 0; i < len(b) && i < 10; i++ {
		c := b[i]
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			if i == 9 && c > 1 {
				return 0, -1 // overflows 64 bits
			}
			return v, i + 1
		}
	}
	return 0, -1
}

// consumeTag reads a field's tag. Field number 0 and numbers past the
// protobuf limit are malformed.
func consumeTag(b []byte) (num int, wt wireType, n int) {
	v, n := consumeVarint(b)
	if n < 0 || v>>3 == 0 || v>>3 > 1<<29-1 {
		return 0, 0, -1
	}
	return int(v >> 3), wireType(v & 7), n
}

// consumeBytes reads a length-delimited value: its content and the length
// of the whole encoding.
func consumeBytes(b []byte) ([]byte, int) {
	l, n := consumeVarint(b)
	if n < 0 || l > uint64(len(b)-n) {
		return nil, -1
	}
	return b[n : n+int(l)], n + int(l)
}

// consumeFixed64 reads 8 little-endian bytes.
func consumeFixed64(b []byte) (uint64, int) {
	if len(b) < 8 {
		return 0, -1
	}
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56, 8
}

// consumeValue returns the length of the value of wire type wt at the start
// of b, or -1. Groups (wire types 3 and 4) are long deprecated and appear
// in no Kubernetes message: they are malformed here.
func consumeValue(wt wireType, b []byte) int {
	switch wt {
	case wVarint:
		_, n := consumeVarint(b)
		return n
	case wFixed64:
		if len(b) < 8 {
			return -1
		}
		return 8
	case wFixed32:
		if len(b) < 4 {
			return -1
		}
		return 4
	case wBytes:
		_, n := consumeBytes(b)
		return n
	}
	return -1
}

// appendVarint appends v as a varint.
func appendVarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}
