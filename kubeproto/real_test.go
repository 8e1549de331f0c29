package kubeproto

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testdata/real holds answers of kube-apiserver v1.37.2 to the same GET or
// LIST asked once with Accept: application/json (NAME.json) and once with
// Accept: application/vnd.kubernetes.protobuf (NAME.pb).

func realPairs(t testing.TB) map[string][2][]byte {
	t.Helper()
	files, err := filepath.Glob("testdata/real/*.pb")
	require.NoError(t, err)
	pairs := map[string][2][]byte{}
	for _, pb := range files {
		name := strings.TrimSuffix(pb, ".pb")
		js, err := os.ReadFile(name + ".json")
		if err != nil {
			continue
		}
		p, err := os.ReadFile(pb)
		require.NoError(t, err)
		pairs[filepath.Base(name)] = [2][]byte{js, p}
	}
	require.NotEmpty(t, pairs)
	return pairs
}

func jsonValue(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(b, &v), "%s", b)
	return v
}

func TestProtobufAnswersOfTheRealServerTranscodeToItsJSONAnswers(t *testing.T) {
	for name, p := range realPairs(t) {
		t.Run(name, func(t *testing.T) {
			got, err := AppendObjectJSON(nil, p[1])
			require.NoError(t, err)
			assert.Equal(t, jsonValue(t, p[0]), jsonValue(t, got))
			want := jsontext.Value(bytes.Clone(p[0]))
			require.NoError(t, want.Compact())
			if !bytes.Equal(want, got) { // same members, same order: only escapes may differ
				gv := jsontext.Value(bytes.Clone(got))
				require.NoError(t, gv.Compact())
				assert.Equal(t, string(want), string(gv))
			}
		})
	}
}

func TestJSONAnswersOfTheRealServerTranscodeToProtobufThatReadsBackTheSame(t *testing.T) {
	for name, p := range realPairs(t) {
		t.Run(name, func(t *testing.T) {
			pb, err := AppendObjectProto(nil, p[0])
			require.NoError(t, err)
			back, err := AppendObjectJSON(nil, pb)
			require.NoError(t, err)
			assert.Equal(t, jsonValue(t, p[0]), jsonValue(t, back))
			assert.True(t, bytes.Equal(pb, p[1]), "%d bytes from JSON, the server wrote %d", len(pb), len(p[1]))
		})
	}
}

func TestARealWatchStreamReadsAsItsEvents(t *testing.T) {
	b, err := os.ReadFile("testdata/real/watch-configmaps.pb")
	require.NoError(t, err)
	var types []string
	for _, ev := range readEvents(t, b) {
		js, err := AppendObjectJSON(nil, ev.Object)
		require.NoError(t, err)
		obj := jsonValue(t, js).(map[string]any)
		assert.Equal(t, "ConfigMap", obj["kind"])
		if ev.Type == "BOOKMARK" {
			md := obj["metadata"].(map[string]any)
			assert.Equal(t, "true", md["annotations"].(map[string]any)["k8s.io/initial-events-end"])
		}
		types = append(types, ev.Type)
	}
	require.NotEmpty(t, types)
	assert.Equal(t, []string{"BOOKMARK", "MODIFIED", "DELETED"}, types[len(types)-3:])
}
