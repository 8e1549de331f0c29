package watchstream

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/zerokube/zerokube/meta"
)

type fuzzPod struct {
	meta.ObjectMeta `json:"metadata"`
	Spec            struct {
		NodeName string `json:"nodeName"`
	} `json:"spec"`
}

var fuzzSeeds = []string{
	`{"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"1"}}}` + "\n",
	`{"object":{"metadata":{"name":"a"}},"type":"DELETED"}`,
	`{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"9","annotations":{"k8s.io/initial-events-end":"true"}}}}`,
	`{"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired"}}`,
	`{"type":"ERROR","object":[]}`,
	`{"type":"MODIFIED","object":{"metadata":{"name":5}}}`,
	`{"type":"ADDED","object":null}{"type":1}`,
	"[]{}\n\"x\"",
}

// checkErr fails on an error a stream must never return for bad bytes: all
// of them are a *DecodeError, a server Status, or the clean end.
func checkErr(t *testing.T, err error) {
	var de *DecodeError
	var se *meta.StatusError
	if !errors.Is(err, io.EOF) && !errors.As(err, &de) && !errors.As(err, &se) {
		t.Fatalf("unexpected error type %T: %v", err, err)
	}
}

// FuzzChunked feeds arbitrary bodies to the chunked decoder, whole and one
// byte per read: no panic, only the documented errors, and the same events
// either way.
func FuzzChunked(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		opts := Options{MaxEventSize: 512}
		whole := New[fuzzPod](context.Background(), io.NopCloser(strings.NewReader(in)), opts)
		bytewise := New[fuzzPod](context.Background(), io.NopCloser(&oneByte{strings.NewReader(in)}), opts)
		for {
			a, errA := whole.Next()
			b, errB := bytewise.Next()
			if (errA == nil) != (errB == nil) {
				t.Fatalf("whole: %v; one byte at a time: %v", errA, errB)
			}
			if errA != nil {
				checkErr(t, errA)
				checkErr(t, errB)
				return
			}
			if a.Type != b.Type || a.ResourceVersion != b.ResourceVersion || a.Object.Name != b.Object.Name {
				t.Fatalf("whole %+v != one byte at a time %+v", a, b)
			}
		}
	})
}

// FuzzWebsocketMessage feeds arbitrary messages to the websocket message
// path.
func FuzzWebsocketMessage(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		s := &Stream[fuzzPod, *fuzzPod]{ctx: context.Background(), max: 512}
		s.wire = &wireReader{}
		s.lim = &limitReader{r: s.wire}
		for range 2 { // twice, to exercise the decoder's Reset
			ev, err := s.decodeMessage(strings.NewReader(msg))
			if err != nil {
				checkErr(t, err)
				continue
			}
			if !ev.Type.Valid() || ev.Type == meta.Error || ev.Object == nil {
				t.Fatalf("bad event %+v", ev)
			}
		}
	})
}

type oneByte struct{ r io.Reader }

func (o *oneByte) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return o.r.Read(p[:1])
}
