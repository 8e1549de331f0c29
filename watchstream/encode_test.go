package watchstream_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

func TestAppendFrame(t *testing.T) {
	for _, tc := range []struct {
		name   string
		typ    meta.EventType
		object string
		want   string
	}{
		{"added", meta.Added, `{"a":1}`, `{"type":"ADDED","object":{"a":1}}` + "\n"},
		{"bookmark", meta.Bookmark, `{"metadata":{"resourceVersion":"7"}}`,
			`{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"7"}}}` + "\n"},
		{"empty object is null", meta.Deleted, ``, `{"type":"DELETED","object":null}` + "\n"},
		{"odd type is escaped", meta.EventType(`A"B`), `{}`, `{"type":"A\"B","object":{}}` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := watchstream.AppendFrame([]byte("prefix"), tc.typ, []byte(tc.object))
			require.Equal(t, "prefix"+tc.want, string(got))
		})
	}
}

type flushCounter struct {
	bytes.Buffer
	flushes int
}

func (f *flushCounter) Flush() { f.flushes++ }

func TestEncoderFlushesEachEvent(t *testing.T) {
	var w flushCounter
	enc := watchstream.NewEncoder(&w, watchstream.EncoderOptions{})
	require.NoError(t, enc.Encode(meta.Added, map[string]any{"metadata": map[string]string{"name": "a"}}))
	require.Equal(t, 1, w.flushes)
	require.NoError(t, enc.WriteFrame(watchstream.AppendFrame(nil, meta.Deleted, []byte(`{"metadata":{"name":"a"}}`))))
	require.Equal(t, 2, w.flushes)
	require.NoError(t, enc.Close())
	require.ErrorIs(t, enc.Encode(meta.Added, &testPod{}), watchstream.ErrEncoderClosed)
	require.ErrorIs(t, enc.WriteFrame([]byte("{}\n")), watchstream.ErrEncoderClosed)
	require.Equal(t, 2, w.flushes)
	require.Equal(t,
		`{"type":"ADDED","object":{"metadata":{"name":"a"}}}`+"\n"+
			`{"type":"DELETED","object":{"metadata":{"name":"a"}}}`+"\n",
		w.String())
}

func TestEncoderReportsMarshalErrors(t *testing.T) {
	enc := watchstream.NewEncoder(io.Discard, watchstream.EncoderOptions{})
	err := enc.Encode(meta.Added, make(chan int))
	require.ErrorContains(t, err, "watchstream: encode ADDED event")
}

func TestEncoderGzipWritesOneMemberPerEvent(t *testing.T) {
	var w bytes.Buffer
	enc := watchstream.NewEncoder(&w, watchstream.EncoderOptions{Gzip: true})
	frames := []string{
		`{"type":"ADDED","object":{"metadata":{"name":"a"}}}` + "\n",
		`{"type":"MODIFIED","object":{"metadata":{"name":"a"}}}` + "\n",
		`{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"9"}}}` + "\n",
	}
	for _, f := range frames {
		require.NoError(t, enc.WriteFrame([]byte(f)))
	}
	// Read member by member: each must hold exactly one frame.
	br := bufio.NewReader(&w)
	zr, err := gzip.NewReader(br)
	require.NoError(t, err)
	for i, f := range frames {
		if i > 0 {
			require.NoError(t, zr.Reset(br))
		}
		zr.Multistream(false)
		got, err := io.ReadAll(zr)
		require.NoError(t, err)
		require.Equal(t, f, string(got), "member %d", i)
	}
	require.ErrorIs(t, zr.Reset(br), io.EOF, "no trailing member")
}
