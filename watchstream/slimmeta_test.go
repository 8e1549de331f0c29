package watchstream_test

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

// slimPod keeps no annotations: the stream must still see the
// initial-events-end marker on a bookmark, or a streaming list never ends.
type slimPod struct {
	meta.SlimMeta `json:"metadata"`
}

func TestBookmarkEndIsSeenByTypesWithoutAnnotations(t *testing.T) {
	const end = `"annotations":{"k8s.io/initial-events-end":"true"}`
	for _, tc := range []struct {
		name, input string
		wantEnd     bool
	}{
		{"type first", `{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"7",` + end + `}}}`, true},
		{"object first", `{"object":{"metadata":{"resourceVersion":"7",` + end + `}},"type":"BOOKMARK"}`, true},
		{"plain bookmark", `{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"7"}}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := watchstream.New[slimPod](context.Background(), io.NopCloser(strings.NewReader(tc.input)), watchstream.Options{})
			defer s.Stop()
			ev, err := s.Next()
			require.NoError(t, err)
			require.Equal(t, meta.Bookmark, ev.Type)
			require.Equal(t, "7", ev.ResourceVersion)
			require.Equal(t, "7", ev.Object.ResourceVersion, "the object is decoded into P as well")
			require.Equal(t, tc.wantEnd, ev.InitialEventsEnd)
		})
	}
}

func TestSlimMetaEventsSkipWhatTheyDoNotKeep(t *testing.T) {
	in := `{"type":"ADDED","object":{"metadata":{"name":"a","namespace":"n","uid":"u","resourceVersion":"3",` +
		`"labels":{"app":"x"},"annotations":{"a":"b"},"managedFields":[{"manager":"m","fieldsV1":{"f:x":{}}}]}}}`
	s := watchstream.New[slimPod](context.Background(), io.NopCloser(strings.NewReader(in)), watchstream.Options{})
	defer s.Stop()
	ev, err := s.Next()
	require.NoError(t, err)
	require.Equal(t, meta.SlimMeta{Name: "a", Namespace: "n", UID: "u", ResourceVersion: "3",
		Labels: map[string]string{"app": "x"}}, ev.Object.SlimMeta)
	require.Equal(t, "n/a", meta.Key(ev.Object))
}
