package kubeproto

import (
	stdjson "encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// unquoteCases are JSON strings whose decoding encoding/json (and so
// kube-apiserver, which decodes request bodies with a fork of it) settles
// without an error, invalid UTF-8 and lone surrogates included.
var unquoteCases = []string{
	`""`, `"plain"`, `"tab\there"`, `"\"\\\/\b\f\n\r\t"`, `"\u00e9\u4e2d"`,
	`"\ud83d\ude00"`,         // a surrogate pair: one rune
	`"a\ud800b"`,             // a lone high surrogate
	`"\udc00"`,               // a lone low surrogate
	`"\ud800\u0041"`,         // a high surrogate, then no low one
	"\"a\x80b\"",             // a stray continuation byte
	"\"\xff\xfe\"",           // two invalid bytes: two U+FFFD
	"\"\xe4\xb8\"",           // a truncated three-byte rune
	"\"\xed\xa0\x80\"",       // a surrogate encoded in UTF-8
	"\"ok \xe4\xb8\xad ok\"", // valid multi-byte text
}

func TestUnquoteDecodesAsEncodingJSON(t *testing.T) {
	for _, c := range unquoteCases {
		var want string
		require.NoError(t, stdjson.Unmarshal([]byte(c), &want), "%q", c)
		got, err := appendUnquote(nil, []byte(c))
		require.NoError(t, err, "%q", c)
		require.Equal(t, want, string(got), "%q", c)
	}
}

func TestUnquoteRefusesWhatEncodingJSONRefuses(t *testing.T) {
	for _, c := range []string{`"\x41"`, `"\u12"`, `"\u12g4"`, "\"a\x01\"", `"a\"`, `"\'"`} {
		var s string
		require.Error(t, stdjson.Unmarshal([]byte(c), &s), "%q", c)
		_, err := appendUnquote(nil, []byte(c))
		require.Error(t, err, "%q", c)
	}
}

// TestInvalidUTF8BecomesReplacementCharacters: a JSON body with invalid
// UTF-8 encodes to the protobuf kube-apiserver would store for it, so its
// protobuf and JSON forms say the same (the failure the protodec fuzz
// target found: the protobuf held the raw byte, its JSON form U+FFFD).
func TestInvalidUTF8BecomesReplacementCharacters(t *testing.T) {
	cm, _ := MessageFor("v1", "ConfigMap")
	in := "{\"metadata\":{\"name\":\"a\x80\",\"labels\":{\"k\xff\":\"v\"}},\"data\":{\"x\":\"\\ud800y\"}}"
	pb, err := AppendProto(nil, cm, []byte(in))
	require.NoError(t, err)
	js, err := AppendJSON(nil, cm, pb)
	require.NoError(t, err)
	var got struct {
		Metadata struct {
			Name   string            `json:"name"`
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
		Data map[string]string `json:"data"`
	}
	require.NoError(t, stdjson.Unmarshal(js, &got), "%s", js)
	require.Equal(t, "a\uFFFD", got.Metadata.Name)
	require.Equal(t, map[string]string{"k\uFFFD": "v"}, got.Metadata.Labels)
	require.Equal(t, map[string]string{"x": "\uFFFDy"}, got.Data)
	require.NotContains(t, string(pb), "\x80", "the protobuf holds the raw byte")
}

// FuzzUnquoteAsEncodingJSON: wherever encoding/json decodes a JSON
// string, appendUnquote decodes it to the same text.
func FuzzUnquoteAsEncodingJSON(f *testing.F) {
	for _, c := range unquoteCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want string
		if len(b) < 2 || b[0] != '"' || stdjson.Unmarshal(b, &want) != nil {
			return
		}
		end, _, err := scanString(b, 0)
		if err != nil || end != len(b) {
			return // more than one JSON string (encoding/json allows trailing space)
		}
		got, err := appendUnquote(nil, b)
		if err != nil {
			t.Fatalf("%q: encoding/json decodes it to %q, appendUnquote fails: %v", b, want, err)
		}
		if string(got) != want {
			t.Fatalf("%q: encoding/json %q, appendUnquote %q", b, want, got)
		}
	})
}
