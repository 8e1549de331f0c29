package watchstream_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

// got is the comparable summary of a decoded event.
type got struct {
	Type       meta.EventType
	Name, RV   string
	Phase      string
	InitialEnd bool
}

func summarize(ev watchstream.Event[*testPod]) got {
	return got{ev.Type, ev.Object.Name, ev.ResourceVersion, ev.Object.Status.Phase, ev.InitialEventsEnd}
}

// closeRecorder is a body that remembers being closed.
type closeRecorder struct {
	io.Reader
	closed atomic.Bool
}

func (c *closeRecorder) Close() error { c.closed.Store(true); return nil }

// drain reads a stream to its end and returns the events and the final error.
func drain[T any, P meta.PtrObject[T]](s *watchstream.Stream[T, P]) ([]watchstream.Event[P], error) {
	var evs []watchstream.Event[P]
	for {
		ev, err := s.Next()
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
}

var goodStreams = []struct {
	name  string
	input string
	want  []got
}{
	{"empty", "", nil},
	{"whitespace only", " \n\t\r\n", nil},
	{"newline separated",
		`{"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"1"},"status":{"phase":"Pending"}}}` + "\n" +
			`{"type":"MODIFIED","object":{"metadata":{"name":"a","resourceVersion":"2"},"status":{"phase":"Running"}}}` + "\n" +
			`{"type":"DELETED","object":{"metadata":{"name":"a","resourceVersion":"3"}}}` + "\n",
		[]got{{meta.Added, "a", "1", "Pending", false}, {meta.Modified, "a", "2", "Running", false}, {meta.Deleted, "a", "3", "", false}}},
	{"no separators",
		`{"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"1"}}}{"type":"ADDED","object":{"metadata":{"name":"b","resourceVersion":"2"}}}`,
		[]got{{meta.Added, "a", "1", "", false}, {meta.Added, "b", "2", "", false}}},
	{"object before type",
		` {"object":{"metadata":{"name":"a","resourceVersion":"5"},"status":{"phase":"Running"}},"type":"MODIFIED"}` + "\r\n",
		[]got{{meta.Modified, "a", "5", "Running", false}}},
	{"unknown members and unknown object fields are ignored",
		`{"kind":"WatchEvent","type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"1"},"spec":{"x":[1,2,{"y":null}]}},"extra":[1]}`,
		[]got{{meta.Added, "a", "1", "", false}}},
	{"escaped member names and type",
		`{"\u0074ype":"\u0041DDED","obj\u0065ct":{"metadata":{"name":"a\u00e9","resourceVersion":"1"}}}`,
		[]got{{meta.Added, "aé", "1", "", false}}},
	{"bookmarks",
		`{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"100"}}}` + "\n" +
			`{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"101","annotations":{"k8s.io/initial-events-end":"true"}},"spec":{"containers":null},"status":{}}}` + "\n",
		[]got{{meta.Bookmark, "", "100", "", false}, {meta.Bookmark, "", "101", "", true}}},
	{"the end marker belongs to its own bookmark only",
		`{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"101","annotations":{"k8s.io/initial-events-end":"true"}}}}` + "\n" +
			`{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"102"}}}` + "\n" +
			`{"object":{"metadata":{"name":"a","resourceVersion":"103"}},"type":"MODIFIED"}` + "\n",
		[]got{{meta.Bookmark, "", "101", "", true}, {meta.Bookmark, "", "102", "", false}, {meta.Modified, "a", "103", "", false}}},
	{"initial-events-end only counts on bookmarks",
		`{"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"1","annotations":{"k8s.io/initial-events-end":"true"}}}}`,
		[]got{{meta.Added, "a", "1", "", false}}},
}

// readers returns the ways a body can arrive: whole, one byte per read, and
// split in two at every byte boundary.
func readers(input string) map[string]func() io.Reader {
	rs := map[string]func() io.Reader{
		"whole":    func() io.Reader { return strings.NewReader(input) },
		"one byte": func() io.Reader { return iotest.OneByteReader(strings.NewReader(input)) },
		"half":     func() io.Reader { return iotest.HalfReader(strings.NewReader(input)) },
	}
	for k := 1; k < len(input); k++ {
		rs[fmt.Sprintf("split at %d", k)] = func() io.Reader {
			return io.MultiReader(iotest.DataErrReader(strings.NewReader(input[:k])), strings.NewReader(input[k:]))
		}
	}
	return rs
}

func TestChunkedDecodesEveryFraming(t *testing.T) {
	for _, tc := range goodStreams {
		t.Run(tc.name, func(t *testing.T) {
			for how, r := range readers(tc.input) {
				body := &closeRecorder{Reader: r()}
				s := watchstream.New[testPod](context.Background(), body, watchstream.Options{})
				evs, err := drain(s)
				require.ErrorIs(t, err, io.EOF, how)
				var gots []got
				for _, ev := range evs {
					gots = append(gots, summarize(ev))
				}
				require.Equal(t, tc.want, gots, how)
				require.True(t, body.closed.Load(), "%s: body closed at the end", how)
				_, err = s.Next()
				require.ErrorIs(t, err, io.EOF, "%s: the end is sticky", how)
			}
		})
	}
}

func TestChunkedDecodesIntoRaw(t *testing.T) {
	obj := `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","namespace":"ns","resourceVersion":"7"},"spec":{"nodeName":"n1"}}`
	in := `{"type":"ADDED","object":` + obj + "}\n" + `{"object":` + obj + `,"type":"DELETED"}` + "\n"
	s := watchstream.New[meta.Raw](context.Background(), io.NopCloser(strings.NewReader(in)), watchstream.Options{})
	evs, err := drain(s)
	require.ErrorIs(t, err, io.EOF)
	require.Len(t, evs, 2)
	for _, ev := range evs {
		require.Equal(t, "ns/a", meta.Key(ev.Object))
		require.Equal(t, "7", ev.ResourceVersion)
		require.Equal(t, obj, string(ev.Object.Bytes()))
	}
	require.NotSame(t, evs[0].Object, evs[1].Object)
}

const okEvent = `{"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"1"}}}` + "\n"

func TestChunkedBadInput(t *testing.T) {
	for _, tc := range []struct {
		name      string
		input     string
		maxSize   int
		wantOK    int    // events decoded before the error
		wantEvent int64  // DecodeError.Event
		wantAt    int64  // DecodeError.Offset
		wantMsg   string // part of the error text
	}{
		{"truncated", okEvent + `{"type":"ADDED","object":{"metadata":{"na`, 0, 1, 2, int64(len(okEvent)), "truncated: "},
		{"cut inside the object", okEvent + `{"type":"ADDED","object":{"metadata":{"na`, 0, 1, 2, int64(len(okEvent)), "the stream ended inside the object of an event (ADDED)"},
		{"garbage between events", okEvent + "xyz" + okEvent, 0, 1, 2, int64(len(okEvent)), "invalid character 'x'"},
		{"unknown type", okEvent + `{"type":"RENAMED","object":{}}`, 0, 1, 2, int64(len(okEvent)), `unknown event type "RENAMED"`},
		{"type not a string", `{"type":1,"object":{}}`, 0, 0, 1, 0, "event type is a JSON number"},
		{"object does not decode into T", `{"type":"ADDED","object":{"metadata":{"name":5}}}`, 0, 0, 1, 0, "ADDED object does not decode into *watchstream_test.testPod"},
		{"object does not decode, buffered", `{"object":{"metadata":[]},"type":"ADDED"}`, 0, 0, 1, 0, "does not decode into"},
		{"event not an object", okEvent + `[1,2]`, 0, 1, 2, int64(len(okEvent)), "event is a JSON [, want an object"},
		{"no type", `{"object":{}}`, 0, 0, 1, 0, "event has no type"},
		{"no object", `{"type":"DELETED"}`, 0, 0, 1, 0, "DELETED event has no object"},
		{"null object", `{"type":"ADDED","object":null}`, 0, 0, 1, 0, "null object"},
		{"ERROR object not a Status", `{"type":"ERROR","object":{"foo":1}}`, 0, 0, 1, 0, "ERROR event object is not a Status"},
		{"ERROR object not an object", `{"type":"ERROR","object":"boom"}`, 0, 0, 1, 0, "ERROR event object is not a Status"},
		{"too large", okEvent + `{"type":"ADDED","object":{"metadata":{"name":"` + strings.Repeat("x", 300) + `"}}}`, 100, 1, 2, int64(len(okEvent)), "larger than MaxEventSize (100 bytes)"},
		{"unterminated string never ends", `{"type":"ADDED","object":{"metadata":{"name":"` + strings.Repeat("x", 5000), 1000, 0, 1, 0, "larger than MaxEventSize (1000 bytes)"},
		{"trailing garbage", okEvent + "}", 0, 1, 2, int64(len(okEvent)), "invalid character '}'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for how, r := range readers(tc.input) {
				var c watchstream.Counters
				s := watchstream.New[testPod](context.Background(), io.NopCloser(r()),
					watchstream.Options{MaxEventSize: tc.maxSize, Metrics: &c})
				evs, err := drain(s)
				require.Len(t, evs, tc.wantOK, how)
				var de *watchstream.DecodeError
				require.ErrorAs(t, err, &de, how)
				require.Equal(t, tc.wantEvent, de.Event, "%s: %v", how, err)
				require.GreaterOrEqual(t, de.Offset, tc.wantAt, "%s: %v", how, err)
				require.ErrorContains(t, err, tc.wantMsg, how)
				if tc.maxSize > 0 {
					require.ErrorIs(t, err, watchstream.ErrTooLarge)
				}
				_, again := s.Next()
				require.Equal(t, err, again, "the error is sticky")
				require.Equal(t, int64(1), c.DecodeErrors.Load())
				require.Equal(t, int64(tc.wantOK), c.Events.Load())
			}
		})
	}
}

func TestErrorEventEndsTheStreamWithAStatusError(t *testing.T) {
	for _, order := range []string{
		`{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (5)","reason":"Expired","code":410}}`,
		`{"object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (5)","reason":"Expired","code":410},"type":"ERROR"}`,
	} {
		body := &closeRecorder{Reader: strings.NewReader(okEvent + order + "\n" + okEvent)}
		s := watchstream.New[testPod](context.Background(), body, watchstream.Options{})
		evs, err := drain(s)
		require.Len(t, evs, 1)
		require.True(t, meta.IsGone(err), "%v", err)
		var se *meta.StatusError
		require.ErrorAs(t, err, &se)
		require.Equal(t, "too old resource version: 1 (5)", se.Status.Message)
		require.ErrorContains(t, err, "ERROR event 2")
		require.True(t, body.closed.Load())
		_, err = s.Next()
		require.True(t, meta.IsGone(err), "the stream is over")
	}
}

func TestUnsupportedContentEncoding(t *testing.T) {
	s := watchstream.New[testPod](context.Background(), io.NopCloser(strings.NewReader(okEvent)),
		watchstream.Options{ContentEncoding: "br"})
	_, err := s.Next()
	require.ErrorContains(t, err, `unsupported content encoding "br"`)
}

func TestAllIteratesUntilTheEnd(t *testing.T) {
	in := strings.Repeat(okEvent, 3)
	s := watchstream.New[testPod](context.Background(), io.NopCloser(strings.NewReader(in)), watchstream.Options{})
	n := 0
	for ev, err := range s.All() {
		require.NoError(t, err)
		require.Equal(t, "a", ev.Object.Name)
		n++
	}
	require.Equal(t, 3, n)

	s = watchstream.New[testPod](context.Background(), io.NopCloser(strings.NewReader(okEvent+"!")), watchstream.Options{})
	var errs []error
	for _, err := range s.All() {
		errs = append(errs, err)
	}
	require.Len(t, errs, 2)
	require.NoError(t, errs[0])
	var de *watchstream.DecodeError
	require.ErrorAs(t, errs[1], &de)

	s = watchstream.New[testPod](context.Background(), io.NopCloser(strings.NewReader(in)), watchstream.Options{})
	for range s.All() {
		break
	}
	ev, err := s.Next()
	require.NoError(t, err, "breaking out leaves the stream usable")
	require.Equal(t, "a", ev.Object.Name)
	s.Stop()
}

func TestMetricsCountBytesAndEvents(t *testing.T) {
	var c watchstream.Counters
	in := strings.Repeat(okEvent, 4)
	s := watchstream.New[testPod](context.Background(), io.NopCloser(strings.NewReader(in)), watchstream.Options{Metrics: &c})
	_, err := drain(s)
	require.ErrorIs(t, err, io.EOF)
	require.Equal(t, int64(4), c.Events.Load())
	require.Equal(t, int64(len(in)), c.Bytes.Load())
	require.Zero(t, c.DecodeErrors.Load())
}

var _ = errors.New

func TestUnmarshalOptionsApplyToObjects(t *testing.T) {
	obj := `{"metadata":{"name":"a","resourceVersion":"7","managedFields":[{"manager":"m"}]}}`
	// The second event names its object first, so it is decoded from the
	// buffered bytes: both paths must honour the options.
	in := `{"type":"ADDED","object":` + obj + "}\n" + `{"object":` + obj + `,"type":"MODIFIED"}` + "\n"
	s := watchstream.New[testPod](context.Background(), io.NopCloser(strings.NewReader(in)),
		watchstream.Options{Unmarshal: meta.SkipManagedFields()})
	evs, err := drain(s)
	require.ErrorIs(t, err, io.EOF)
	require.Len(t, evs, 2)
	for _, ev := range evs {
		require.Equal(t, "a", ev.Object.Name)
		require.Nil(t, ev.Object.ManagedFields, "%s", ev.Type)
	}
}

// TestUndecodableObjectIsNamed: an event whose object is valid JSON but
// does not fit the type names the object (namespace/name, from the metadata
// decoded before the failure) and the JSON path of the value, so that an
// operator can find it.
func TestUndecodableObjectIsNamed(t *testing.T) {
	bad := `{"type":"MODIFIED","object":{"metadata":{"name":"web","namespace":"prod"},"status":{"phase":7}}}` + "\n"
	for how, r := range readers(okEvent + bad) {
		s := watchstream.New[testPod](context.Background(), io.NopCloser(r()), watchstream.Options{})
		_, err := drain(s)
		var de *watchstream.DecodeError
		require.ErrorAs(t, err, &de, how)
		require.Equal(t, int64(2), de.Event, how)
		require.Equal(t, "prod/web", de.Object, how)
		require.Equal(t, "/object/status/phase", de.Path, how)
		require.ErrorContains(t, err, "event 2 at byte", how)
		require.ErrorContains(t, err, "(object prod/web) at /object/status/phase", how)
	}
}
