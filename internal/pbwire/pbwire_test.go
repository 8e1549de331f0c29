package pbwire_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/internal/pbwire"
)

func TestConsumeVarintTellsCutFromOverlong(t *testing.T) {
	cases := []struct {
		name string
		in   []byte
		v    uint64
		n    int
		err  error
	}{
		{"one byte", []byte{0x05}, 5, 1, nil},
		{"two bytes", []byte{0xac, 0x02}, 300, 2, nil},
		{"max uint64", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 1<<64 - 1, 10, nil},
		{"empty", nil, 0, -1, pbwire.ErrTruncated},
		{"cut", []byte{0x80, 0x80}, 0, -1, pbwire.ErrTruncated},
		{"10th byte past bit 63", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}, 0, -1, pbwire.ErrMalformed},
		{"11 bytes", []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, 0, -1, pbwire.ErrMalformed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, n := pbwire.ConsumeVarint(c.in)
			if c.err != nil {
				require.Less(t, n, 0)
				assert.ErrorIs(t, pbwire.Err(n), c.err)
				return
			}
			assert.Equal(t, c.n, n)
			assert.Equal(t, c.v, v)
			assert.NoError(t, pbwire.Err(n))
		})
	}
}

func TestConsumeTagRefusesFieldNumbersProtobufForbids(t *testing.T) {
	_, _, n := pbwire.ConsumeTag([]byte{0x02}) // field 0, wire type 2
	assert.ErrorIs(t, pbwire.Err(n), pbwire.ErrMalformed)
	_, _, n = pbwire.ConsumeTag(pbwire.AppendTag(nil, pbwire.MaxFieldNumber+1, pbwire.Varint))
	assert.ErrorIs(t, pbwire.Err(n), pbwire.ErrMalformed)
	num, typ, n := pbwire.ConsumeTag(pbwire.AppendTag(nil, pbwire.MaxFieldNumber, pbwire.Fixed32))
	assert.Equal(t, pbwire.MaxFieldNumber, num)
	assert.Equal(t, pbwire.Fixed32, typ)
	assert.Equal(t, 5, n)
}

// Invariant 1: a length is checked against the slice's length, never its
// capacity, so a value cannot run into the bytes of the next field.
func TestALengthThatOverrunsItsSliceFailsEvenWithinCapacity(t *testing.T) {
	buf := []byte{0x05, 'a', 'b', 'c', 'd', 'e', 'f'}
	_, n := pbwire.ConsumeBytes(buf[:3]) // length 5, 2 bytes in the slice, 6 in its capacity
	assert.ErrorIs(t, pbwire.Err(n), pbwire.ErrTruncated)
	f := append(pbwire.AppendTag(nil, 1, pbwire.Bytes), buf...)
	_, n = pbwire.Next(f[:4])
	assert.ErrorIs(t, pbwire.Err(n), pbwire.ErrTruncated)
	v, n := pbwire.ConsumeBytes(buf[:6])
	assert.Equal(t, []byte("abcde"), v)
	assert.Equal(t, 6, n)
}

func TestNextReadsEachWireType(t *testing.T) {
	var b []byte
	b = pbwire.AppendVarint(pbwire.AppendTag(b, 1, pbwire.Varint), 300)
	b = append(pbwire.AppendTag(b, 2, pbwire.Fixed64), 1, 0, 0, 0, 0, 0, 0, 0x80)
	b = append(pbwire.AppendTag(b, 3, pbwire.Bytes), 2, 'h', 'i')
	b = append(pbwire.AppendTag(b, 4, pbwire.Fixed32), 7, 0, 0, 0)
	want := []pbwire.Field{
		{Num: 1, Type: pbwire.Varint, Raw: []byte{0xac, 0x02}, Val: []byte{0xac, 0x02}, X: 300},
		{Num: 2, Type: pbwire.Fixed64, Raw: []byte{1, 0, 0, 0, 0, 0, 0, 0x80}, Val: []byte{1, 0, 0, 0, 0, 0, 0, 0x80}, X: 1<<63 | 1},
		{Num: 3, Type: pbwire.Bytes, Raw: []byte{2, 'h', 'i'}, Val: []byte("hi"), X: 2},
		{Num: 4, Type: pbwire.Fixed32, Raw: []byte{7, 0, 0, 0}, Val: []byte{7, 0, 0, 0}, X: 7},
	}
	for i, w := range want {
		f, n := pbwire.Next(b)
		require.GreaterOrEqual(t, n, 0, i)
		assert.Equal(t, w, f, i)
		assert.Equal(t, n, pbwire.ConsumeValue(f.Type, b[n-len(f.Raw):])+n-len(f.Raw), i)
		b = b[n:]
	}
	assert.Empty(t, b)
}

// Invariant 3, and every wire type's cut.
func TestNextRefusesGroupsAndCutValues(t *testing.T) {
	for _, typ := range []pbwire.Type{3, 4, 6, 7} {
		_, n := pbwire.Next(pbwire.AppendTag(nil, 1, typ))
		assert.ErrorIs(t, pbwire.Err(n), pbwire.ErrMalformed, typ)
		assert.Less(t, pbwire.FixedLen(typ), 0, typ)
	}
	for _, in := range [][]byte{
		pbwire.AppendTag(nil, 1, pbwire.Varint),
		append(pbwire.AppendTag(nil, 1, pbwire.Fixed64), 1, 2, 3, 4, 5, 6, 7),
		append(pbwire.AppendTag(nil, 1, pbwire.Fixed32), 1, 2, 3),
		append(pbwire.AppendTag(nil, 1, pbwire.Bytes), 3, 'a', 'b'),
		{0x80},
	} {
		_, n := pbwire.Next(in)
		assert.ErrorIs(t, pbwire.Err(n), pbwire.ErrTruncated, "% x", in)
	}
}

func TestSizeVarintIsWhatAppendVarintWrites(t *testing.T) {
	for _, v := range []uint64{0, 1, 127, 128, 16383, 16384, 1<<63 - 1, 1<<64 - 1} {
		assert.Len(t, pbwire.AppendVarint(nil, v), pbwire.SizeVarint(v), v)
	}
}

// ReadVarint reads what ConsumeVarint reads, from a stream, and tells a
// stream that ends before a varint (io.EOF) from one cut inside it.
func TestReadVarintReadsWhatConsumeVarintReads(t *testing.T) {
	for _, in := range [][]byte{
		{0x05}, {0xac, 0x02}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
		{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}, {0x80, 0x80}, {0x80},
	} {
		v, n, err := pbwire.ReadVarint(bytes.NewReader(in))
		wv, wn := pbwire.ConsumeVarint(in)
		if wn < 0 {
			assert.ErrorIs(t, err, pbwire.Err(wn), "% x", in)
			continue
		}
		require.NoError(t, err, "% x", in)
		assert.Equal(t, wv, v, "% x", in)
		assert.Equal(t, wn, n, "% x", in)
	}
	_, _, err := pbwire.ReadVarint(bytes.NewReader(nil))
	assert.Same(t, io.EOF, err, "no varint begun")
	_, _, err = pbwire.ReadVarint(bytes.NewReader([]byte{0x80}))
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF, "cut inside the varint")
	assert.ErrorIs(t, err, pbwire.ErrTruncated)
	boom := errors.New("boom")
	_, _, err = pbwire.ReadVarint(failingReader{boom})
	assert.Same(t, boom, err)
}

type failingReader struct{ err error }

func (f failingReader) ReadByte() (byte, error) { return 0, f.err }
