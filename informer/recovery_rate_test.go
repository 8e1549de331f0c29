package informer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/clock/clocktest"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

// faultLW answers every request by the same rule, for ever: the server of
// one fault. It stamps each request with the fake clock's virtual time,
// the sum of the waits so far (SetInstant: waits pass at once and are
// recorded), so that a test can count requests in any window of time.
type faultLW struct {
	clk *clocktest.Fake
	// list answers a LIST; stream a streaming list (its events, then how
	// it ends); watch a WATCH (opening error, or events then end).
	list   func() listReply
	stream func() *fakeWatch
	watch  func() *fakeWatch

	mu  sync.Mutex
	at  []time.Duration // the virtual time of each request
	rv  int
	ctx context.Context
}

func (f *faultLW) stamp() {
	f.mu.Lock()
	defer f.mu.Unlock()
	var now time.Duration
	for _, d := range f.clk.Delays() {
		now += d
	}
	f.at = append(f.at, now)
}

func (f *faultLW) List(ctx context.Context, _ ListRequest, each func(*pod) error) (ListPage, error) {
	f.stamp()
	r := f.list()
	for _, p := range r.items {
		if err := each(p); err != nil {
			return ListPage{}, err
		}
	}
	return ListPage{ListMeta: r.lm}, r.err
}

func (f *faultLW) Watch(ctx context.Context, o WatchRequest) (Watch[*pod], error) {
	f.stamp()
	w := f.watch()
	if o.Mode == StreamingList {
		w = f.stream()
	}
	if w.openErr != nil {
		return nil, w.openErr
	}
	return w, nil
}

// windowMax is the most requests in any window of length d.
func windowMax(at []time.Duration, d time.Duration) (most int, from time.Duration) {
	for i := range at {
		n := 0
		for j := i; j < len(at) && at[j] < at[i]+d; j++ {
			n++
		}
		if n > most {
			most, from = n, at[i]
		}
	}
	return most, from
}

func listOK() listReply {
	return listReply{items: pods("a"), lm: meta.ListMeta{ResourceVersion: "10"}}
}

func opensWith(err error) func() *fakeWatch {
	return func() *fakeWatch { w := newFakeWatch(nil, nil); w.openErr = err; return w }
}

func endsWith(err error, events ...watchstream.Event[*pod]) func() *fakeWatch {
	return func() *fakeWatch { return newFakeWatch(events, err) }
}

// TestNoFaultMakesMoreRequestsThanTheBackoffAllows is the request-rate
// invariant: whatever keeps failing, alone or after a failed streaming
// list, the reflector makes no more than maxPer10s LIST, WATCH and
// streaming-list requests in any 10 s after the first failure. With the
// default backoff (0.8 s doubling, here without jitter) and at most one
// retry at once between two waits, the first 10 s hold three waits (1.6,
// 6.4 and the next, capped at 15 s) and each wait is preceded by at most
// four requests (a list that works and a watch that fails, twice). The
// hot loop this prevents made thousands a second.
func TestNoFaultMakesMoreRequestsThanTheBackoffAllows(t *testing.T) {
	const maxPer10s = 12
	gone := statusErr(410, meta.ReasonExpired)
	tooLarge := meta.NewStatusError(504, meta.ReasonTimeout, "Too large resource version")
	tooLarge.Status.Details = &meta.StatusDetails{Causes: []meta.StatusCause{{Type: meta.CauseResourceVersionTooLarge}}}
	internal := statusErr(500, meta.ReasonInternalError)
	refused := errors.New("dial tcp 127.0.0.1:1: connect: connection refused")
	undecodable := &watchstream.DecodeError{Problem: watchstream.Malformed, Err: errors.New("garbage")}
	streamCut := endsWith(io.EOF, ev(meta.Added, "a", "9"))     // cut before its end bookmark
	streamError := endsWith(internal, ev(meta.Added, "a", "9")) // an ERROR event mid-list
	streamGone := endsWith(nil, endBookmark("10"))              // works; the stream then ends
	watchGone := opensWith(gone)                                // WATCH answered 410
	for _, tc := range []struct {
		name      string
		streaming bool
		list      func() listReply
		stream    func() *fakeWatch
		watch     func() *fakeWatch
	}{
		{"watch 410, list works", false, listOK, nil, watchGone},
		{"watch 504 too large, list works", false, listOK, nil, opensWith(tooLarge)},
		{"list 410", false, func() listReply { return listReply{err: gone} }, nil, watchGone},
		{"list 504 too large", false, func() listReply { return listReply{err: tooLarge} }, nil, watchGone},
		{"list 500", false, func() listReply { return listReply{err: internal} }, nil, watchGone},
		{"unreachable", false, func() listReply { return listReply{err: refused} }, nil, opensWith(refused)},
		{"watch ERROR 410 event", false, listOK, nil, endsWith(gone, ev(meta.Added, "b", "11"))},
		{"watch ERROR 500 event", false, listOK, nil, endsWith(internal)},
		{"watch closes at once", false, listOK, nil, endsWith(nil)},
		{"watch undecodable event", false, listOK, nil, endsWith(undecodable)},
		{"streaming list cut, watch 410", true, listOK, streamCut, watchGone},
		{"streaming list ERROR 500, watch 410", true, listOK, streamError, watchGone},
		{"streaming list 410", true, listOK, opensWith(gone), watchGone},
		{"streaming list 504, watch 504", true, listOK, opensWith(tooLarge), opensWith(tooLarge)},
		{"streaming list unreachable", true, func() listReply { return listReply{err: refused} }, opensWith(refused), opensWith(refused)},
		{"streaming list works, its watch then 410", true, listOK, streamGone, watchGone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := newFakeClock()
			clk.SetInstant(true)
			stream := tc.stream
			if stream == nil {
				stream = tc.watch
			}
			lw := &faultLW{clk: clk, list: tc.list, stream: stream, watch: tc.watch}
			r, _, _ := testReflector(t, &scriptLW{}, func(c *reflectorConfig[*pod]) {
				c.clock, c.streaming = clk, tc.streaming
			})
			r.lw = lw
			r.streaming = tc.streaming
			var s state = r.initialState()
			for steps := 0; steps < 5000 && len(lw.at) < 200; steps++ {
				s = r.step(t.Context(), s)
				require.NotEqual(t, "stopped", s.stateName())
			}
			require.GreaterOrEqual(t, len(lw.at), 40, "the fault keeps failing: enough requests to judge")
			most, from := windowMax(lw.at, 10*time.Second)
			require.LessOrEqual(t, most, maxPer10s, "%d requests in the 10 s from %v (request times %v)", most, from, fmt.Sprint(lw.at[:min(len(lw.at), 30)]))
		})
	}
}
