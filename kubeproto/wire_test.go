package kubeproto

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEnvelopeRoundTrips(t *testing.T) {
	in := Envelope{APIVersion: "apps/v1", Kind: "Deployment", Raw: []byte{0x0a, 0x00}}
	b := AppendEnvelope(nil, in)
	require.True(t, bytes.HasPrefix(b, []byte("k8s\x00")))
	out, err := DecodeEnvelope(b)
	require.NoError(t, err)
	assert.Equal(t, in, out)
}

func TestEnvelopeWithoutMagicIsRefused(t *testing.T) {
	_, err := DecodeEnvelope([]byte("{\"kind\":\"Pod\"}"))
	require.ErrorIs(t, err, ErrNoMagic)
}

func TestEnvelopeErrorsSayWhereTheyFailed(t *testing.T) {
	b := AppendEnvelope(nil, Envelope{APIVersion: "v1", Kind: "Pod", Raw: []byte("xyz")})
	_, err := DecodeEnvelope(b[:len(b)-6]) // cut inside raw
	var de *DecodeError
	require.ErrorAs(t, err, &de)
	assert.ErrorIs(t, err, ErrTruncated)
	assert.Equal(t, "envelope", de.What)
	assert.Equal(t, 4+2+len("v1")+2+len("Pod")+2, de.Offset, "the offset of raw's tag, counted from the magic")
}

// listJSON reads a PodList message as its JSON, the way a reader of a
// list (AppendJSON, protodec) walks it.
func listJSON(t *testing.T, b []byte) map[string]any {
	t.Helper()
	m, ok := MessageFor("v1", "PodList")
	require.True(t, ok)
	j, err := AppendJSON(nil, m, b)
	require.NoError(t, err)
	var v map[string]any
	require.NoError(t, json.Unmarshal(j, &v))
	return v
}

func TestLengthsAboveOneByteAreWrittenInPlace(t *testing.T) {
	sizes := []int{0, 1, 300, 20000, 3 << 20}
	for n := 118; n <= 130; n++ { // the ListMeta's length 127, 128, 129 among them
		sizes = append(sizes, n, n+16384-128)
	}
	for _, n := range sizes {
		var lm ListMeta
		lm.Continue = strings.Repeat("c", n)
		b := AppendListItem(AppendListMeta(nil, lm), nil)
		l := listJSON(t, b)
		md, _ := l["metadata"].(map[string]any)
		got, _ := md["continue"].(string)
		assert.Len(t, got, n)
		assert.Len(t, l["items"], 1, "the item after the metadata starts where the metadata ends, %d", n)
	}
}

func TestListRoundTripsMetaAndItems(t *testing.T) {
	rem := int64(42)
	lm := ListMeta{SelfLink: "/s", ResourceVersion: "123", Continue: "tok", RemainingItemCount: &rem, HasShardInfo: true, ShardSelector: "shardRange(...)"}
	b := AppendListMeta(nil, lm)
	pod, _ := MessageFor("v1", "Pod")
	for _, name := range []string{"a", "", strings.Repeat("x", 300)} {
		item, err := AppendProto(nil, pod, []byte(`{"metadata":{"name":"`+name+`"}}`))
		require.NoError(t, err)
		b = AppendListItem(b, item)
	}
	l := listJSON(t, b)
	assert.Equal(t, map[string]any{"selfLink": "/s", "resourceVersion": "123", "continue": "tok",
		"remainingItemCount": 42.0, "shardInfo": map[string]any{"selector": "shardRange(...)"}}, l["metadata"])
	items, _ := l["items"].([]any)
	require.Len(t, items, 3)
	for i, name := range []string{"a", "", strings.Repeat("x", 300)} {
		md, _ := items[i].(map[string]any)["metadata"].(map[string]any)
		got, _ := md["name"].(string)
		assert.Equal(t, name, got, i)
	}
}

func TestWatchEventRoundTripsThroughFrames(t *testing.T) {
	obj := AppendEnvelope(nil, Envelope{APIVersion: "v1", Kind: "ConfigMap", Raw: []byte{0x0a, 0x00}})
	var stream []byte
	for _, typ := range []string{"ADDED", "MODIFIED", "BOOKMARK"} {
		stream = AppendFrame(stream, AppendWatchEvent(nil, WatchEvent{Type: typ, Object: obj}))
	}
	var types []string
	for _, ev := range readEvents(t, stream) {
		assert.Equal(t, obj, ev.Object)
		types = append(types, ev.Type)
	}
	assert.Equal(t, []string{"ADDED", "MODIFIED", "BOOKMARK"}, types)
}

// readEvents reads every frame of a watch stream as a WatchEvent.
func readEvents(t *testing.T, stream []byte) []WatchEvent {
	t.Helper()
	fr := NewFrameReader(bytes.NewReader(stream), 0)
	var evs []WatchEvent
	for {
		msg, err := fr.Next()
		if err == io.EOF {
			return evs
		}
		require.NoError(t, err)
		ev, err := DecodeWatchEvent(bytes.Clone(msg))
		require.NoError(t, err)
		evs = append(evs, ev)
	}
}

func TestFrameReaderRefusesFramesAboveTheLimit(t *testing.T) {
	stream := AppendFrame(AppendFrame(nil, []byte("ok")), make([]byte, 100))
	fr := NewFrameReader(bytes.NewReader(stream), 10)
	_, err := fr.Next()
	require.NoError(t, err)
	_, err = fr.Next()
	require.ErrorIs(t, err, ErrTooLarge)
	assert.Contains(t, err.Error(), "watch frame 2 at byte 6", "the second frame, counted from 1")
}

func TestFrameReaderReportsAStreamCutInsideAFrame(t *testing.T) {
	stream := AppendFrame(nil, []byte("hello"))
	for cut := 1; cut < len(stream); cut++ {
		_, err := NewFrameReader(bytes.NewReader(stream[:cut]), 0).Next()
		require.ErrorIs(t, err, ErrTruncated, "cut at %d", cut)
		// A cut connection, as for a JSON event: the informer re-watches
		// instead of relisting as after a bad frame.
		require.ErrorIs(t, err, io.ErrUnexpectedEOF, "cut at %d", cut)
	}
}

func TestHugeClaimedFrameDoesNotAllocateUpFront(t *testing.T) {
	stream := []byte{0x00, 0xff, 0xff, 0xff, 'x'} // claims 16 MiB - 1, holds 1 byte
	allocs := testing.AllocsPerRun(5, func() {
		_, err := NewFrameReader(bytes.NewReader(stream), 0).Next()
		if !errors.Is(err, ErrTruncated) {
			t.Fatal(err)
		}
	})
	assert.Less(t, allocs, 10.0)
}

func TestEveryListKindHasMetadataAndItems(t *testing.T) {
	n := 0
	Kinds(func(apiVersion, kind string) bool {
		if !strings.HasSuffix(kind, "List") || strings.HasPrefix(kind, "API") {
			return true // APIGroupList and APIResourceList are discovery documents
		}
		m, ok := MessageFor(apiVersion, kind)
		require.True(t, ok)
		md, ok := m.FieldByNumber(1)
		require.True(t, ok, "%s %s", apiVersion, kind)
		assert.Equal(t, "metadata", md.JSONName())
		assert.Equal(t, "k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta", md.Message().Name())
		items, ok := m.FieldByNumber(2)
		require.True(t, ok)
		assert.Equal(t, "items", items.JSONName(), "%s %s", apiVersion, kind)
		assert.True(t, items.Repeated())
		n++
		return true
	})
	assert.Greater(t, n, 100)
}

func TestLookupsFindBuiltInKindsOnly(t *testing.T) {
	pod, ok := MessageFor("v1", "Pod")
	require.True(t, ok)
	assert.Equal(t, "k8s.io.api.core.v1.Pod", pod.Name())
	byName, ok := MessageByName("k8s.io.api.core.v1.Pod")
	require.True(t, ok)
	assert.Equal(t, pod, byName)
	st, ok := MessageFor("v1", "Status")
	require.True(t, ok)
	assert.Equal(t, "k8s.io.apimachinery.pkg.apis.meta.v1.Status", st.Name())
	_, ok = MessageFor("example.com/v1", "Widget")
	assert.False(t, ok)
	_, ok = MessageFor("v1", "Deployment")
	assert.False(t, ok)

	vol, ok := MessageByName("k8s.io.api.core.v1.Volume")
	require.True(t, ok)
	f, ok := vol.FieldByJSON("configMap") // inside the inline VolumeSource
	require.True(t, ok)
	assert.Equal(t, 19, f.Number())
	src, _ := vol.FieldByNumber(2)
	assert.True(t, src.Inline())
}

// Invariant 2's bound for AppendJSON: an empty occurrence (2 bytes) of any
// message writes that message's zero JSON, which must stay small.
func TestZeroJSONOfEveryMessageIsAtMost300Bytes(t *testing.T) {
	for i := range messages {
		out, err := appendMessageValueJSON(nil, int32(i), nil, 0)
		require.Nil(t, err)
		assert.LessOrEqual(t, len(out), 300, str(messages[i].name))
	}
}

func TestLooseEncodingPoisonsOnlyTheFieldThatDoesNotFit(t *testing.T) {
	js := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"bad"},"data":7}`)
	_, err := AppendObjectProto(nil, js)
	require.ErrorIs(t, err, ErrMalformed)
	assert.Contains(t, err.Error(), "field data")
	pb, err := AppendObjectProtoLoose(nil, js)
	require.NoError(t, err)
	env, err := DecodeEnvelope(pb)
	require.NoError(t, err)
	cm, _ := MessageFor("v1", "ConfigMap")
	_, err = AppendJSON(nil, cm, env.Raw)
	require.ErrorIs(t, err, ErrMalformed, "a protobuf reader refuses the poisoned field")
	assert.Contains(t, err.Error(), "field data")
	md, _ := cm.FieldByNumber(1)
	var name []byte
	for off := 0; off < len(env.Raw); {
		num, _, val, _, n, err := next(env.Raw[off:])
		require.NoError(t, err)
		if num == md.Number() {
			name = val
		}
		off += n
	}
	assert.Contains(t, string(name), "bad", "the rest of the object is intact")
}
