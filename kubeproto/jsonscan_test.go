package kubeproto

import (
	stdjson "encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAJSONBodyMayHaveSpaceAroundIt: whitespace before and after the
// object (a body ending in a newline, as kubectl writes one) is not
// trailing data, and the protobuf is that of the compact body.
func TestAJSONBodyMayHaveSpaceAroundIt(t *testing.T) {
	compact := `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"},"data":{"k":"v"}}`
	want, err := AppendObjectProto(nil, []byte(compact))
	require.NoError(t, err)
	for _, pad := range []string{" ", "\n", "\r\n\t "} {
		got, err := AppendObjectProto(nil, []byte(pad+compact+pad))
		require.NoError(t, err, "padded with %q", pad)
		require.Equal(t, want, got, "padded with %q", pad)
	}
	_, err = AppendObjectProto(nil, []byte(compact+" x"))
	require.ErrorIs(t, err, ErrMalformed)
}

// TestJSONIsNestedAtMostMaxDepth: the encoder accepts JSON nested maxDepth
// deep and refuses one level more, naming the offset of the value one too
// deep, before it encodes anything.
func TestJSONIsNestedAtMostMaxDepth(t *testing.T) {
	cm, _ := MessageFor("v1", "ConfigMap")
	nested := func(arrays int) []byte { // an object holding arrays nested arrays deep
		return []byte(`{"x":` + strings.Repeat("[", arrays) + strings.Repeat("]", arrays) + `}`)
	}
	_, err := AppendProto(nil, cm, nested(maxDepth-1))
	require.NoError(t, err)
	_, err = AppendProto(nil, cm, nested(maxDepth))
	var de *DecodeError
	require.True(t, errors.As(err, &de), "%v", err)
	require.ErrorIs(t, err, ErrMalformed)
	require.Equal(t, "JSON nested too deep", de.Detail)
	require.Equal(t, len(`{"x":`)+maxDepth-1, de.Offset, "the offset of the array one too deep")
}

// TestJSONFaultsNameTheirOffset: a malformed body fails with the offset
// where it goes wrong.
func TestJSONFaultsNameTheirOffset(t *testing.T) {
	cm, _ := MessageFor("v1", "ConfigMap")
	for in, at := range map[string]int{
		`{"data":{"k":"v" "l":"w"}}`:    17,
		`{"data":{"k":"v",}}`:           17,
		"{\"data\":{\"k\":\"v\x01\"}}":  15,
		`{"metadata":{"name":"a"}`:      24,
		`{"data":{"k":tru}}`:            13,
		`{"data":{"k":"v"}} {}`:         18, // where the value ends
		`{"binaryData":{"k":"\u12g4"}}`: 19,
	} {
		_, err := AppendProto(nil, cm, []byte(in))
		var de *DecodeError
		require.True(t, errors.As(err, &de), "%s: %v", in, err)
		require.ErrorIs(t, err, ErrMalformed, in)
		require.Equal(t, at, de.Offset, "%s: %v", in, err)
	}
}

// TestTranscodedStringsAreQuotedAsEncodingJSON: the JSON written from
// protobuf quotes strings as kube-apiserver's encoding/json does (HTML
// characters, U+2028 and U+2029 escaped), so the two forms of one object
// compare equal byte for byte.
func TestTranscodedStringsAreQuotedAsEncodingJSON(t *testing.T) {
	cm, _ := MessageFor("v1", "ConfigMap")
	s := "<a href=\"x\">&amp;</a>\u2028\u2029\t\\ é"
	in, err := stdjson.Marshal(map[string]any{"data": map[string]string{"k": s}})
	require.NoError(t, err)
	pb, err := AppendProto(nil, cm, in)
	require.NoError(t, err)
	js, err := AppendJSON(nil, cm, pb)
	require.NoError(t, err)
	want, err := stdjson.Marshal(s)
	require.NoError(t, err)
	require.Contains(t, string(js), `"k":`+string(want))
}
