package watchstream_test

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/kubeproto"
	"github.com/zerokube/zerokube/watchstream"
)

// labelsAsANumber is a pod whose labels came as a number: in protobuf,
// ObjectMeta's field 11 as a varint (7), padded by an unknown field so
// that every enclosing length still holds.
func labelsAsANumber(t *testing.T) []byte {
	t.Helper()
	m, _ := kubeproto.MessageFor("v1", "Pod")
	raw, err := kubeproto.AppendProto(nil, m, []byte(`{"metadata":{"name":"p","namespace":"ns","labels":{"app":"web"}}}`))
	require.NoError(t, err)
	entry := []byte{0x5a, 0x0a, 0x0a, 0x03, 'a', 'p', 'p', 0x12, 0x03, 'w', 'e', 'b'} // labels {"app":"web"}
	i := bytes.Index(raw, entry)
	require.GreaterOrEqual(t, i, 0, "the labels entry is where the test expects it")
	// 0x58 0x07: field 11, varint 7. Then field 999, 7 bytes: 12 in all.
	bad := []byte{0x58, 0x07, 0xba, 0x3e, 0x07, 0, 0, 0, 0, 0, 0, 0}
	require.Len(t, bad, len(entry))
	return append(append(append([]byte(nil), raw[:i]...), bad...), raw[i+len(entry):]...)
}

// One corrupt field, one Problem: labels sent as a number are "does not
// fit the type" on the JSON wire and on protobuf alike (protobuf used to
// call them malformed, so a streaming informer backed off on one wire and
// fell back to LIST at once on the other), and the error names the object
// and the same path whatever the wire or the order of the members.
func TestOneCorruptFieldIsOneProblemOnBothWires(t *testing.T) {
	pb := labelsAsANumber(t)
	jsonItem := `{"metadata":{"labels":7,"name":"p","namespace":"ns"}}`
	type where struct {
		problem      watchstream.Problem
		object, path string
	}
	whereOf := func(err error) where {
		var de *watchstream.DecodeError
		require.ErrorAs(t, err, &de)
		return where{de.Problem, de.Object, de.Path}
	}
	t.Run("list", func(t *testing.T) {
		lists := map[string]func() error{
			"JSON": func() error {
				_, err := watchstream.DecodeList[testPod](strings.NewReader(`{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[`+jsonItem+`]}`),
					watchstream.Options{}, func(*testPod) error { return nil })
				return err
			},
			"protobuf": func() error {
				body := kubeproto.AppendEnvelope(nil, kubeproto.Envelope{APIVersion: "v1", Kind: "PodList",
					Raw: kubeproto.AppendListItem(kubeproto.AppendListMeta(nil, kubeproto.ListMeta{}), pb)})
				_, err := watchstream.DecodeList[testPod](bytes.NewReader(body), pbOptions(), func(*testPod) error { return nil })
				return err
			},
		}
		for name, list := range lists {
			require.Equal(t, where{watchstream.Undecodable, "ns/p", "/metadata/labels"}, whereOf(list()), name)
		}
	})
	t.Run("watch", func(t *testing.T) {
		obj := kubeproto.AppendEnvelope(nil, kubeproto.Envelope{APIVersion: "v1", Kind: "Pod", Raw: pb})
		streams := map[string]*watchstream.Stream[testPod, *testPod]{
			"JSON, type first (kube-apiserver's order)": watchstream.New[testPod](context.Background(),
				io.NopCloser(strings.NewReader(`{"type":"ADDED","object":`+jsonItem+`}`)), watchstream.Options{}),
			"JSON, object first": watchstream.New[testPod](context.Background(),
				io.NopCloser(strings.NewReader(`{"object":`+jsonItem+`,"type":"ADDED"}`)), watchstream.Options{}),
			"protobuf": watchstream.New[testPod](context.Background(),
				io.NopCloser(bytes.NewReader(pbStream(kubeproto.AppendWatchEvent(nil, kubeproto.WatchEvent{Type: "ADDED", Object: obj})))), pbOptions()),
		}
		for name, s := range streams {
			_, err := s.Next()
			require.Equal(t, where{watchstream.Undecodable, "ns/p", "/object/metadata/labels"}, whereOf(err), name)
		}
	})
}
