package watchstream_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/gorilla/websocket"
	"github.com/klauspost/compress/gzip"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/kubeproto"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/protodec"
	"github.com/zerokube/zerokube/watchstream"
)

// pbEvent is one protobuf watch event (without its frame) whose object is
// given as JSON and transcoded by kubeproto.
func pbEvent(t testing.TB, typ, apiVersion, kind, objJSON string) []byte {
	t.Helper()
	m, ok := kubeproto.MessageFor(apiVersion, kind)
	require.True(t, ok)
	raw, err := kubeproto.AppendProto(nil, m, []byte(objJSON))
	require.NoError(t, err)
	obj := kubeproto.AppendEnvelope(nil, kubeproto.Envelope{APIVersion: apiVersion, Kind: kind, Raw: raw})
	return kubeproto.AppendWatchEvent(nil, kubeproto.WatchEvent{Type: typ, Object: obj})
}

func pbPodEvent(t testing.TB, typ, name, rv string) []byte {
	return pbEvent(t, typ, "v1", "Pod", fmt.Sprintf(`{"metadata":{"name":%q,"namespace":"ns","resourceVersion":%q},"status":{"phase":"Running"}}`, name, rv))
}

// pbStream frames events as a chunked protobuf watch body.
func pbStream(events ...[]byte) []byte {
	var b []byte
	for _, ev := range events {
		b = kubeproto.AppendFrame(b, ev)
	}
	return b
}

func pbOptions() watchstream.Options {
	return watchstream.Options{ContentType: kubeproto.ContentType, Protobuf: protodec.New(protodec.Options{})}
}

func TestProtobufFramesDecodeIntoTheCallersType(t *testing.T) {
	body := pbStream(
		pbPodEvent(t, "ADDED", "a", "1"),
		pbPodEvent(t, "MODIFIED", "a", "2"),
		pbEvent(t, "BOOKMARK", "v1", "Pod", `{"metadata":{"resourceVersion":"3","annotations":{"k8s.io/initial-events-end":"true"}}}`),
		pbPodEvent(t, "DELETED", "a", "4"))
	s := watchstream.New[testPod](context.Background(), io.NopCloser(bytes.NewReader(body)), pbOptions())
	evs, err := drain(s)
	require.ErrorIs(t, err, io.EOF)
	var gots []got
	for _, ev := range evs {
		gots = append(gots, summarize(ev))
	}
	require.Equal(t, []got{
		{meta.Added, "a", "1", "Running", false},
		{meta.Modified, "a", "2", "Running", false},
		{meta.Bookmark, "", "3", "", true},
		{meta.Deleted, "a", "4", "Running", false},
	}, gots)
	require.Equal(t, meta.TypeMeta{Kind: "Pod", APIVersion: "v1"}, evs[0].Object.TypeMeta, "watch objects carry their kind, as in JSON")
}

func TestAProtobufErrorEventEndsTheStreamWithItsStatus(t *testing.T) {
	body := pbStream(pbPodEvent(t, "ADDED", "a", "1"),
		pbEvent(t, "ERROR", "v1", "Status", `{"status":"Failure","message":"too old resource version: 1 (5)","reason":"Expired","code":410}`))
	s := watchstream.New[testPod](context.Background(), io.NopCloser(bytes.NewReader(body)), pbOptions())
	evs, err := drain(s)
	require.Len(t, evs, 1)
	require.True(t, meta.IsGone(err), "%v", err)
	require.ErrorContains(t, err, "too old resource version")
}

func TestProtobufFramesInGzipMembersDecode(t *testing.T) {
	var body bytes.Buffer
	for _, ev := range [][]byte{pbPodEvent(t, "ADDED", "a", "1"), pbPodEvent(t, "ADDED", "b", "2")} {
		zw := gzip.NewWriter(&body)
		_, _ = zw.Write(pbStream(ev))
		require.NoError(t, zw.Close())
	}
	o := pbOptions()
	o.ContentEncoding = "gzip"
	evs, err := drain(watchstream.New[testPod](context.Background(), io.NopCloser(&body), o))
	require.ErrorIs(t, err, io.EOF)
	require.Len(t, evs, 2)
	require.Equal(t, "b", evs[1].Object.Name)
}

func TestBrokenProtobufFramesNameTheEventAndTheByte(t *testing.T) {
	ok := pbStream(pbPodEvent(t, "ADDED", "a", "1"))
	for _, tc := range []struct {
		name string
		body []byte
		want string
	}{
		{"cut inside the second frame", append(ok, ok[:len(ok)-3]...), "event 2 at byte " + fmt.Sprint(len(ok))},
		{"a frame over the size limit", append(ok, 0x7f, 0xff, 0xff, 0xff), "too large"},
		{"an unknown event type", pbStream(pbEvent(t, "RENAMED", "v1", "Pod", `{}`)), `unknown event type "RENAMED"`},
		{"an ERROR of a kind the table lacks", pbStream(kubeproto.AppendWatchEvent(nil, kubeproto.WatchEvent{Type: "ERROR",
			Object: kubeproto.AppendEnvelope(nil, kubeproto.Envelope{APIVersion: "x.io/v1", Kind: "Widget"})})), "not in the protobuf table"},
		{"no decoder", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := pbOptions()
			if tc.body == nil {
				tc.body, tc.want, o.Protobuf = ok, "Options.Protobuf is nil", nil
			}
			_, err := drain(watchstream.New[testPod](context.Background(), io.NopCloser(bytes.NewReader(tc.body)), o))
			var de *watchstream.DecodeError
			require.ErrorAs(t, err, &de)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestWebsocketBinaryMessagesAreProtobufEvents(t *testing.T) {
	conn := wsServer(t, func(conn *websocket.Conn) {
		_ = conn.WriteMessage(websocket.BinaryMessage, pbPodEvent(t, "ADDED", "a", "1"))
		sendAll(conn, `{"type":"MODIFIED","object":{"metadata":{"name":"a","resourceVersion":"2"}}}`)
		closeWith(conn, websocket.CloseNormalClosure, "")
	})
	evs, err := drain(watchstream.NewWebsocket[testPod](context.Background(), conn, pbOptions()))
	require.ErrorIs(t, err, io.EOF)
	require.Len(t, evs, 2)
	require.Equal(t, got{meta.Added, "a", "1", "Running", false}, summarize(evs[0]))
	require.Equal(t, got{meta.Modified, "a", "2", "", false}, summarize(evs[1]))
}

// TestAProtobufObjectOfAnUnknownKindEndsTheStream: a kind the table lacks
// (a server newer than kubeproto's table) fails the watch with UnknownKind,
// as client-go's serializer fails on an unregistered kind. Decoding it by
// its metadata alone would hand over an object whose spec and status are
// silently empty, which an informer whose kind it is would cache (the bug
// of issue 30: a Widget in v1 cached with only its metadata).
func TestAProtobufObjectOfAnUnknownKindEndsTheStream(t *testing.T) {
	m, _ := kubeproto.MessageFor("v1", "Pod")
	raw, err := kubeproto.AppendProto(nil, m, []byte(`{"metadata":{"name":"odd","namespace":"ns","resourceVersion":"7"},"status":{"phase":"Running"}}`))
	require.NoError(t, err)
	for _, apiVersion := range []string{"v1", "v2"} { // a new kind in a known group/version, and in an unknown one
		obj := kubeproto.AppendEnvelope(nil, kubeproto.Envelope{APIVersion: apiVersion, Kind: "Widget", Raw: raw})
		body := pbStream(pbPodEvent(t, "ADDED", "a", "6"), kubeproto.AppendWatchEvent(nil, kubeproto.WatchEvent{Type: "ADDED", Object: obj}))
		evs, err := drain(watchstream.New[testPod](context.Background(), io.NopCloser(bytes.NewReader(body)), pbOptions()))
		require.Len(t, evs, 1, apiVersion)
		require.Equal(t, watchstream.UnknownKind, watchstream.ProblemOf(err), "%s: %v", apiVersion, err)
		require.ErrorIs(t, err, kubeproto.ErrUnknownKind)
		var de *watchstream.DecodeError
		require.ErrorAs(t, err, &de)
		require.Equal(t, int64(2), de.Event)
	}
}

// probePod declares a probe's port int32 where the API has an
// IntOrString: a named port does not fit it.
type probePod struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Spec            struct {
		Containers []struct {
			Probe struct {
				HTTPGet struct {
					Port int32 `json:"port"`
				} `json:"httpGet"`
			} `json:"readinessProbe"`
		} `json:"containers"`
	} `json:"spec"`
}

// An object that does not fit the caller's type ends the stream with a
// DecodeError naming the event, the object and the value's JSON pointer
// in the event, the same on a protobuf stream as on a JSON one.
func TestAnObjectThatDoesNotFitIsNamedTheSameInProtobufAndJSON(t *testing.T) {
	const good = `{"metadata":{"name":"a","namespace":"ns"},"spec":{"containers":[{"readinessProbe":{"httpGet":{"port":80}}}]}}`
	const bad = `{"metadata":{"name":"b","namespace":"ns"},"spec":{"containers":[{},{"readinessProbe":{"httpGet":{"port":"http"}}}]}}`
	pb := pbStream(pbEvent(t, "ADDED", "v1", "Pod", good), pbEvent(t, "ADDED", "v1", "Pod", bad))
	js := `{"type":"ADDED","object":` + good + "}\n" + `{"type":"ADDED","object":` + bad + "}\n"
	for name, s := range map[string]*watchstream.Stream[probePod, *probePod]{
		"protobuf": watchstream.New[probePod](context.Background(), io.NopCloser(bytes.NewReader(pb)), pbOptions()),
		"json":     watchstream.New[probePod](context.Background(), io.NopCloser(strings.NewReader(js)), watchstream.Options{}),
	} {
		t.Run(name, func(t *testing.T) {
			evs, err := drain(s)
			require.Len(t, evs, 1)
			var de *watchstream.DecodeError
			require.ErrorAs(t, err, &de)
			require.Equal(t, int64(2), de.Event)
			require.Equal(t, "ns/b", de.Object)
			require.Equal(t, "/object/spec/containers/1/readinessProbe/httpGet/port", de.Path)
		})
	}
}
