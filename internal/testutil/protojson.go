package testutil

import (
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/kubeproto"
)

// ProtoJSON reads an enveloped protobuf object (a server's protobuf
// answer) as generic JSON, as a JSON client of the same object would see it.
func ProtoJSON(t testing.TB, b []byte) map[string]any {
	t.Helper()
	js, err := kubeproto.AppendObjectJSON(nil, b)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(js, &m))
	return m
}
