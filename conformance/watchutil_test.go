package conformance

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/stretchr/testify/require"
)

// stream is an open chunked watch.
type stream struct {
	code   int
	header http.Header
	body   io.ReadCloser
	dec    *jsontext.Decoder
	cancel context.CancelFunc
}

// event is one watch event as a client decodes it.
type event struct {
	Type   string         `json:"type"`
	Object map[string]any `json:"object"`
}

// watch opens a watch (path carries the query) that lasts at most 20 s: an
// event that does not come fails the test then.
func (tg *target) watch(t *testing.T, path string, hdr ...string) *stream {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	req, err := http.NewRequestWithContext(ctx, "GET", tg.url+path, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+tg.token)
	req.Header.Set("Accept", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := tg.http.Do(req)
	if err != nil {
		cancel()
		require.NoError(t, err)
	}
	s := &stream{code: resp.StatusCode, header: resp.Header, body: resp.Body, dec: jsontext.NewDecoder(resp.Body), cancel: cancel}
	t.Cleanup(s.close)
	return s
}

func (s *stream) close() { s.cancel(); _ = s.body.Close() }

// next reads one event; ok is false at the end of the stream.
func (s *stream) next(t *testing.T) (ev event, ok bool) {
	t.Helper()
	v, err := s.dec.ReadValue()
	if errors.Is(err, io.EOF) {
		return ev, false
	}
	require.NoError(t, err, "reading a watch event")
	require.NoError(t, json.Unmarshal(v, &ev), "decoding %s", v)
	return ev, true
}

// must reads one event and fails at the end of the stream.
func (s *stream) must(t *testing.T) event {
	t.Helper()
	ev, ok := s.next(t)
	require.True(t, ok, "the watch ended early")
	return ev
}

// describe renders an event: type, kind, name and the marked RV.
func describe(o *obs, ev event) string {
	return ev.Type + " " + str(at(ev.Object, "kind")) + " " + str(at(ev.Object, "metadata.name")) + " " +
		o.rv(at(ev.Object, "metadata.resourceVersion"))
}

// initial reads the synthetic ADDED events that open a watch up to the
// first non-ADDED one (returned), and lists the names sorted: their order is
// not part of the protocol.
func initial(t *testing.T, s *stream) (names string, maxRV uint64, after event) {
	t.Helper()
	var ns []string
	for {
		ev := s.must(t)
		if ev.Type != "ADDED" {
			sort.Strings(ns)
			return strings.Join(ns, ","), maxRV, ev
		}
		ns = append(ns, str(at(ev.Object, "metadata.name")))
		maxRV = max(maxRV, rvNum(at(ev.Object, "metadata.resourceVersion")))
	}
}

func rvNum(v any) uint64 {
	var n uint64
	for _, c := range str(v) {
		if c < '0' || c > '9' {
			return 0
		}
		n = n*10 + uint64(c-'0')
	}
	return n
}

// until reads events up to the first one for the object named sentinel
// (a write the scenario made last, so that "no other event" is observed
// without waiting) and returns those before it.
func (s *stream) until(t *testing.T, sentinel string) []event {
	t.Helper()
	var evs []event
	for {
		ev := s.must(t)
		if str(at(ev.Object, "metadata.name")) == sentinel {
			return evs
		}
		evs = append(evs, ev)
	}
}
