package kubeproto

import (
	stdjson "encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// appendUnquote is internal/jsonscan's AppendUnquote, tested there against
// encoding/json by table and fuzz; here, what it means for the transcoder.

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
