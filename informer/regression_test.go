package informer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/snapshot"
	"github.com/zerokube/zerokube/watchstream"
)

// Regression tests of issue #25's items, one per bug, named after it; the
// ones that need the fake server are in regression_integration_test.go.

// TestABlockedSynchronousHandlerMakesTheInformerStale (item 5): progress
// means applied to the cache. A synchronous handler that blocks holds the
// processing loop; the reflector goes on hearing from the server, but the
// cache falls behind, and Health must say so once StaleAfter has passed.
func TestABlockedSynchronousHandlerMakesTheInformerStale(t *testing.T) {
	clk := newFakeClock()
	lw := newLiveLW(pods("a"), "5")
	inf := newInformer[pod](lw, Options[*pod]{Clock: clk, Watch: WatchOptions{IdleTimeout: -1}, Health: HealthOptions{StaleAfter: time.Minute}, Observe: ObserveOptions{Logger: quiet()}})
	h := &blockingHandler{entered: make(chan string, 4), release: make(chan struct{})}
	_, err := inf.AddHandler(h, HandlerOptions{Synchronous: true})
	require.NoError(t, err)
	startInformer(t, inf)
	require.NoError(t, inf.WaitForSync(t.Context()))
	require.Equal(t, "add a", <-h.entered)
	defer close(h.release)

	lw.events <- ev(meta.Modified, "a", "6")
	require.Equal(t, "update a", <-h.entered) // the handler blocks in this call
	lw.events <- ev(meta.Modified, "a", "7")  // queued behind it: the cache is behind
	require.Eventually(t, func() bool { return inf.p.queue.Len() > 0 }, wait, time.Millisecond)
	clk.Advance(61 * time.Second)
	lw.events <- watchstream.Event[*pod]{Type: meta.Bookmark, Object: mkPod("", "8"), ResourceVersion: "8"} // the server is heard
	require.Eventually(t, func() bool { return inf.LastSyncResourceVersion() == "8" }, wait, time.Millisecond)
	health := inf.Health()
	require.True(t, health.Stale, "the cache has applied nothing for 61 s: %+v", health)
	require.False(t, health.Healthy())
}

// blockingHandler says when a call starts, and blocks every call after the
// first until release is closed.
type blockingHandler struct {
	entered chan string
	release chan struct{}
	calls   int
}

func (h *blockingHandler) call(what string) {
	h.entered <- what
	h.calls++
	if h.calls > 1 {
		<-h.release
	}
}

func (h *blockingHandler) OnAdd(p *pod, _ bool)    { h.call("add " + p.Name) }
func (h *blockingHandler) OnUpdate(_, p *pod)      { h.call("update " + p.Name) }
func (h *blockingHandler) OnDelete(p *pod, _ bool) { h.call("delete " + p.Name) }

// TestReshardingIsAPlannedRelistNotAFailure (item 6): the ListerWatcher's
// errReshardMoved leads to a relist at once, with its own cause: no failure
// recorded, no watch-error handler call, no backoff.
func TestReshardingIsAPlannedRelistNotAFailure(t *testing.T) {
	var handled []error
	r, _, _ := testReflector(t, &scriptLW{}, func(c *reflectorConfig[*pod]) {
		c.watchErrorHandler = func(_ context.Context, err error) { handled = append(handled, err) }
	})
	r.setRV("10")
	for _, tc := range []struct {
		name string
		s    state
	}{
		{"a watch ended by it", watching[*pod]{w: newFakeWatch(nil, errReshard()), rv: "10", events: 3}},
		{"a watch refused by it", watchOpening{rv: "10"}},
		{"a list page refused by it", listing[*pod]{req: ListRequest{Limit: 500}, cont: "next", page: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lw := &reshardLW{}
			r.lw = lw
			next := r.step(t.Context(), tc.s)
			l := stateAs[listing[*pod]](t, next)
			require.Equal(t, observe.CauseReshard, l.cause)
			require.Equal(t, "10", l.req.ResourceVersion, "the relist starts at the last resourceVersion")
			require.Nil(t, r.rec.lastFailure(), "no failure recorded")
			require.Empty(t, handled, "no WatchErrorHandler call")
		})
	}
}

// reshardLW refuses every request with the shard filter's errReshardMoved.
type reshardLW struct{}

func (reshardLW) List(context.Context, ListRequest, func(*pod) error) (ListPage, error) {
	return ListPage{}, errReshard()
}

func (reshardLW) Watch(context.Context, WatchRequest) (Watch[*pod], error) {
	return nil, errReshard()
}

// TestFailuresCountAcrossRelists (item 9): a list that works between two
// failing watches does not end the failure streak: a loop of watch 410s
// counts 1, 2, 3 … ; a watch that works ends it.
func TestFailuresCountAcrossRelists(t *testing.T) {
	lw := &scriptLW{}
	for i := range 4 {
		lw.lists = append(lw.lists, listReply{items: pods("a"), lm: meta.ListMeta{ResourceVersion: fmt.Sprint(10 + i)}})
	}
	for range 3 {
		w := newFakeWatch(nil, nil)
		w.openErr = statusErr(410, meta.ReasonExpired)
		lw.watches = append(lw.watches, w)
	}
	lw.watches = append(lw.watches, newFakeWatch([]watchstream.Event[*pod]{ev(meta.Modified, "a", "13")}, statusErr(500, meta.ReasonInternalError)))
	r, _, clk := testReflector(t, lw, nil)
	clk.SetInstant(true)
	var s state = r.initialState()
	var attempts []int
	for range 12 {
		s = r.step(t.Context(), s)
		if f := r.rec.current(); f != nil {
			attempts = append(attempts, f.Attempts)
		}
		if _, ok := s.(backingOff); ok && len(compact(attempts)) == 4 {
			break
		}
	}
	require.Equal(t, []int{1, 2, 3, 1}, compact(attempts), "three 410s in a row, lists between them; then a watch that delivered an event ended the streak")
}

// compact drops consecutive repeats.
func compact(xs []int) []int {
	var out []int
	for _, x := range xs {
		if len(out) == 0 || out[len(out)-1] != x {
			out = append(out, x)
		}
	}
	return out
}

// TestAFailureAfterTheSyncSaysFailingSince (item 9): an informer that
// synced long ago is not "initial sync failing"; its failure says since
// when it has been failing.
func TestAFailureAfterTheSyncSaysFailingSince(t *testing.T) {
	rec := newRecord(2 * time.Minute)
	since := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	rec.failed(since, errors.New("connection refused"))
	require.Contains(t, rec.current().Error(), "initial sync failing")
	rec.markSynced()
	rec.failed(since.Add(time.Second), errors.New("connection refused"))
	f := rec.current()
	require.Equal(t, 2, f.Attempts)
	require.True(t, f.Synced)
	require.Equal(t, since, f.Since)
	require.Contains(t, f.Error(), "failing since 2026-12-03T12:00:00Z (server unreachable, 2 attempts)")
	require.NotContains(t, f.Error(), "initial")
}

// TestHealthTurnsUnhealthyAtTheThirdFailureNotAfterStaleAfter (item 10):
// an unreachable server is known at the first failed request; after
// UnhealthyAfterFailures of them (3 by default) /healthz answers 503 and
// says for how long the informer has been failing, minutes before
// StaleAfter (3 minutes) would.
func TestHealthTurnsUnhealthyAtTheThirdFailureNotAfterStaleAfter(t *testing.T) {
	clk := newFakeClock()
	lw := &scriptLW{lists: []listReply{{items: pods("a"), lm: meta.ListMeta{ResourceVersion: "5"}}}}
	refused := errors.New("dial tcp 10.0.0.1:6443: connect: connection refused")
	for range 10 {
		w := newFakeWatch(nil, nil)
		w.openErr = refused
		lw.watches = append(lw.watches, w)
	}
	inf := newInformer[pod](lw, Options[*pod]{Clock: clk, Observe: ObserveOptions{Logger: quiet()}})
	startInformer(t, inf)
	require.NoError(t, inf.WaitForSync(t.Context()))
	var h Health
	for i := 1; i <= 3; i++ {
		if i > 1 {
			require.NoError(t, clk.AwaitTimers(t.Context(), 1))
			clk.Advance(5 * time.Second) // past the backoff after the last failure
		}
		require.Eventually(t, func() bool { f := inf.Health().Failure; return f != nil && f.Attempts == i }, wait, time.Millisecond)
		h = inf.Health()
		require.Equal(t, i < 3, h.Healthy(), "after %d failures: %+v", i, h)
	}
	require.True(t, h.Failing)
	require.Less(t, h.SinceProgress, 3*time.Minute, "long before StaleAfter")
	rec := httptest.NewRecorder()
	HealthHandler(inf).ServeHTTP(rec, httptest.NewRequest("GET", "/healthz", nil))
	require.Equal(t, http.StatusServiceUnavailable, rec.Code)
	require.Contains(t, rec.Body.String(), `"failingForSeconds":`)
	require.Contains(t, rec.Body.String(), `"consecutiveFailures":3`)
}

// TestABadRequestStopsFailFastAndSaysWhatToFix (issue #26 item 5): a 400
// from the server is the informer's own request at fault: its own reason,
// a stop under FailFast, and WaitForSync says to fix the selectors.
func TestABadRequestStopsFailFastAndSaysWhatToFix(t *testing.T) {
	bad := meta.NewStatusError(400, meta.ReasonBadRequest, "field label not supported: spec.nodname")
	lw := &scriptLW{lists: []listReply{{err: bad}}}
	inf := newInformer[pod](lw, Options[*pod]{
		FieldSelector: "spec.nodname=node-1",
		Sync:          SyncOptions{FailFast: true},
		Observe:       ObserveOptions{Logger: quiet()},
	})
	ctx, cancel := context.WithTimeout(t.Context(), wait) // a Run that does not stop fails, not hangs
	defer cancel()
	err := inf.Run(ctx)
	var se *SyncError
	require.ErrorAs(t, err, &se)
	require.Equal(t, observe.FailureBadRequest, se.Reason)
	werr := inf.WaitForSync(t.Context())
	require.ErrorAs(t, werr, &se)
	for _, part := range []string{"bad request", "field label not supported: spec.nodname", "fix Options.LabelSelector or FieldSelector",
		`field selector "spec.nodname=node-1"`} {
		require.ErrorContains(t, werr, part)
	}
}

// TestAStreamingListRejectedWith400IsNotABadRequest: a server without
// streaming lists answers 400 too; that one means "use LIST", not "fix
// your request", and FailFast must not stop on it.
func TestAStreamingListRejectedWith400IsNotABadRequest(t *testing.T) {
	w := newFakeWatch(nil, nil)
	w.openErr = statusErr(400, meta.ReasonBadRequest)
	lw := &scriptLW{watches: []*fakeWatch{w}}
	r, _, _ := testReflector(t, lw, func(c *reflectorConfig[*pod]) { c.streaming, c.failFast = true, true })
	s := r.step(t.Context(), r.initialState())
	require.Equal(t, observe.CauseStreamingFallback, stateAs[listing[*pod]](t, s).cause)
	require.NotEqual(t, observe.FailureBadRequest, r.rec.lastFailure().Reason)
}

// calls records a handler's calls, snapshot adds apart.
type calls struct {
	mu  sync.Mutex
	log []string
}

func (c *calls) add(line string) {
	c.mu.Lock()
	c.log = append(c.log, line)
	c.mu.Unlock()
}

func (c *calls) got() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Sorted(slices.Values(c.log))
}

func (c *calls) OnSnapshotAdd(p *pod)       { c.add("snapshot " + p.Name) }
func (c *calls) OnAdd(p *pod, initial bool) { c.add(fmt.Sprintf("add %s initial=%t", p.Name, initial)) }
func (c *calls) OnUpdate(_, p *pod)         { c.add("update " + p.Name) }
func (c *calls) OnDelete(p *pod, unknown bool) {
	c.add(fmt.Sprintf("delete %s unknown=%t", p.Name, unknown))
}

// TestASnapshotBatchIsClosedBeforeTheFirstRelist (item 3): with
// Options.Process.DeltaFIFO, a relist queued before the snapshot's batch was popped
// merged into that batch, and an object created during the downtime was
// handed to OnSnapshotAdd. Here the relist is queued before processing
// starts, deterministically: resume must have applied the snapshot by then.
func TestASnapshotBatchIsClosedBeforeTheFirstRelist(t *testing.T) {
	dir := t.TempDir()
	opts := Options[*pod]{Snapshot: SnapshotOptions{Dir: dir, Period: -1}, Process: ProcessOptions{DeltaFIFO: true}, Observe: ObserveOptions{Logger: quiet()}}.withDefaults()
	p := newPipeline[pod](&scriptLW{}, opts)
	h := &calls{}
	_, err := p.disp.add(h, HandlerOptions{})
	require.NoError(t, err)
	h0 := snapshot.Header{Identity: p.snap.identity(""), ResourceVersion: "5"}
	require.NoError(t, p.snap.opts.Store.Save(t.Context(), p.snap.opts.Name, func(w io.Writer) error {
		return snapshot.Encode(t.Context(), w, h0, pods("a", "b"))
	}))

	first := p.resume(t.Context(), p.refl.initialState())
	require.Equal(t, resuming[*pod]{rv: "5"}, first)
	// The resumed watch got 410; the relist finds f, created meanwhile.
	require.NoError(t, p.refl.q.Replace(pods("a", "b", "f"), "9"))
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	p.disp.start(ctx, &wg)
	defer func() { cancel(); p.queue.Close(); wg.Wait() }()
	want := []string{"add f initial=false", "snapshot a", "snapshot b"}
	require.Eventually(t, func() bool { return slices.Equal(want, h.got()) }, wait, time.Millisecond, "got %v", h.got())
}
