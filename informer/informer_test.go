package informer

import (
	"context"
	"errors"
	"maps"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
)

const wait = 5 * time.Second

func TestInformerSyncsAndDeliversLiveEvents(t *testing.T) {
	for _, q := range []bool{false, true} {
		lw := newLiveLW(pods("a", "b"), "5")
		inf := newInformer[pod](lw, Options[*pod]{Process: ProcessOptions{DeltaFIFO: q}, Observe: ObserveOptions{Logger: quiet()}})
		h := newView()
		reg, err := inf.AddHandler(h, HandlerOptions{})
		require.NoError(t, err)
		startInformer(t, inf)
		ctx, cancel := context.WithTimeout(t.Context(), wait)
		defer cancel()
		require.NoError(t, inf.WaitForSync(ctx))
		require.Eventually(t, reg.HasSynced, wait, time.Millisecond)
		require.ElementsMatch(t, []string{"add a@1 initial=true", "add b@1 initial=true"}, h.lines())
		require.Equal(t, "5", inf.LastSyncResourceVersion())

		lw.events <- ev(meta.Modified, "a", "6")
		lw.events <- ev(meta.Deleted, "b", "7")
		lw.events <- ev(meta.Added, "c", "8")
		require.Eventually(t, func() bool { return len(h.lines()) == 5 }, wait, time.Millisecond)
		require.Equal(t, []string{"update a@1->6", "delete b unknown=false", "add c@8 initial=false"}, h.lines()[2:])
		_, ok := inf.Lister().Get("ns", "c")
		require.True(t, ok)
		require.Len(t, inf.Lister().Namespace("ns").List(meta.LabelSelector{}), 2)
	}
}

func TestLateHandlerGetsReplay(t *testing.T) {
	lw := newLiveLW(pods("a", "b"), "5")
	inf := newInformer[pod](lw, Options[*pod]{Observe: ObserveOptions{Logger: quiet()}})
	startInformer(t, inf)
	require.NoError(t, inf.WaitForSync(t.Context()))
	h := newView()
	reg, err := inf.AddHandler(h, HandlerOptions{})
	require.NoError(t, err)
	require.Eventually(t, reg.HasSynced, wait, time.Millisecond)
	require.ElementsMatch(t, []string{"add a@1 initial=true", "add b@1 initial=true"}, h.lines())
	reg.Remove()
	lw.events <- ev(meta.Added, "c", "8")
	require.Eventually(t, func() bool { _, ok := inf.Lister().Get("ns", "c"); return ok }, wait, time.Millisecond)
	require.Len(t, h.lines(), 2, "a removed handler gets nothing more")
}

// Registration.WaitForSync returns once the handler has seen the initial
// list, and says why when that cannot happen: the context ended, the
// handler was removed, or the informer stopped first.
func TestRegistrationWaitForSync(t *testing.T) {
	lw := newLiveLW(pods("a", "b"), "5")
	inf := newInformer[pod](lw, Options[*pod]{Observe: ObserveOptions{Logger: quiet()}})
	h := newView()
	h.block = make(chan struct{})
	reg, err := inf.AddHandler(h, HandlerOptions{})
	require.NoError(t, err)
	gone, err := inf.AddHandler(newView(), HandlerOptions{})
	require.NoError(t, err)

	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(errors.New("gave up"))
	require.ErrorContains(t, reg.WaitForSync(ctx), "gave up", "before Run: the context's cause")
	gone.Remove()
	require.ErrorIs(t, gone.WaitForSync(t.Context()), ErrHandlerRemoved)

	startInformer(t, inf)
	require.NoError(t, inf.WaitForSync(t.Context()))
	require.False(t, reg.HasSynced(), "the informer synced, the blocked handler not yet")
	done := make(chan error, 1)
	go func() { done <- reg.WaitForSync(t.Context()) }()
	h.block <- struct{}{}
	h.block <- struct{}{}
	require.NoError(t, <-done)
	close(h.block)

	stopped := newInformer[pod](&scriptLW{}, Options[*pod]{Observe: ObserveOptions{Logger: quiet()}}) // its List waits for ctx
	never, err := stopped.AddHandler(newView(), HandlerOptions{})
	require.NoError(t, err)
	runCtx, stop := context.WithCancel(t.Context())
	stop()
	require.NoError(t, stopped.Run(runCtx))
	require.ErrorIs(t, never.WaitForSync(t.Context()), ErrStopped)
}

func TestSlowHandlerDoesNotBlockAFastOne(t *testing.T) {
	lw := newLiveLW(nil, "5")
	inf := newInformer[pod](lw, Options[*pod]{Observe: ObserveOptions{Logger: quiet()}})
	slow, fast := newView(), newView()
	slow.block = make(chan struct{})
	_, err := inf.AddHandler(slow, HandlerOptions{Name: "slow"})
	require.NoError(t, err)
	_, err = inf.AddHandler(fast, HandlerOptions{Name: "fast"})
	require.NoError(t, err)
	startInformer(t, inf)
	defer close(slow.block)
	for i := range 10 {
		lw.events <- ev(meta.Added, string(rune('a'+i)), "9")
	}
	require.Eventually(t, func() bool { return len(fast.lines()) == 10 }, wait, time.Millisecond)
	require.Empty(t, slow.lines())
}

func TestBoundedHandlerQueueKeepsFinalStates(t *testing.T) {
	lw := newLiveLW(nil, "5")
	var coalesced countMetrics
	inf := newInformer[pod](lw, Options[*pod]{Observe: ObserveOptions{Logger: quiet(), Metrics: &coalesced}})
	h := newView()
	h.block = make(chan struct{})
	_, err := inf.AddHandler(h, HandlerOptions{QueueCapacity: 4})
	require.NoError(t, err)
	startInformer(t, inf)
	want := map[string]string{}
	for round := range 20 {
		for _, name := range []string{"a", "b", "c", "d", "e", "f"} {
			rv := string(rune('0' + round%10))
			typ := meta.Modified
			if round == 0 {
				typ = meta.Added
			}
			if round == 19 && name == "f" {
				typ = meta.Deleted
				delete(want, "ns/"+name)
			} else {
				want["ns/"+name] = rv
			}
			lw.events <- ev(typ, name, rv)
		}
	}
	require.Eventually(t, func() bool { return inf.p.queue.Len() == 0 }, wait, time.Millisecond)
	close(h.block)
	require.Eventually(t, func() bool { return maps.Equal(want, h.snapshot()) }, wait, time.Millisecond)
	require.Positive(t, coalesced.coalesced.Load())
	h.block = nil
}

func TestResyncDeliversUpdatesWithOldEqualNew(t *testing.T) {
	clk := newFakeClock()
	lw := newLiveLW(pods("a"), "5")
	inf := newInformer[pod](lw, Options[*pod]{Clock: clk, Process: ProcessOptions{ResyncPeriod: time.Minute}, Observe: ObserveOptions{Logger: quiet()}})
	every, never := newView(), newView()
	_, err := inf.AddHandler(every, HandlerOptions{})
	require.NoError(t, err)
	_, err = inf.AddHandler(never, HandlerOptions{ResyncPeriod: -1})
	require.NoError(t, err)
	startInformer(t, inf)
	require.NoError(t, inf.WaitForSync(t.Context()))
	require.Eventually(t, func() bool {
		clk.Advance(time.Minute)
		return len(every.lines()) >= 2
	}, wait, time.Millisecond)
	require.Equal(t, "update a@1->1", every.lines()[1])
	require.Len(t, never.lines(), 1)
}

func TestHandlerPanicIsRecoveredAndCounted(t *testing.T) {
	lw := newLiveLW(pods("a", "b"), "5")
	var m countMetrics
	inf := newInformer[pod](lw, Options[*pod]{Observe: ObserveOptions{Logger: quiet(), Metrics: &m}})
	h := newView()
	_, err := inf.AddHandler(HandlerFuncs[*pod]{AddFunc: func(p *pod, _ bool) { panic("boom") }}, HandlerOptions{})
	require.NoError(t, err)
	_, err = inf.AddHandler(h, HandlerOptions{})
	require.NoError(t, err)
	startInformer(t, inf)
	require.Eventually(t, func() bool { return m.panics.Load() == 2 && len(h.lines()) == 2 }, wait, time.Millisecond)
}

func TestRelistDeliversMissedDeletesAsTombstones(t *testing.T) {
	lw := &scriptLW{
		lists: []listReply{
			{items: pods("a", "b"), lm: meta.ListMeta{ResourceVersion: "5"}},
			{items: pods("a"), lm: meta.ListMeta{ResourceVersion: "9"}},
		},
		watches: []*fakeWatch{newFakeWatch(nil, statusErr(410, meta.ReasonExpired))},
	}
	inf := newInformer[pod](lw, Options[*pod]{Observe: ObserveOptions{Logger: quiet()}})
	h := newView()
	_, err := inf.AddHandler(h, HandlerOptions{})
	require.NoError(t, err)
	startInformer(t, inf)
	require.Eventually(t, func() bool { return len(h.lines()) == 3 }, wait, time.Millisecond)
	require.Equal(t, "delete b unknown=true", h.lines()[2], "a's relist is unchanged: no update")
	require.Equal(t, "9", inf.LastSyncResourceVersion())
}

func TestWaitForSyncReportsWhy(t *testing.T) {
	lw := &scriptLW{lists: []listReply{{err: statusErr(403, meta.ReasonForbidden)}}}
	inf := newInformer[pod](lw, Options[*pod]{Observe: ObserveOptions{Logger: quiet()}})
	startInformer(t, inf)
	require.Eventually(t, func() bool { return inf.SyncError() != nil }, wait, time.Millisecond)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	err := inf.WaitForSync(ctx)
	var se *SyncError
	require.ErrorAs(t, err, &se)
	require.Equal(t, observe.FailureForbidden, se.Reason)
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestFailFastEndsRunAndWait(t *testing.T) {
	lw := &scriptLW{lists: []listReply{{err: statusErr(401, meta.ReasonUnauthorized)}}}
	inf := newInformer[pod](lw, Options[*pod]{Sync: SyncOptions{FailFast: true}, Observe: ObserveOptions{Logger: quiet()}})
	errc := make(chan error, 1)
	go func() { errc <- inf.Run(context.Background()) }()
	err := inf.WaitForSync(context.Background())
	var se *SyncError
	require.ErrorAs(t, err, &se)
	require.Equal(t, observe.FailureUnauthorized, se.Reason)
	require.ErrorAs(t, <-errc, &se)
	require.ErrorIs(t, inf.Run(context.Background()), ErrAlreadyStarted)
}

func TestFactoryWaitForCacheSyncJoinsInformers(t *testing.T) {
	c, err := apiclient.New(&apiclient.Config{Host: "http://127.0.0.1:1", QPS: -1})
	require.NoError(t, err)
	f := NewFactory(c, quiet())
	replace := func(lw ListerWatcher[*pod]) func(ListerWatcher[*pod]) ListerWatcher[*pod] {
		return func(ListerWatcher[*pod]) ListerWatcher[*pod] { return lw }
	}
	a := Shared[pod](f, apiclient.Ref{GVR: meta.GVR{Version: "v1", Resource: "pods"}, Namespace: "a"},
		Options[*pod]{WrapListerWatcher: replace(newLiveLW(pods("a"), "1")), Observe: ObserveOptions{Logger: quiet()}})
	b := Shared[pod](f, apiclient.Ref{GVR: meta.GVR{Version: "v1", Resource: "pods"}, Namespace: "b"},
		Options[*pod]{Name: "b", WrapListerWatcher: replace(&scriptLW{lists: []listReply{{err: errors.New("refused")}}}), Observe: ObserveOptions{Logger: quiet()}})
	ctx, stop := context.WithCancel(t.Context())
	t.Cleanup(func() { stop(); f.Shutdown() })
	f.Start(ctx)
	require.NoError(t, a.WaitForSync(t.Context()))
	require.Eventually(t, func() bool { return b.SyncError() != nil }, wait, time.Millisecond)
	wctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	err = f.WaitForCacheSync(wctx)
	var se *SyncError
	require.ErrorAs(t, err, &se)
	require.Equal(t, observe.FailureUnreachable, se.Reason)
}

func TestStoppingAbandonsAHandlerBacklog(t *testing.T) {
	lw := newLiveLW(pods("a", "b", "c", "d", "e"), "5")
	inf := newInformer[pod](lw, Options[*pod]{Observe: ObserveOptions{Logger: quiet()}})
	release := make(chan struct{})
	var calls atomic.Int64
	_, err := inf.AddHandler(HandlerFuncs[*pod]{AddFunc: func(*pod, bool) {
		calls.Add(1)
		<-release
	}}, HandlerOptions{})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	go func() { done <- inf.Run(ctx) }()
	require.Eventually(t, func() bool { return calls.Load() == 1 }, wait, time.Millisecond)
	cancel()
	close(release)
	require.NoError(t, <-done)
	require.Equal(t, int64(1), calls.Load(), "the four queued adds are dropped, not delivered")
}
