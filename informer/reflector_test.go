package informer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

func pods(names ...string) []*pod {
	out := make([]*pod, len(names))
	for i, n := range names {
		out[i] = mkPod(n, "1")
	}
	return out
}

func TestFirstListIsAtRVZeroPaginatedBy500(t *testing.T) {
	r, _, _ := testReflector(t, &scriptLW{}, nil)
	s := stateAs[listing[*pod]](t, r.initialState())
	require.Equal(t, ListRequest{ResourceVersion: "0", Limit: 500}, s.req)
	require.Equal(t, observe.CauseInitial, s.cause)
}

func TestListingPageWithContinueGoesToNextPage(t *testing.T) {
	lw := &scriptLW{lists: []listReply{
		{items: pods("a", "b"), lm: meta.ListMeta{ResourceVersion: "10", Continue: "c1"}},
		{items: pods("c"), lm: meta.ListMeta{ResourceVersion: "10"}},
	}}
	r, q, _ := testReflector(t, lw, nil)
	ctx := t.Context()
	s := r.step(ctx, r.initialState())
	next := stateAs[listing[*pod]](t, s)
	require.Equal(t, "c1", next.cont)
	require.Len(t, next.items, 2)
	require.Empty(t, q.got(), "nothing is queued before the last page")

	s = r.step(ctx, next)
	require.Equal(t, ListRequest{Limit: 500, Continue: "c1"}, lw.lastList(), "pages 2+ send only limit and continue")
	require.Equal(t, watchOpening{rv: "10"}, s)
	require.Equal(t, []string{"replace [a b c] 10"}, q.got())
	require.Equal(t, "10", r.lastSyncResourceVersion())
	require.True(t, r.paginated)
}

func TestRelistAtAnRVIsUnpaginatedUnlessTheServerPaged(t *testing.T) {
	r, _, _ := testReflector(t, &scriptLW{}, nil)
	require.Equal(t, ListRequest{ResourceVersion: "7"}, r.listFrom("7", observe.CauseWatchGone).req)
	require.Equal(t, ListRequest{ResourceVersion: "", Limit: 500}, r.listFrom("", observe.CauseListGone).req)
	r.paginated = true
	require.Equal(t, ListRequest{ResourceVersion: "7", Limit: 500, ResourceVersionMatch: meta.MatchNotOlderThan},
		r.listFrom("7", observe.CauseWatchGone).req)
}

// TestOnlyAPagedListAtZeroMakesRelistsPaged: a list at "0" is served whole
// from the watch cache, so pages there mean there is none; a consistent
// list at "" comes in pages anyway and says nothing (client-go's
// paginatedResult rule).
func TestOnlyAPagedListAtZeroMakesRelistsPaged(t *testing.T) {
	for _, rv := range []string{"", "0"} {
		lw := &scriptLW{lists: []listReply{
			{items: pods("a"), lm: meta.ListMeta{ResourceVersion: "10", Continue: "c1"}},
			{items: pods("b"), lm: meta.ListMeta{ResourceVersion: "10"}},
		}}
		r, _, _ := testReflector(t, lw, nil)
		s := r.step(t.Context(), r.listFrom(rv, observe.CauseListGone))
		s = r.step(t.Context(), s)
		require.Equal(t, watchOpening{rv: "10"}, s)
		require.Equal(t, rv == "0", r.paginated, "rv %q", rv)
		require.Equal(t, rv == "0", r.listFrom("10", observe.CauseWatchGone).req.Limit > 0, "rv %q", rv)
	}
}

func TestListErrorTransitions(t *testing.T) {
	tooLarge := statusErr(504, meta.ReasonTimeout)
	tooLarge.Status.Details = &meta.StatusDetails{RetryAfterSeconds: 1,
		Causes: []meta.StatusCause{{Type: meta.CauseResourceVersionTooLarge}}}
	for _, tc := range []struct {
		name      string
		from      listing[*pod]
		err       error
		backoff   bool
		nextRV    string
		nextCause observe.RelistCause
		nextLimit int64
	}{
		{"410 on a continue token lists once, whole, at the first rv (client-go's pager)",
			listing[*pod]{req: ListRequest{ResourceVersion: "0", Limit: 500}, cont: "c1", items: pods("a")},
			statusErr(410, meta.ReasonExpired), false, "0", observe.CauseContinueExpired, 0},
		{"410 at an rv relists consistently", listing[*pod]{req: ListRequest{ResourceVersion: "9"}},
			statusErr(410, meta.ReasonGone), false, "", observe.CauseListGone, 500},
		{"410 with an unknown reason is gone too", listing[*pod]{req: ListRequest{ResourceVersion: "9"}},
			statusErr(410, "SomethingNewer"), false, "", observe.CauseListGone, 500},
		{"504 too-large rv lists consistently at once: its Retry-After is about the rv, not \"\"", listing[*pod]{req: ListRequest{ResourceVersion: "99"}},
			tooLarge, false, "", observe.CauseTooLargeRV, 500},
		{"500 waits, then retries the same list", listing[*pod]{req: ListRequest{ResourceVersion: "0", Limit: 500}},
			statusErr(500, meta.ReasonInternalError), true, "0", observe.CauseListError, 500},
		{"a connection error waits, then retries", listing[*pod]{req: ListRequest{ResourceVersion: "0", Limit: 500}},
			errors.New("dial tcp: connection refused"), true, "0", observe.CauseListError, 500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lw := &scriptLW{lists: []listReply{{err: tc.err}}}
			r, q, _ := testReflector(t, lw, nil)
			s := r.step(t.Context(), tc.from)
			if tc.backoff {
				b := stateAs[backingOff](t, s)
				require.ErrorIs(t, b.err, tc.err)
				s = b.next
			}
			next := stateAs[listing[*pod]](t, s)
			require.Equal(t, tc.nextRV, next.req.ResourceVersion)
			require.Equal(t, tc.nextLimit, next.req.Limit)
			require.Equal(t, tc.nextCause, next.cause)
			require.Empty(t, next.cont)
			require.Empty(t, next.items)
			require.Empty(t, q.got())
		})
	}
}

func TestListWithoutRVBacksOff(t *testing.T) {
	lw := &scriptLW{lists: []listReply{{items: pods("a")}}}
	r, q, _ := testReflector(t, lw, nil)
	s := r.step(t.Context(), r.initialState())
	require.ErrorIs(t, stateAs[backingOff](t, s).err, errMissingRV)
	require.Empty(t, q.got())
}

func TestWatchOpeningAsksForBookmarksAndARandomTimeout(t *testing.T) {
	// The timeout is Watch.MinTimeout·(1+rand): spread so that informers
	// restarted together do not re-watch together.
	for rnd, want := range map[float64]int64{0: 300, 0.5: 450, 0.999: 599} {
		lw := &scriptLW{watches: []*fakeWatch{newFakeWatch(nil, nil)}}
		r, _, _ := testReflector(t, lw, func(c *reflectorConfig[*pod]) { c.rand = func() float64 { return rnd } })
		s := r.step(t.Context(), watchOpening{rv: "10"})
		require.Equal(t, "10", stateAs[watching[*pod]](t, s).rv)
		opts := lw.lastWatch()
		require.True(t, opts.watchOptions().AllowWatchBookmarks)
		require.Equal(t, WatchFrom, opts.Mode)
		require.Equal(t, "10", opts.ResourceVersion)
		require.Equal(t, want, opts.TimeoutSeconds, "rand %v", rnd)
		require.Equal(t, 3*time.Minute, opts.OpenTimeout, "bounded by the idle timeout")
	}
}

func TestWatchOpeningErrorTransitions(t *testing.T) {
	for _, tc := range []struct {
		name    string
		err     error
		backoff bool
		want    string // next state name
	}{
		{"410 relists at once", statusErr(410, meta.ReasonExpired), false, "listing"},
		{"410 with a reason nobody knows is still gone", statusErr(410, "SomethingNewer"), false, "listing"},
		{"unreachable rewatches after backoff", errors.New("connection refused"), true, "watch-opening"},
		{"429 rewatches after backoff", statusErr(429, meta.ReasonTooManyRequests), true, "watch-opening"},
		{"403 relists after backoff", statusErr(403, meta.ReasonForbidden), true, "listing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newFakeWatch(nil, nil)
			w.openErr = tc.err
			r, _, _ := testReflector(t, &scriptLW{watches: []*fakeWatch{w}}, nil)
			r.setRV("10")
			s := r.step(t.Context(), watchOpening{rv: "10"})
			if tc.backoff {
				s = stateAs[backingOff](t, s).next
			}
			require.Equal(t, tc.want, s.stateName())
			if l, ok := s.(listing[*pod]); ok {
				require.Equal(t, "10", l.req.ResourceVersion, "relist from the last known rv")
			}
		})
	}
}

func TestWatchingAppliesEventsAndRewatchesAfterCleanEnd(t *testing.T) {
	w := newFakeWatch([]watchstream.Event[*pod]{
		ev(meta.Added, "a", "11"), ev(meta.Modified, "a", "12"),
		{Type: meta.Bookmark, Object: mkPod("", "15"), ResourceVersion: "15"},
		ev(meta.Deleted, "a", "16"),
	}, nil)
	r, q, clk := testReflector(t, &scriptLW{}, nil)
	clk.Advance(0)
	s := r.step(t.Context(), watching[*pod]{w: w, rv: "10", opened: clk.Now().Add(-time.Hour)})
	require.Equal(t, watchOpening{rv: "16"}, s, "a clean end rewatches from the last rv, no relist")
	require.Equal(t, []string{"add a@11", "update a@12", "delete a@16"}, q.got())
	require.Equal(t, "16", r.lastSyncResourceVersion())
	require.True(t, w.isStopped())
}

func TestBookmarkAloneAdvancesTheRV(t *testing.T) {
	w := newFakeWatch([]watchstream.Event[*pod]{{Type: meta.Bookmark, Object: mkPod("", "20"), ResourceVersion: "20"}}, nil)
	r, q, _ := testReflector(t, &scriptLW{}, nil)
	s := r.step(t.Context(), watching[*pod]{w: w, rv: "10"})
	require.Equal(t, watchOpening{rv: "20"}, s)
	require.Empty(t, q.got())
}

// TestWatchEndTransitions: how a watch that was open ends decides between
// re-watching and relisting, after client-go's reflector; every failure
// waits its backoff first, except a 410 or a 504 too-large-rv, whose relist
// the server can answer now (want is then the state itself).
func TestWatchEndTransitions(t *testing.T) {
	tooLarge := statusErr(504, meta.ReasonTimeout)
	tooLarge.Status.Details = &meta.StatusDetails{Causes: []meta.StatusCause{{Type: meta.CauseResourceVersionTooLarge}}}
	undecodable := &watchstream.DecodeError{Problem: watchstream.Undecodable, Event: 2, Offset: 40, Err: errors.New("cannot unmarshal string into int32")}
	for _, tc := range []struct {
		name   string
		events []watchstream.Event[*pod]
		end    error
		short  bool  // the watch lasted under a second
		want   state // after the backoff
		wantIs error // the recorded failure
	}{
		{"410 event relists at the last rv", []watchstream.Event[*pod]{ev(meta.Added, "a", "11")}, statusErr(410, meta.ReasonExpired), false,
			listing[*pod]{req: ListRequest{ResourceVersion: "11"}, cause: observe.CauseWatchGone}, nil},
		{"500 event relists, as client-go does by default", []watchstream.Event[*pod]{ev(meta.Added, "a", "11")}, statusErr(500, meta.ReasonInternalError), false,
			listing[*pod]{req: ListRequest{ResourceVersion: "11"}, cause: observe.CauseWatchError}, nil},
		{"504 too-large event relists consistently", nil, tooLarge, false,
			listing[*pod]{req: ListRequest{Limit: 500}, cause: observe.CauseTooLargeRV}, nil},
		{"429 event rewatches", []watchstream.Event[*pod]{ev(meta.Added, "a", "11")}, statusErr(429, meta.ReasonTooManyRequests), false,
			watchOpening{rv: "11"}, nil},
		{"an event that does not decode relists instead of replaying it forever", []watchstream.Event[*pod]{ev(meta.Added, "a", "11")}, undecodable, false,
			listing[*pod]{req: ListRequest{ResourceVersion: "11"}, cause: observe.CauseWatchError}, undecodable},
		{"a broken stream rewatches", []watchstream.Event[*pod]{ev(meta.Added, "a", "11")}, io.ErrUnexpectedEOF, false,
			watchOpening{rv: "11"}, io.ErrUnexpectedEOF},
		{"a stream cut mid-event rewatches: the transport failed, not the event", []watchstream.Event[*pod]{ev(meta.Added, "a", "11")},
			&watchstream.DecodeError{Problem: watchstream.Truncated, Event: 2, Err: io.ErrUnexpectedEOF}, false,
			watchOpening{rv: "11"}, io.ErrUnexpectedEOF},
		{"a very short empty watch relists, as client-go does", nil, nil, true,
			listing[*pod]{req: ListRequest{ResourceVersion: "10"}, cause: observe.CauseWatchError}, errShortWatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var seen []error
			r, q, clk := testReflector(t, &scriptLW{}, func(c *reflectorConfig[*pod]) {
				c.watchErrorHandler = func(_ context.Context, err error) { seen = append(seen, err) }
			})
			r.setRV("10")
			opened := clk.Now().Add(-time.Hour)
			if tc.short {
				opened = clk.Now()
			}
			s := r.step(t.Context(), watching[*pod]{w: newFakeWatch(tc.events, tc.end), rv: "10", opened: opened})
			if relistNow(tc.end) {
				require.Equal(t, tc.want, s, "no wait")
			} else {
				require.Equal(t, tc.want, stateAs[backingOff](t, s).next)
			}
			require.Len(t, seen, 1)
			if tc.wantIs == nil {
				tc.wantIs = tc.end
			}
			require.ErrorIs(t, seen[0], tc.wantIs)
			require.Len(t, q.got(), len(tc.events))
		})
	}
}

// TestAnEmptyWatchIsShortOnlyUnderASecond: a watch that ends cleanly
// without any event is a failure (errShortWatch, a relist) only when it
// lasted under a second from its opening, as client-go's "very short
// watch"; one that lasted a second or more is re-watched. The time is the
// fake clock's, moved between the opening and the end, so the threshold
// is compared against the watch's real duration (issue 31's mutant, "the
// short-watch threshold compared against nothing", made every empty watch
// relist and passed every other test).
func TestAnEmptyWatchIsShortOnlyUnderASecond(t *testing.T) {
	for _, tc := range []struct {
		lasted time.Duration
		short  bool
	}{{0, true}, {999 * time.Millisecond, true}, {time.Second, false}, {time.Minute, false}} {
		t.Run(tc.lasted.String(), func(t *testing.T) {
			lw := &scriptLW{watches: []*fakeWatch{newFakeWatch(nil, nil)}}
			r, _, clk := testReflector(t, lw, nil)
			r.setRV("10")
			s := r.step(t.Context(), watchOpening{rv: "10"})
			clk.Advance(tc.lasted)
			s = r.step(t.Context(), stateAs[watching[*pod]](t, s))
			if !tc.short {
				require.Equal(t, watchOpening{rv: "10"}, s, "re-watched, no failure")
				require.Nil(t, r.rec.lastFailure())
				return
			}
			require.Equal(t, listing[*pod]{req: ListRequest{ResourceVersion: "10"}, cause: observe.CauseWatchError}, stateAs[backingOff](t, s).next)
			require.ErrorIs(t, r.rec.lastFailure(), errShortWatch)
		})
	}
}

func TestWatchFromZeroHoldsRVDuringSyntheticAdds(t *testing.T) {
	w := newFakeWatch([]watchstream.Event[*pod]{
		ev(meta.Added, "a", "30"), ev(meta.Added, "b", "20"),
		{Type: meta.Bookmark, Object: mkPod("", "31"), ResourceVersion: "31", InitialEventsEnd: true},
	}, statusErr(500, meta.ReasonInternalError))
	r, _, _ := testReflector(t, &scriptLW{}, nil)
	var rvs []string
	r.cfg.metrics = rvRecorder{&rvs}
	r.step(t.Context(), watching[*pod]{w: w, rv: "0", holdRV: true})
	require.Equal(t, []string{"31"}, rvs, "rv must not move during the synthetic ADDED events")
}

type rvRecorder struct{ rvs *[]string }

func (rvRecorder) ListCall(error)                                   {}
func (rvRecorder) WatchCall(error)                                  {}
func (rvRecorder) Relist(observe.RelistCause)                       {}
func (rvRecorder) WatchEvent(meta.EventType)                        {}
func (m rvRecorder) ResourceVersion(rv string)                      { *m.rvs = append(*m.rvs, rv) }
func (rvRecorder) QueueDepth(int)                                   {}
func (rvRecorder) HandlerQueueDepth(string, int)                    {}
func (rvRecorder) HandlerCall(string, time.Duration, time.Duration) {}
func (rvRecorder) HandlerPanic(string)                              {}
func (rvRecorder) Coalesced(string)                                 {}
func (rvRecorder) Skipped(string)                                   {}
func (rvRecorder) SnapshotLoaded(string)                            {}
func (rvRecorder) SnapshotSaved(error, int64, time.Duration)        {}

// stalled is how a watch's reader (watchstream) ends a reply that
// delivered nothing for its bound.
func stalled(what string) error {
	return &watchstream.DecodeError{Problem: watchstream.Stalled, Err: fmt.Errorf("no %s for 3m0s: %w", what, watchstream.ErrStalled)}
}

// A watch that its reader ended as stalled is a quiet resource on a server
// that has shown no bookmark cadence (reopened at once, no failure), and a
// failure (FailureStalled, reopened after a backoff) on one that has.
func TestAStalledWatchIsQuietUnlessTheServerBookmarks(t *testing.T) {
	for _, bookmarks := range []bool{false, true} {
		r, _, _ := testReflector(t, &scriptLW{}, nil)
		r.bookmarks = bookmarks
		s := r.step(t.Context(), watching[*pod]{w: newFakeWatch(nil, stalled("event")), rv: "10"})
		if !bookmarks {
			require.Equal(t, watchOpening{rv: "10"}, s)
			require.Nil(t, r.rec.lastFailure(), "a quiet resource is no failure")
			continue
		}
		b := stateAs[backingOff](t, s)
		require.Equal(t, watchOpening{rv: "10"}, b.next)
		require.Equal(t, observe.FailureStalled, r.rec.lastFailure().Reason)
		require.Equal(t, 1, strings.Count(r.rec.lastFailure().Error(), "no event for"), "said once: %v", r.rec.lastFailure())
	}
}

func TestStreamingListAsksForInitialEvents(t *testing.T) {
	w := newFakeWatch(nil, nil)
	lw := &scriptLW{watches: []*fakeWatch{w}}
	r, _, _ := testReflector(t, lw, func(c *reflectorConfig[*pod]) { c.streaming = true })
	s := r.step(t.Context(), r.initialState())
	require.Equal(t, "stream-initial", s.stateName())
	req := lw.lastWatch()
	require.Equal(t, WatchRequest{Mode: StreamingList, TimeoutSeconds: 300, OpenTimeout: 3 * time.Minute}, req,
		"the open timeout is the idle timeout: a request never answered must not hold the reflector")
	require.Equal(t, apiclient.WatchOptions{ResourceVersionMatch: meta.MatchNotOlderThan, SendInitialEvents: true,
		AllowWatchBookmarks: true, TimeoutSeconds: 300, OpenTimeout: 3 * time.Minute}, req.watchOptions())
}

// A server without streaming lists answers 400, 422 or 405 (a proxy that
// knows no such watch): LIST from then on, each the same.
func TestStreamingListRejectedFallsBackToList(t *testing.T) {
	for _, rejected := range []*meta.StatusError{statusErr(422, meta.ReasonInvalid), statusErr(400, meta.ReasonBadRequest),
		statusErr(405, meta.ReasonMethodNotAllowed)} {
		w := newFakeWatch(nil, nil)
		w.openErr = rejected
		r, _, _ := testReflector(t, &scriptLW{watches: []*fakeWatch{w}}, func(c *reflectorConfig[*pod]) { c.streaming = true })
		s := r.step(t.Context(), r.initialState())
		l := stateAs[listing[*pod]](t, s)
		require.Equal(t, observe.CauseStreamingFallback, l.cause, "%v", rejected)
		require.Equal(t, "0", l.req.ResourceVersion)
		require.False(t, r.streaming, "%v", rejected)
		require.NotEqual(t, observe.FailureBadRequest, r.rec.lastFailure().Reason, "%v: a rejected streaming list is not a bad request", rejected)
	}
}

// TestStreamingTooLargeRVListsConsistently: a streaming list at an rv the
// server has not reached (etcd restored, failover) gets 504
// ResourceVersionTooLarge, as an HTTP answer or as an ERROR event; it
// waits, then streams at "" instead of asking for the same rv forever.
func TestStreamingTooLargeRVListsConsistently(t *testing.T) {
	tooLarge := statusErr(504, meta.ReasonTimeout)
	tooLarge.Status.Details = &meta.StatusDetails{RetryAfterSeconds: 1,
		Causes: []meta.StatusCause{{Type: meta.CauseResourceVersionTooLarge}}}
	for _, asEvent := range []bool{false, true} {
		w := newFakeWatch(nil, tooLarge)
		if !asEvent {
			w.openErr = tooLarge
		}
		r, _, clk := testReflector(t, &scriptLW{watches: []*fakeWatch{w}}, func(c *reflectorConfig[*pod]) { c.streaming = true })
		clk.SetInstant(true)
		r.setRV("99")
		s := r.step(t.Context(), streamListing{rv: "99", cause: observe.CauseWatchGone})
		if asEvent {
			s = r.step(t.Context(), stateAs[streamInitial[*pod]](t, s))
		}
		require.Equal(t, streamListing{rv: "", cause: observe.CauseTooLargeRV}, s, "at once; as an event: %t", asEvent)
		require.True(t, r.streaming)
	}
}

func TestStreamingInitialEventsEndInReplaceThenWatching(t *testing.T) {
	w := newFakeWatch([]watchstream.Event[*pod]{
		ev(meta.Added, "b", "7"), ev(meta.Added, "a", "5"), endBookmark("9"), ev(meta.Added, "c", "10"),
	}, nil)
	r, q, _ := testReflector(t, &scriptLW{}, nil)
	s := r.step(t.Context(), streamInitial[*pod]{w: w})
	wt := stateAs[watching[*pod]](t, s)
	require.Equal(t, "9", wt.rv)
	require.Same(t, w, requireType[*fakeWatch](t, wt.w), "the same stream goes on as the watch")
	require.Equal(t, []string{"replace [a b] 9"}, q.got())
	require.False(t, w.isStopped())
	w.Stop()
}

func TestStreamingWithoutEndBookmarkFallsBack(t *testing.T) {
	w := newFakeWatch([]watchstream.Event[*pod]{ev(meta.Added, "a", "5")}, nil)
	streaming := func(c *reflectorConfig[*pod]) { c.streaming = true }
	r, q, _ := testReflector(t, &scriptLW{}, streaming)
	s := r.step(t.Context(), streamInitial[*pod]{w: w})
	require.Equal(t, observe.CauseStreamingFallback, stateAs[listing[*pod]](t, s).cause)
	require.Empty(t, q.got())
	require.True(t, r.streaming, "a stream cut short (an apiserver restart) falls back for this cycle only")
	require.Equal(t, "stream-listing", r.relist("5", observe.CauseWatchGone).stateName())
}

// TestAStreamingListFailingOtherwiseFallsBackAtOnce (issue 31 item 9): a
// frame that does not decode, or an ERROR event other than 410/504, makes
// a LIST for this cycle, at once, carrying why; as client-go's
// ListAndWatch does after any watch-list error.
func TestAStreamingListFailingOtherwiseFallsBackAtOnce(t *testing.T) {
	for _, end := range []error{
		&watchstream.DecodeError{Event: 1, Err: errors.New("kubeproto: malformed")},
		statusErr(500, meta.ReasonInternalError),
	} {
		w := newFakeWatch([]watchstream.Event[*pod]{ev(meta.Added, "a", "5")}, end)
		r, q, _ := testReflector(t, &scriptLW{}, func(c *reflectorConfig[*pod]) { c.streaming = true })
		s := r.step(t.Context(), streamInitial[*pod]{w: w})
		l := stateAs[listing[*pod]](t, s)
		require.Equal(t, observe.CauseStreamingFallback, l.cause)
		require.ErrorIs(t, l.why, end)
		require.Empty(t, q.got())
		require.True(t, r.streaming, "for this cycle only")
		require.ErrorIs(t, r.rec.lastFailure(), end, "a failure all the same")
	}
}

func TestStreamingTimeoutFallsBack(t *testing.T) {
	w := newFakeWatch([]watchstream.Event[*pod]{ev(meta.Added, "a", "5")}, stalled("event"))
	r, _, _ := testReflector(t, &scriptLW{}, func(c *reflectorConfig[*pod]) { c.streaming = true })
	l := stateAs[listing[*pod]](t, r.step(t.Context(), streamInitial[*pod]{w: w}))
	require.Equal(t, observe.CauseStreamingFallback, l.cause)
	require.True(t, r.streaming, "the initial-events timeout falls back for this cycle only")
	require.Equal(t, observe.FailureStalled, r.rec.lastFailure().Reason)
}

func TestBackingOffHonoursRetryAfter(t *testing.T) {
	r, _, clk := testReflector(t, &scriptLW{}, nil)
	clk.SetInstant(true)
	e := statusErr(429, meta.ReasonTooManyRequests)
	e.RetryAfter = 7 * time.Second
	// fail records each failure and leads to the backoff, as every state does.
	s := r.step(t.Context(), r.fail(t.Context(), e, watchOpening{rv: "1"}, false))
	require.Equal(t, watchOpening{rv: "1"}, s)
	s = r.step(t.Context(), r.fail(t.Context(), errors.New("x"), watchOpening{rv: "1"}, false))
	require.Equal(t, []time.Duration{7 * time.Second, 1600 * time.Millisecond}, clk.Delays(), "the hint wins; the 429 still counts toward the backoff")
	require.Equal(t, watchOpening{rv: "1"}, s)

	e.RetryAfter = time.Hour
	r.step(t.Context(), r.fail(t.Context(), e, watchOpening{rv: "1"}, false))
	require.Equal(t, 30*time.Second, clk.Delays()[2], "a hint is capped at the maximum backoff")
}

func TestBackingOffStopsOnCancel(t *testing.T) {
	r, _, _ := testReflector(t, &scriptLW{}, nil)
	ctx, cancel := context.WithCancel(t.Context())
	go cancel()
	require.Equal(t, stopped{}, r.stepBackingOff(ctx, backingOff{err: errors.New("x"), next: watchOpening{}}))
}

func TestSyncFailuresAreTyped(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want observe.FailureReason
	}{
		{statusErr(401, meta.ReasonUnauthorized), observe.FailureUnauthorized},
		{statusErr(403, meta.ReasonForbidden), observe.FailureForbidden},
		{statusErr(404, meta.ReasonNotFound), observe.FailureResourceNotFound},
		{errors.New("dial tcp 127.0.0.1:1: connect: connection refused"), observe.FailureUnreachable},
		{statusErr(503, meta.ReasonServiceUnavailable), observe.FailureServer},
	} {
		lw := &scriptLW{lists: []listReply{{err: tc.err}}}
		r, _, _ := testReflector(t, lw, nil)
		r.step(t.Context(), r.initialState())
		got := r.rec.lastFailure()
		require.NotNil(t, got)
		require.Equal(t, tc.want, got.Reason, "%v", tc.err)
		require.ErrorIs(t, got, tc.err)
	}
}

func TestRepeatedGoneIsReportedAndBacksOff(t *testing.T) {
	gone := statusErr(410, meta.ReasonExpired)
	lw := &scriptLW{lists: []listReply{{err: gone}, {err: gone}, {err: gone}}}
	r, _, clk := testReflector(t, lw, nil)
	clk.SetInstant(true)
	var s state = r.listFrom("5", observe.CauseWatchGone)
	s = r.step(t.Context(), s)
	stateAs[listing[*pod]](t, s) // a 410 relists at once
	s = r.step(t.Context(), s)
	stateAs[backingOff](t, s) // never twice in a row without a wait
	s = r.step(t.Context(), s)
	stateAs[listing[*pod]](t, s)
	s = r.step(t.Context(), s)
	stateAs[listing[*pod]](t, s) // after the wait, the next may go at once again
	require.Equal(t, observe.FailureRepeatedGone, r.rec.lastFailure().Reason)
}

// A 504 ResourceVersionTooLarge is the other failure a relist cures: it
// counts toward the repeated-Gone streak like a 410, and a mix of the two
// is one streak.
func TestResourceVersionTooLargeCountsLikeGone(t *testing.T) {
	tooLarge := meta.NewStatusError(504, meta.ReasonTimeout, "Too large resource version")
	tooLarge.Status.Details = &meta.StatusDetails{Causes: []meta.StatusCause{{Type: meta.CauseResourceVersionTooLarge, Message: "Too large resource version"}}}
	require.True(t, meta.IsTooLargeResourceVersion(tooLarge), "the test's 504 is what kube-apiserver sends")
	for _, errs := range [][]error{
		{tooLarge, tooLarge, tooLarge},
		{statusErr(410, meta.ReasonExpired), tooLarge, statusErr(410, meta.ReasonGone)},
	} {
		lw := &scriptLW{}
		for _, err := range errs {
			lw.lists = append(lw.lists, listReply{err: err})
		}
		r, _, clk := testReflector(t, lw, nil)
		clk.SetInstant(true)
		var s state = r.listFrom("5", observe.CauseWatchGone)
		for len(lw.lists) > 0 || s.stateName() != "listing" {
			s = r.step(t.Context(), s)
		}
		require.Equal(t, observe.FailureRepeatedGone, r.rec.lastFailure().Reason, "%v", errs)
	}
}

func TestFailFastStopsOnForbidden(t *testing.T) {
	lw := &scriptLW{lists: []listReply{{err: statusErr(403, meta.ReasonForbidden)}}}
	r, _, _ := testReflector(t, lw, func(c *reflectorConfig[*pod]) { c.failFast = true })
	err := r.run(t.Context(), r.initialState())
	var se *SyncError
	require.ErrorAs(t, err, &se)
	require.Equal(t, observe.FailureForbidden, se.Reason)
}

func TestWatchErrorHandlerSeesEveryFailure(t *testing.T) {
	var seen []error
	lw := &scriptLW{lists: []listReply{{err: statusErr(500, meta.ReasonInternalError)}}}
	r, _, _ := testReflector(t, lw, func(c *reflectorConfig[*pod]) {
		c.watchErrorHandler = func(_ context.Context, err error) { seen = append(seen, err) }
	})
	r.step(t.Context(), r.initialState())
	require.Len(t, seen, 1)
	require.True(t, meta.IsInternalError(seen[0]))
}

// TestEachFailureIsRecordedOnce: failing and then backing off is one
// failure: one handler call, one attempt, one step of the 410 streak.
func TestEachFailureIsRecordedOnce(t *testing.T) {
	fail := statusErr(500, meta.ReasonInternalError)
	lw := &scriptLW{lists: []listReply{{err: fail}, {err: fail}, {err: fail},
		{items: pods("a"), lm: meta.ListMeta{ResourceVersion: "5"}}}}
	var seen []error
	var last *SyncError
	r, q, clk := testReflector(t, lw, func(c *reflectorConfig[*pod]) {
		c.watchErrorHandler = func(_ context.Context, err error) { seen = append(seen, err) }
	})
	clk.SetInstant(true)
	var s state = r.initialState()
	for range 7 { // three times listing then backing-off, then the list that works
		s = r.step(t.Context(), s)
	}
	require.Equal(t, watchOpening{rv: "5"}, s)
	require.Equal(t, []string{"replace [a] 5"}, q.got())
	require.Len(t, seen, 3)
	last = r.rec.lastFailure()
	require.NotNil(t, last, "the failures before the list are still the current streak")
	require.Equal(t, 3, last.Attempts, "the list that worked does not end the streak: only a watch that works does")
	require.Len(t, clk.Delays(), 3)
}

// TestRepeatedWatch410sWaitEverLonger: lists succeed, every WATCH gets 410
// (a restarted apiserver behind a load balancer whose watch cache starts
// after the list's rv). A 410 relists at once (a server that answers,
// issue 31 item 8), but never twice in a row: every other relist waits a
// backoff that keeps growing. A successful list ends neither the 410
// streak nor the backoff; a watch that works or 2 minutes of health do.
func TestRepeatedWatch410sWaitEverLonger(t *testing.T) {
	lw := &scriptLW{}
	for i := range 6 {
		lw.lists = append(lw.lists, listReply{items: pods("a"), lm: meta.ListMeta{ResourceVersion: fmt.Sprint(10 + i)}})
		w := newFakeWatch(nil, nil)
		w.openErr = statusErr(410, meta.ReasonExpired)
		lw.watches = append(lw.watches, w)
	}
	r, _, clk := testReflector(t, lw, nil)
	clk.SetInstant(true)
	var s state = r.initialState()
	for s.stateName() != "listing" || len(lw.lists) > 0 {
		s = r.step(t.Context(), s)
	}
	ms := time.Millisecond
	require.Equal(t, []time.Duration{1600 * ms, 6400 * ms, 15000 * ms}, clk.Delays(),
		"six watches answered 410: at once, then after a wait, in turn; each wait longer (capped at 30 s with its jitter)")
	require.Len(t, lw.listReq, 6)
}

func TestObjectsOfTheWrongKindAreSkipped(t *testing.T) {
	other := mkPod("x", "1")
	other.Kind = "ConfigMap"
	good := mkPod("a", "1")
	good.Kind = "Pod"
	lw := &scriptLW{lists: []listReply{{items: []*pod{good, other, mkPod("b", "1")}, lm: meta.ListMeta{ResourceVersion: "3"}}}}
	r, q, _ := testReflector(t, lw, func(c *reflectorConfig[*pod]) { c.expectedKind = "Pod" })
	r.step(t.Context(), r.initialState())
	require.Equal(t, []string{"replace [a b] 3"}, q.got())
}

func TestTransformRunsBeforeQueueing(t *testing.T) {
	lw := &scriptLW{lists: []listReply{{items: pods("a"), lm: meta.ListMeta{ResourceVersion: "3"}}}}
	r, q, _ := testReflector(t, lw, func(c *reflectorConfig[*pod]) {
		c.transform = func(p *pod) (*pod, error) { p.Name += "-t"; return p, nil }
	})
	r.step(t.Context(), r.initialState())
	require.Equal(t, []string{"replace [a-t] 3"}, q.got())
}

func TestRunListsWatchesAndStopsOnCancel(t *testing.T) {
	lw := &scriptLW{
		lists:   []listReply{{items: pods("a"), lm: meta.ListMeta{ResourceVersion: "3"}}},
		watches: []*fakeWatch{newFakeWatch([]watchstream.Event[*pod]{ev(meta.Added, "b", "4")}, errors.New("reset"))},
	}
	r, q, clk := testReflector(t, lw, nil)
	clk.SetInstant(true)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	go func() { done <- r.run(ctx, r.initialState()) }()
	require.Eventually(t, func() bool { return lw.watchCount() >= 2 }, 5*time.Second, time.Millisecond)
	cancel()
	require.NoError(t, <-done)
	require.Equal(t, []string{"replace [a] 3", "add b@4"}, q.got())
	require.Equal(t, "4", lw.lastWatch().ResourceVersion)
}

func TestBackoffDoublesToMaxAndResetsAfterHealth(t *testing.T) {
	b := newBackoff(BackoffOptions{}, func() float64 { return 0 })
	rec := newRecord(BackoffOptions{}.withDefaults().ResetAfter)
	next := func(now time.Time) time.Duration {
		rec.failed(now, errors.New("refused"))
		return b.delay(rec.backoffExponent())
	}
	now := time.Unix(0, 0)
	var got []time.Duration
	for range 8 {
		got = append(got, next(now))
		now = now.Add(time.Second)
	}
	ms := time.Millisecond
	require.Equal(t, []time.Duration{800 * ms, 1600 * ms, 3200 * ms, 6400 * ms, 12800 * ms, 15 * time.Second, 15 * time.Second, 15 * time.Second}, got,
		"doubling to 15 s, so that 100 % jitter keeps the wait within the 30 s cap")
	require.Equal(t, 800*ms, next(now.Add(2*time.Minute)), "healthy for 2 minutes: start over")

	j := newBackoff(BackoffOptions{}, func() float64 { return 0.5 })
	require.Equal(t, 1200*ms, j.delay(0), "jitter adds up to 100%")
}

func TestRepeatedContinueTokenFailsTheList(t *testing.T) {
	page := listReply{items: pods("a"), lm: meta.ListMeta{ResourceVersion: "10", Continue: "same"}}
	lw := &scriptLW{lists: []listReply{page, page}}
	r, q, _ := testReflector(t, lw, nil)
	s := r.step(t.Context(), r.initialState())
	s = r.step(t.Context(), s)
	b := stateAs[backingOff](t, s)
	require.ErrorIs(t, b.err, errContinueLoop)
	require.Equal(t, "0", stateAs[listing[*pod]](t, b.next).req.ResourceVersion)
	require.Empty(t, stateAs[listing[*pod]](t, b.next).items)
	require.Empty(t, q.got())
}

func TestStreamingInformerRelistsByStreaming(t *testing.T) {
	w := newFakeWatch(nil, statusErr(410, meta.ReasonExpired))
	r, _, _ := testReflector(t, &scriptLW{}, func(c *reflectorConfig[*pod]) { c.streaming = true })
	r.setRV("10")
	s := r.step(t.Context(), watching[*pod]{w: w, rv: "10"})
	require.Equal(t, streamListing{rv: "10", cause: observe.CauseWatchGone}, s)
}

func TestManagedFieldsAreDroppedUnlessKept(t *testing.T) {
	for _, keep := range []bool{false, true} {
		items := pods("a")
		items[0].ManagedFields = []byte(`[{"manager":"kubectl"}]`)
		lw := &scriptLW{lists: []listReply{{items: items, lm: meta.ListMeta{ResourceVersion: "3"}}}}
		var seen []byte
		r, _, _ := testReflector(t, lw, func(c *reflectorConfig[*pod]) {
			c.keepManagedFields = keep
			c.transform = func(p *pod) (*pod, error) { seen = p.ManagedFields; return p, nil }
		})
		r.step(t.Context(), r.initialState())
		if keep {
			require.JSONEq(t, `[{"manager":"kubectl"}]`, string(seen), "KeepManagedFields")
		} else {
			require.Nil(t, seen, "managedFields must be gone before Transform and the store")
		}
	}
}

// TestStreamingListFallsBackToListOnAnUndecodableObject: a stream cannot
// step over an object that does not fit the type; a LIST names it (and
// skips it under SkipUndecodable), so the cycle falls back to one.
func TestStreamingListFallsBackToListOnAnUndecodableObject(t *testing.T) {
	var v struct{ A int }
	semantic := json.Unmarshal([]byte(`{"A":"x"}`), &v)
	bad := &watchstream.DecodeError{Problem: watchstream.Undecodable, Event: 2, Object: "ns/b", Path: "/object/A", Err: semantic}
	w := newFakeWatch([]watchstream.Event[*pod]{ev(meta.Added, "a", "5")}, bad)
	r, _, _ := testReflector(t, &scriptLW{}, func(c *reflectorConfig[*pod]) { c.streaming = true })
	s := r.step(t.Context(), streamInitial[*pod]{w: w})
	b := stateAs[backingOff](t, s)
	require.ErrorIs(t, b.err, bad)
	require.Equal(t, observe.CauseStreamingFallback, stateAs[listing[*pod]](t, b.next).cause)
	require.True(t, r.streaming)
}
