package reliability

import (
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
)

// The scenarios below put each fault of issue 13 where it hurts, and check
// what the random chaos checks: no hot loop while the fault lasts, and
// convergence within a bounded time once it clears. Each failed on the
// reflector before issue 13's fixes.

// recoverWithin bounds the wait for the informer once a fault clears: a few
// backoffs at most, with room for -race on a loaded machine.
const recoverWithin = 10 * time.Second

// Finding 1: behind a load balancer, every WATCH lands on an API server
// whose watch cache starts later than the LIST's resourceVersion.
func TestChaosEveryWatchGoneWhileListsSucceed(t *testing.T) {
	// LIST mode: a streaming list's stream is its own watch.
	r := newRig(t, rigOptions{objects: 3})
	r.converges(t, recoverWithin, "initial sync")
	mark, lists0 := time.Now(), r.lists.Load()
	r.awaitWatch(t)
	r.srv.FailNext(fakeapiserver.Failure{Count: fakeapiserver.Forever, Code: 410, Verb: "watch", AsEvent: true, Match: plainWatch})
	r.dropWatches(t)
	// Ten list-and-watch cycles take about 3 s at the rig's backoff; the
	// bound is generous because only a stop, not slowness, is the failure.
	require.True(t, r.await(func() bool { return r.srv.Stats().Faults[fakeapiserver.FaultFail] >= 10 }, 3*recoverWithin),
		"the informer stopped watching: %s", r.report())
	r.listsWithinBackoff(t, mark, lists0)
	r.srv.ClearFaults()
	r.put(t, "after", "1")
	r.converges(t, recoverWithin, "after the watches work again")
}

// Finding 2: etcd restored from a backup; the informer's resourceVersion is
// now in the server's future, and stays there (nothing is written).
func TestChaosStreamingListAtAFutureResourceVersion(t *testing.T) {
	for _, how := range []string{"restore (ERROR event)", "HTTP 504"} {
		t.Run(how, func(t *testing.T) {
			r := newRig(t, rigOptions{streaming: true, objects: 3})
			r.converges(t, recoverWithin, "initial sync")
			x := r.srv.ResourceVersion()
			for i := range 4 { // writes the informer does not watch: only bookmarks tell it of them
				_, err := r.srv.Create(nsGVR, map[string]any{"metadata": map[string]any{"name": fmt.Sprintf("bump-%d", i)}})
				require.NoError(t, err)
			}
			require.True(t, r.await(func() bool { return r.rv.Load() > x }, recoverWithin), "no bookmark past %d", x)
			y := strconv.FormatInt(r.rv.Load(), 10)
			// The next watch gets 410, so the informer relists from y.
			r.awaitWatch(t)
			r.srv.FailNext(fakeapiserver.Failure{Count: 1, Code: 410, Verb: "watch", AsEvent: true, Match: plainWatch})
			if how == "HTTP 504" {
				r.srv.FailNext(fakeapiserver.Failure{Count: fakeapiserver.Forever, Code: 504, Verb: "watch",
					QueryContains: "resourceVersion=" + y + "&resourceVersionMatch=NotOlderThan"})
				r.dropWatches(t)
			} else {
				r.srv.Restore(x)
			}
			r.put(t, "cm-0", "after") // the server stays behind y
			r.converges(t, recoverWithin, "a consistent list must replace the list at "+y)
		})
	}
}

// Finding 3: an object the informer's type cannot decode arrives as a watch
// event, and is then deleted or fixed.
func TestChaosUndecodableObjectDeletedOrFixed(t *testing.T) {
	for _, fix := range []string{"deleted", "fixed"} {
		t.Run(fix, func(t *testing.T) {
			r := newRig(t, rigOptions{objects: 3})
			r.converges(t, recoverWithin, "initial sync")
			_, err := r.srv.PutUnchecked(cmGVR, map[string]any{"metadata": map[string]any{"name": "bad", "namespace": "default"},
				"data": map[string]any{"v": 7}})
			require.NoError(t, err)
			require.True(t, r.await(func() bool { return len(r.errors()) > 0 }, recoverWithin), "the informer never read the bad object")
			if fix == "deleted" {
				require.NoError(t, r.srv.Delete(cmGVR, "default", "bad"))
			} else {
				r.put(t, "bad", "fixed")
			}
			r.put(t, "cm-1", "after")
			r.converges(t, recoverWithin, "after the bad object was "+fix)
		})
	}
}

// An undecodable object in the LIST: the informer must not sync without it
// (by default), and must sync once it is fixed.
func TestChaosUndecodableObjectInTheListThenFixed(t *testing.T) {
	r := newRig(t, rigOptions{objects: 3, pageSize: 2, arm: func(srv *fakeapiserver.Server) {
		_, err := srv.PutUnchecked(cmGVR, map[string]any{"metadata": map[string]any{"name": "bad", "namespace": "default"},
			"data": map[string]any{"v": 7}})
		require.NoError(t, err)
	}})
	require.True(t, r.await(func() bool { return len(r.errors()) > 0 }, recoverWithin), "the list error was not reported")
	require.False(t, r.inf.HasSynced(), "never a silently incomplete cache")
	mark, lists0 := time.Now(), r.lists.Load()
	r.await(func() bool { return r.lists.Load() >= lists0+3 }, recoverWithin)
	r.listsWithinBackoff(t, mark, lists0)
	r.put(t, "bad", "fixed")
	r.converges(t, recoverWithin, "after the bad object was fixed")
}

// Finding 4: etcd compacts between every two pages of a long list.
func TestChaosCompactionBetweenEveryPage(t *testing.T) {
	r := newRig(t, rigOptions{objects: 7, pageSize: 2, arm: func(srv *fakeapiserver.Server) {
		// A list at "0" is served whole; after a 504 the informer lists
		// consistently, in pages.
		srv.FailNext(fakeapiserver.Failure{Count: 1, Code: 504, Verb: "list"})
		srv.CompactBetweenPages(fakeapiserver.Forever)
	}})
	mark := time.Now()
	r.converges(t, recoverWithin, "the pager falls back to one unpaginated list at the list's resourceVersion")
	require.Positive(t, r.srv.Stats().Faults[fakeapiserver.FaultCompactMidList], "no page was expired")
	r.listsWithinBackoff(t, mark, 0)
}

// Finding 7: a streaming list cut before its end bookmark (an API server
// restarting mid-stream) costs one LIST, not streaming for good.
func TestChaosStreamingListCutBeforeItsBookmark(t *testing.T) {
	r := newRig(t, rigOptions{streaming: true, objects: 5, arm: func(srv *fakeapiserver.Server) { srv.CutStreamingLists(1) }})
	r.converges(t, recoverWithin, "after the cut")
	streams := r.streams.Load()
	// Make the informer list again: a 410 on its next watch.
	r.awaitWatch(t)
	r.srv.FailNext(fakeapiserver.Failure{Count: 1, Code: 410, Verb: "watch", AsEvent: true, Match: plainWatch})
	r.dropWatches(t)
	r.put(t, "cm-0", "after")
	r.converges(t, recoverWithin, "after the relist")
	require.Greater(t, r.streams.Load(), streams, "the relist streams again")
}

// Finding 8: a Retry-After hint beyond the maximum backoff is capped.
func TestChaosRetryAfterIsCappedAtTheMaximumBackoff(t *testing.T) {
	r := newRig(t, rigOptions{objects: 2, arm: func(srv *fakeapiserver.Server) {
		srv.FailNext(fakeapiserver.Failure{Count: 1, Code: 429, Verb: "list", RetryAfter: time.Hour})
	}})
	r.converges(t, recoverWithin, "a 1 h hint waits at most the maximum backoff")
}

// Finding 8: a 410 whose reason no client knows is still Gone: relist.
func TestChaosGoneWithAnUnknownReasonRelists(t *testing.T) {
	r := newRig(t, rigOptions{objects: 2})
	r.converges(t, recoverWithin, "initial sync")
	// One event on the open watch first: a watch dropped empty within a
	// second is a failure of its own (relisted as watch-error), which
	// under load could end this test's wait before the 410 came.
	r.put(t, "cm-1", "before")
	r.converges(t, recoverWithin, "an event on the watch")
	r.awaitWatch(t)
	r.srv.FailNext(fakeapiserver.Failure{Count: 1, Code: 410, Verb: "watch", AsEvent: true, Reason: "SomethingNew", Match: plainWatch})
	r.dropWatches(t)
	require.True(t, r.await(func() bool { return r.relists(observe.CauseWatchGone) > 0 }, recoverWithin),
		"a 410 makes the informer relist whatever its reason")
	r.put(t, "cm-0", "after")
	r.converges(t, recoverWithin, "after the relist")
}

// Finding 8: handlers that come and go must not postpone the resync of the
// others.
func TestChaosHandlersComingAndGoingDoNotPostponeResync(t *testing.T) {
	r := newRig(t, rigOptions{objects: 2})
	r.converges(t, recoverWithin, "initial sync")
	resync := &resyncCounter{}
	_, err := r.inf.AddHandler(resync, informer.HandlerOptions{ResyncPeriod: 100 * time.Millisecond})
	require.NoError(t, err)
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) && resync.n.Load() == 0 {
		reg, err := r.inf.AddHandler(newView("churn", 0), informer.HandlerOptions{})
		require.NoError(t, err)
		time.Sleep(20 * time.Millisecond) // pacing the churn, not waiting for anything
		reg.Remove()
	}
	require.Positive(t, resync.n.Load(), "a handler with a 100 ms resync period got no resync in 1 s of handler churn")
}

func (r *rig) errors() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errs...)
}

func (r *rig) relists(c observe.RelistCause) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.causes[c]
}

// plainWatch matches a WATCH that is not a streaming list.
func plainWatch(r *http.Request) bool { return r.URL.Query().Get("sendInitialEvents") == "" }

// resyncCounter counts resyncs: updates whose old and new objects are the
// same version.
type resyncCounter struct{ n atomic.Int64 }

func (c *resyncCounter) OnAdd(*object, bool) {}
func (c *resyncCounter) OnUpdate(old, o *object) {
	if old.ResourceVersion == o.ResourceVersion {
		c.n.Add(1)
	}
}
func (c *resyncCounter) OnDelete(*object, bool) {}
