package kubeproto

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Inputs at and just past each bound the codec enforces: the magic, the
// frame size limit, the range of a 32-bit integer.

func TestOnlyTheExactMagicOpensAnEnvelope(t *testing.T) {
	body := AppendEnvelope(nil, Envelope{APIVersion: "v1", Kind: "Pod"})[len(Magic):]
	for _, c := range []struct {
		magic string
		ok    bool
	}{
		{"k8s\x00", true},
		{"k8s\x01", false},
		{"k8s\n", false},
		{"k8sx", false},
		{"K8s\x00", false},
		{"k8\x00\x00", false},
		{"k8s", false},
		{"", false},
	} {
		in := append([]byte(c.magic), body...)
		e, err := DecodeEnvelope(in)
		if c.ok {
			require.NoError(t, err, "%q", c.magic)
			assert.Equal(t, "Pod", e.Kind)
			continue
		}
		require.ErrorIs(t, err, ErrNoMagic, "%q", c.magic)
		_, err = AppendObjectJSON(nil, in)
		require.ErrorIs(t, err, ErrNoMagic, "%q", c.magic)
	}
}

func TestAFrameOfExactlyTheLimitIsRead(t *testing.T) {
	const limit = 100
	for _, c := range []struct {
		size int
		ok   bool
	}{{0, true}, {1, true}, {limit - 1, true}, {limit, true}, {limit + 1, false}, {1 << 20, false}} {
		msg := bytes.Repeat([]byte{'x'}, c.size)
		fr := NewFrameReader(bytes.NewReader(AppendFrame(AppendFrame(nil, msg), []byte("next"))), limit)
		got, err := fr.Next()
		if !c.ok {
			require.ErrorIs(t, err, ErrTooLarge, c.size)
			assert.Contains(t, err.Error(), "length "+strconv.Itoa(c.size)+", limit 100")
			continue
		}
		require.NoError(t, err, c.size)
		assert.Equal(t, string(msg), string(got), c.size)
		got, err = fr.Next()
		require.NoError(t, err, c.size)
		assert.Equal(t, "next", string(got), "the frame after it starts where it ends")
	}
}

// An int32 field (a port, a replica count) holds what kube-apiserver's
// int32 holds: a JSON number past it is refused, as kube-apiserver's JSON
// decoder refuses it, rather than wrapped into another port.
func TestA32BitFieldRefusesANumberPastItsRange(t *testing.T) {
	pod := func(port string) []byte {
		return []byte(`{"apiVersion":"v1","kind":"Pod","spec":{"containers":[{"name":"a","ports":[{"containerPort":` + port + `}]}]}}`)
	}
	for _, c := range []struct {
		port string
		ok   bool
	}{
		{"2147483647", true}, {"-2147483648", true}, {"8080", true}, {"8080.0", true},
		{"2147483648", false}, {"-2147483649", false}, {"4294967376", false}, {"9223372036854775807", false},
	} {
		b, err := AppendObjectProto(nil, pod(c.port))
		if !c.ok {
			require.ErrorIs(t, err, ErrMalformed, c.port)
			assert.Contains(t, err.Error(), "out of range", c.port)
			continue
		}
		require.NoError(t, err, c.port)
		j, err := AppendObjectJSON(nil, b)
		require.NoError(t, err, c.port)
		want, _ := strconv.ParseFloat(c.port, 64)
		assert.Contains(t, string(j), `"containerPort":`+strconv.FormatFloat(want, 'f', -1, 64), "it reads back as written")
	}
}

func TestAWatchEventWithoutTypeIsMalformed(t *testing.T) {
	obj := AppendEnvelope(nil, Envelope{APIVersion: "v1", Kind: "Pod"})
	ev := AppendWatchEvent(nil, WatchEvent{Type: "ADDED", Object: obj})
	_, err := DecodeWatchEvent(ev)
	require.NoError(t, err)
	_, err = DecodeWatchEvent(ev[2+len("ADDED"):]) // the object only
	require.ErrorIs(t, err, ErrMalformed)
	assert.Contains(t, err.Error(), "no type")
}

// Each of the envelope's four fields is length-delimited: one of another
// wire type is malformed, not skipped as an unknown field would be.
func TestAnEnvelopeFieldOfAnotherWireTypeIsMalformed(t *testing.T) {
	for num := 1; num <= 5; num++ {
		in := appendVarint(appendTag([]byte(Magic), num, wireVarint), 1)
		_, err := DecodeEnvelope(in)
		if num == 5 {
			require.NoError(t, err, "an unknown field is skipped")
			continue
		}
		require.ErrorIs(t, err, ErrMalformed, "field %d", num)
	}
}

// checkFrames writes a frame of each size, then reads the stream with a
// reader limited to limit (through r, which may return fewer bytes than
// asked): every frame up to the limit comes back as written, the first
// past it is ErrTooLarge naming that frame, and a stream of frames within
// the limit ends with io.EOF.
func checkFrames(t *testing.T, limit int, sizes []int, r func(io.Reader) io.Reader) {
	t.Helper()
	var stream []byte
	for i, n := range sizes {
		stream = AppendFrame(stream, bytes.Repeat([]byte{byte(i)}, n))
	}
	fr := NewFrameReader(r(bytes.NewReader(stream)), limit)
	off := 0
	for i, n := range sizes {
		got, err := fr.Next()
		if n > limit {
			require.ErrorIs(t, err, ErrTooLarge, "frame %d of %d bytes, limit %d", i, n, limit)
			require.Contains(t, err.Error(), fmt.Sprintf("watch frame %d at byte %d", i+1, off), "frames count from 1")
			return
		}
		require.NoError(t, err, "frame %d of %d bytes, limit %d", i, n, limit)
		require.Equal(t, string(bytes.Repeat([]byte{byte(i)}, n)), string(got), "frame %d", i)
		off += 4 + n
	}
	_, err := fr.Next()
	require.ErrorIs(t, err, io.EOF)
}

// FuzzFramesAroundTheLimit reaches frames at the reader's limit and past
// it (FuzzWatchStream's hostile bytes seldom claim a length near it, and
// accept any error): each delta is a frame's size less the limit.
func FuzzFramesAroundTheLimit(f *testing.F) {
	f.Add(uint16(100), []byte{0x80, 0xff, 0, 1}, false)
	f.Add(uint16(1), []byte{0, 0, 0xff, 2}, true)
	f.Fuzz(func(t *testing.T, limit uint16, deltas []byte, oneByte bool) {
		lim := int(limit%4096) + 1
		sizes := make([]int, len(deltas))
		for i, d := range deltas {
			sizes[i] = max(0, lim+int(int8(d)))
		}
		r := iotest.HalfReader
		if oneByte {
			r = iotest.OneByteReader
		}
		checkFrames(t, lim, sizes, r)
	})
}

func TestFramesAroundTheLimit(t *testing.T) {
	same := func(r io.Reader) io.Reader { return r }
	for _, limit := range []int{1, 2, 100, 64<<10 + 1} {
		checkFrames(t, limit, []int{limit - 1, limit, 0, limit, limit + 1, limit}, same)
		checkFrames(t, limit, []int{limit + 1}, iotest.OneByteReader)
		checkFrames(t, limit, []int{limit, limit - 1}, iotest.HalfReader)
	}
	// The default limit: a frame claiming one byte more is refused before
	// any of it is read; one of exactly the limit is read (here: cut).
	for _, c := range []struct {
		claim uint32
		err   error
	}{{DefaultMaxFrame + 1, ErrTooLarge}, {DefaultMaxFrame, ErrTruncated}} {
		hdr := binary.BigEndian.AppendUint32(nil, c.claim)
		_, err := NewFrameReader(bytes.NewReader(append(hdr, "cut"...)), 0).Next()
		require.ErrorIs(t, err, c.err, c.claim)
	}
}

// A uint32 or uint64 field holds no negative number: a JSON number below
// zero is refused, not wrapped. (No message of the table has such a field
// today: the encoder is asked directly.)
func TestAnUnsignedFieldRefusesANegativeNumber(t *testing.T) {
	for _, c := range []struct {
		lit  string
		kind uint8
		want uint64
		ok   bool
	}{
		{"0", kUint32, 0, true}, {"4294967295", kUint32, 1<<32 - 1, true}, {"-1", kUint32, 0, false},
		{"-0.0", kUint32, 0, true}, {"4294967296", kUint32, 0, false}, {"-2147483648", kUint32, 0, false},
		{"9223372036854775807", kUint64, 1<<63 - 1, true}, {"-1", kUint64, 0, false},
		{"-1", kInt64, 1<<64 - 1, true},
	} {
		e := &encoder{js: []byte(c.lit)}
		got, err := e.intAt(0, c.kind)
		if !c.ok {
			require.NotNil(t, err, c.lit)
			require.ErrorIs(t, err, ErrMalformed, c.lit)
			continue
		}
		require.Nil(t, err, c.lit)
		require.Equal(t, c.want, got, c.lit)
	}
}

// nestedRevisions returns n ControllerRevisions each holding the next
// (enveloped, in protobuf) as its data, a RawExtension: a shape that
// contains itself through embedded objects. It writes each level's prefix
// once, outermost first, so that deep nests take linear time to build.
func nestedRevisions(t testing.TB, n int) []byte {
	m, ok := MessageFor("apps/v1", "ControllerRevision")
	require.True(t, ok)
	data, ok := m.FieldByJSON("data")
	require.True(t, ok)
	innermost := AppendEnvelope(nil, Envelope{APIVersion: "apps/v1", Kind: "ControllerRevision"})
	prefix := func(inner int) []byte { // one level around an object of inner bytes
		ext := appendVarint(appendTag(nil, 1, wireBytes), uint64(inner))
		rev := appendVarint(appendTag(nil, data.Number(), wireBytes), uint64(len(ext)+inner))
		rev = append(rev, ext...)
		env := AppendEnvelope(nil, Envelope{APIVersion: "apps/v1", Kind: "ControllerRevision"})
		env = appendVarint(appendTag(env, 2, wireBytes), uint64(len(rev)+inner))
		return append(env, rev...)
	}
	sizes := []int{len(innermost)}
	for i := 1; i <= n; i++ {
		sizes = append(sizes, len(prefix(sizes[i-1]))+sizes[i-1])
	}
	out := make([]byte, 0, sizes[n])
	for i := n; i >= 1; i-- {
		out = append(out, prefix(sizes[i-1])...)
	}
	return append(out, innermost...)
}

// TestObjectsNestedInRawExtensionsStopAtTheDepthLimit: an object embedded
// in a RawExtension counts its messages on from the RawExtension's depth
// (two a level here: the revision, its RawExtension; and one more for the
// innermost revision's metadata, written as {}), so nests of objects end
// at maxDepth like nests of messages; 300,000 of them (16.7 MB, one watch
// frame under DefaultMaxFrame) exhausted the stack, a fatal error.
func TestObjectsNestedInRawExtensionsStopAtTheDepthLimit(t *testing.T) {
	for _, c := range []struct {
		levels int
		ok     bool
	}{{1, true}, {maxDepth/2 - 1, true}, {maxDepth / 2, false}, {300_000, false}} {
		in := nestedRevisions(t, c.levels)
		j, err := AppendObjectJSON(nil, in)
		if !c.ok {
			require.ErrorIs(t, err, ErrMalformed, c.levels)
			require.ErrorContains(t, err, "nested too deep", c.levels)
			continue
		}
		require.NoError(t, err, c.levels)
		require.Equal(t, c.levels, bytes.Count(j, []byte(`"data":{"kind":"ControllerRevision"`)), "levels")
	}
}
