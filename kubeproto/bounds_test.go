package kubeproto

import (
	"bytes"
	"strconv"
	"testing"

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
