package watchstream_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

// These tests play a hostile or broken server: each stream must end in a
// clear error with bounded memory, never a panic or an endless read.

// endless is a body that repeats prefix once, then body forever, and counts
// what was read.
type endless struct {
	prefix []byte
	body   []byte
	off    int
	read   int64
}

func (e *endless) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(e.prefix) > 0 {
			c := copy(p[n:], e.prefix)
			e.prefix = e.prefix[c:]
			n += c
			continue
		}
		c := copy(p[n:], e.body[e.off:])
		e.off = (e.off + c) % len(e.body)
		n += c
	}
	e.read += int64(n)
	return n, nil
}

func (e *endless) Close() error { return nil }

// allocated runs f and returns the bytes it allocated (all goroutines, so
// the tests that use it run nothing else at the same time).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestEndlessInputEndsAtTheEventSizeLimit(t *testing.T) {
	const limit = 1 << 20
	okEvent := `{"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"1"}}}` + "\n"
	for _, tc := range []struct {
		name   string
		prefix string
		body   string
		ok     int // events before the error
	}{
		{"a string that never closes", okEvent + `{"type":"ADDED","object":{"metadata":{"name":"`, "x", 1},
		{"an object whose members never end", `{"type":"ADDED","object":{`, `"k":"v",`, 0},
		{"a number that never ends", `{"type":"ADDED","object":{"metadata":{"generation":1`, "1", 0},
		{"whitespace forever, no newline and no event", okEvent, " ", 1},
		{"an envelope padded with unknown members forever", `{"type":"ADDED",`, `"pad":"xxxxxxxxxxxxxxxx",`, 0},
		{"an ERROR event whose Status never ends", `{"type":"ERROR","object":{"kind":"Status","message":"`, "boom ", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := &endless{prefix: []byte(tc.prefix), body: []byte(tc.body)}
			var evs []watchstream.Event[*testPod]
			var err error
			alloc := allocated(func() {
				s := watchstream.New[testPod](context.Background(), body, watchstream.Options{MaxEventSize: limit})
				evs, err = drain(s)
			})
			require.Len(t, evs, tc.ok)
			require.ErrorIs(t, err, watchstream.ErrTooLarge)
			var de *watchstream.DecodeError
			require.ErrorAs(t, err, &de)
			require.Equal(t, int64(tc.ok+1), de.Event)
			require.Less(t, body.read, int64(4*limit), "the decoder stopped reading soon after the limit")
			require.Less(t, alloc, uint64(16*limit), "memory stays bounded by the limit")
		})
	}
}

func TestAGzipBombEndsAtTheEventSizeLimit(t *testing.T) {
	// 64 MiB of one event's string in about 100 KiB of gzip: the limit
	// applies after gunzip, so it is the decoded size that counts. The
	// body is gzip members one after the other, as a gzip reader reads
	// them (compress/gzip's Multistream), so that the test compresses
	// 1 MiB once instead of 64 MiB (seconds under -race).
	gz := func(parts ...[]byte) []byte {
		var b bytes.Buffer
		zw, err := gzip.NewWriterLevel(&b, gzip.BestSpeed)
		require.NoError(t, err)
		for _, p := range parts {
			_, _ = zw.Write(p)
		}
		require.NoError(t, zw.Close())
		return b.Bytes()
	}
	chunk := gz(bytes.Repeat([]byte("a"), 1<<20))
	var b bytes.Buffer
	b.Write(gz([]byte(`{"type":"ADDED","object":{"metadata":{"name":"`)))
	for range 64 {
		b.Write(chunk)
	}
	b.Write(gz([]byte(`"}}}`)))
	var err error
	alloc := allocated(func() {
		s := watchstream.New[testPod](context.Background(), io.NopCloser(bytes.NewReader(b.Bytes())),
			watchstream.Options{MaxEventSize: 1 << 20, ContentEncoding: "gzip"})
		_, err = s.Next()
	})
	require.ErrorIs(t, err, watchstream.ErrTooLarge)
	require.Less(t, alloc, uint64(16<<20))
}

func TestDeeplyNestedObjectIsRefused(t *testing.T) {
	in := `{"type":"ADDED","object":{"metadata":{"name":"a"},"x":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "}}"
	s := watchstream.New[testPod](context.Background(), io.NopCloser(strings.NewReader(in)), watchstream.Options{})
	_, err := s.Next()
	var de *watchstream.DecodeError
	require.ErrorAs(t, err, &de, "nesting deeper than the decoder allows is bad input, not a crash")
}

func TestErrorEventsThatAreNotStatuses(t *testing.T) {
	for name, obj := range map[string]string{
		"a pod":                            `{"metadata":{"name":"a","resourceVersion":"4"}}`,
		"a number":                         `410`,
		"an array":                         `[{"kind":"Status"}]`,
		"a Status kind with a string code": `{"kind":"Status","code":"410"}`,
		"an empty object":                  `{}`,
	} {
		t.Run(name, func(t *testing.T) {
			in := `{"type":"ERROR","object":` + obj + "}\n"
			s := watchstream.New[testPod](context.Background(), io.NopCloser(strings.NewReader(in)), watchstream.Options{})
			_, err := s.Next()
			var de *watchstream.DecodeError
			require.ErrorAs(t, err, &de, "%v", err)
			require.False(t, meta.IsGone(err), "a broken ERROR event must not pass for a 410")
			require.Zero(t, meta.Code(err))
		})
	}
}

func TestGarbageNeverPanicsAndEndsWithADecodeError(t *testing.T) {
	for name, in := range map[string]string{
		"binary":                  "\x00\x01\x02\xff\xfe",
		"html error page":         "<html><body>502 Bad Gateway</body></html>",
		"a list, not events":      `{"kind":"PodList","items":[]}`,
		"invalid UTF-8 in a name": "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"\xff\"}}}",
		"a lone surrogate":        `{"type":"ADDED","object":{"metadata":{"name":"\ud800"}}}`,
		"a duplicated type":       `{"type":"ADDED","type":"DELETED","object":{"metadata":{"name":"a"}}}`,
		"NUL between events":      `{"type":"ADDED","object":{"metadata":{"name":"a"}}}` + "\x00",
	} {
		t.Run(name, func(t *testing.T) {
			s := watchstream.New[testPod](context.Background(), io.NopCloser(strings.NewReader(in)), watchstream.Options{})
			_, err := drain(s)
			if err == nil || errors.Is(err, io.EOF) {
				return // some are valid JSON a lenient decoder accepts (duplicate names: the last wins)
			}
			var de *watchstream.DecodeError
			require.True(t, errors.As(err, &de), "%T: %v", err, err)
		})
	}
}

func TestNewWithAContextAlreadyCancelledAndNoNext(t *testing.T) {
	// Regression: the context hook once called a nil stopCtx when ctx was
	// already done at New.
	for range 200 {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		body := &closeRecorder{Reader: strings.NewReader("")}
		_ = watchstream.New[testPod](ctx, body, watchstream.Options{})
		require.Eventually(t, body.closed.Load, 5e9, 1e6, "the cancelled context closes the body")
	}
}
