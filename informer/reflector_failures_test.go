package informer

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/kubeproto"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/protodec"
	"github.com/zerokube/zerokube/watchstream"
)

// decodeFailure is the error watchstream.DecodeList gives for body, read as
// contentType: a real decoder's error, not a hand-built one, so that the
// test breaks if a decoder stops saying what its Problem is.
func decodeFailure(t *testing.T, contentType string, body []byte) error {
	t.Helper()
	type port struct {
		meta.TypeMeta
		meta.ObjectMeta `json:"metadata"`
		Spec            struct {
			NodeName int32 `json:"nodeName"`
		} `json:"spec"`
	}
	_, err := watchstream.DecodeList[port](bytes.NewReader(body), watchstream.Options{ContentType: contentType,
		Protobuf: protodec.New(protodec.Options{})}, func(*port) error { return nil })
	require.Error(t, err)
	return err
}

// TestUnreadableRepliesAreNotCalledUnreachable: a reply that arrived but
// cannot be read gets the reason of its Problem, the same on both wires
// (issue 30's bug 2: a malformed or truncated protobuf LIST was "server
// unreachable", a truncated JSON one "other").
func TestUnreadableRepliesAreNotCalledUnreachable(t *testing.T) {
	m, _ := kubeproto.MessageFor("v1", "Pod")
	pod, err := kubeproto.AppendProto(nil, m, []byte(`{"metadata":{"name":"a","namespace":"ns"},"spec":{"nodeName":"n1"}}`))
	require.NoError(t, err)
	pbList := func(items ...[]byte) []byte {
		var raw []byte
		for _, it := range items {
			raw = append(raw, 0x12)
			raw = appendLen(raw, it)
		}
		return kubeproto.AppendEnvelope(nil, kubeproto.Envelope{APIVersion: "v1", Kind: "PodList", Raw: raw})
	}
	jsonList := []byte(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[{"metadata":{"name":"a","namespace":"ns"},"spec":{"nodeName":"n1"}}]}`)
	whole := pbList(pod)
	for _, tc := range []struct {
		name string
		json []byte
		pb   []byte
		want observe.FailureReason
	}{
		{"malformed body", []byte(`{"kind":"PodList","items":[}`), append([]byte("k8s\x00"), 0x0f, 0x00), observe.FailureMalformed},
		{"missing envelope", []byte(`[]`), []byte("\x0a\x02v1"), observe.FailureMalformed},
		{"cut mid-item", jsonList[:len(jsonList)-20], whole[:len(whole)-5], observe.FailureTruncated},
		{"item does not fit", jsonList, whole, observe.FailureUndecodable},
	} {
		for wire, body := range map[string][]byte{"json": tc.json, "protobuf": tc.pb} {
			ct := "application/json"
			if wire == "protobuf" {
				ct = kubeproto.ContentType
			}
			err := fmt.Errorf("informer: list: %w", decodeFailure(t, ct, body))
			require.Equal(t, tc.want, classify(err, 0), "%s over %s: %v", tc.name, wire, err)
		}
	}
	unknown := kubeproto.AppendEnvelope(nil, kubeproto.Envelope{APIVersion: "v1", Kind: "WidgetList", Raw: []byte{0x12, 0}})
	require.Equal(t, observe.FailureMalformed, classify(decodeFailure(t, kubeproto.ContentType, unknown), 0), "unknown kind")
	require.Equal(t, observe.FailureUnreachable, classify(errors.New("dial tcp: connection refused"), 0))
}

// appendLen appends b with its varint length.
func appendLen(dst, b []byte) []byte {
	n := uint64(len(b))
	for n >= 0x80 {
		dst = append(dst, byte(n)|0x80)
		n >>= 7
	}
	return append(append(dst, byte(n)), b...)
}
