package informer

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

// A synchronous handler is called on the goroutine that processes the
// deltas, with InlineProcessing the reflector's, right after the cache
// holds the change and before the reflector reads the next event: once the watch has
// handed over event k+1 (liveLW's channel is unbuffered), the handler has
// been called for event k, and the cache held each change when it was.
func TestSynchronousHandlerRunsBeforeTheNextEventIsRead(t *testing.T) {
	lw := newLiveLW(pods("a"), "5")
	inf := newInformer[pod](lw, Options[*pod]{Process: ProcessOptions{InlineProcessing: true}, Observe: ObserveOptions{Logger: quiet()}})
	h := newView()
	var stale atomic.Int64 // calls that found the cache behind the change
	_, err := inf.AddHandler(HandlerFuncs[*pod]{
		AddFunc: func(p *pod, initial bool) { h.OnAdd(p, initial) },
		UpdateFunc: func(old, p *pod) {
			if got, ok := inf.Lister().Get(p.Namespace, p.Name); !ok || got.ResourceVersion != p.ResourceVersion {
				stale.Add(1)
			}
			h.OnUpdate(old, p)
		},
	}, HandlerOptions{Synchronous: true})
	require.NoError(t, err)
	startInformer(t, inf)
	require.NoError(t, inf.WaitForSync(t.Context()))
	for i := range 5 {
		lw.events <- ev(meta.Modified, "a", fmt.Sprint(6+i))
		if i > 0 {
			require.GreaterOrEqual(t, len(h.lines()), i+1, "event %d was read before the handler heard of event %d", i, i-1)
		}
	}
	lw.events <- watchstream.Event[*pod]{Type: meta.Bookmark, Object: mkPod("", "11"), ResourceVersion: "11"}
	require.Equal(t, []string{"add a@1 initial=true", "update a@1->6", "update a@6->7", "update a@7->8",
		"update a@8->9", "update a@9->10"}, h.lines())
	require.Zero(t, stale.Load(), "a call before the cache held its change")
}

// The rest holds with the processing loop too: the replay of a synchronous
// handler added late is made before AddHandler returns, with the sync
// marker; a panic is recovered and counted; a synchronous handler may add
// a handler and remove itself from inside a call.
func TestSynchronousHandler(t *testing.T) {
	for _, loop := range []bool{false, true} {
		t.Run(fmt.Sprintf("loop=%t", loop), func(t *testing.T) { testSynchronousHandler(t, loop) })
	}
}

func testSynchronousHandler(t *testing.T, loop bool) {
	lw := newLiveLW(pods("a", "b"), "5")
	var m countMetrics
	inf := newInformer[pod](lw, Options[*pod]{Process: ProcessOptions{InlineProcessing: !loop}, Observe: ObserveOptions{Logger: quiet(), Metrics: &m}})
	_, err := inf.AddHandler(HandlerFuncs[*pod]{AddFunc: func(*pod, bool) { panic("boom") }},
		HandlerOptions{Synchronous: true})
	require.NoError(t, err)
	startInformer(t, inf)
	require.NoError(t, inf.WaitForSync(t.Context()))
	require.Eventually(t, func() bool { return m.panics.Load() == 2 }, wait, time.Millisecond,
		"both initial adds panicked, and were recovered")

	late := newView()
	reg, err := inf.AddHandler(late, HandlerOptions{Synchronous: true})
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"add a@1 initial=true", "add b@1 initial=true"}, late.lines(),
		"replayed before AddHandler returned")
	require.True(t, reg.HasSynced())

	// From inside a call: add a handler (synchronous, so its replay is
	// made right there) and remove the calling one.
	added := newView()
	var self *Registration
	var calls, replayed atomic.Int64
	first := make(chan struct{}) // closed at the end of the first call
	self, err = inf.AddHandler(HandlerFuncs[*pod]{UpdateFunc: func(_, p *pod) {
		if calls.Add(1) > 1 {
			return
		}
		_, err := inf.AddHandler(added, HandlerOptions{Synchronous: true})
		if err == nil {
			replayed.Store(int64(len(added.lines())))
		}
		self.Remove()
		close(first)
	}}, HandlerOptions{Synchronous: true})
	require.NoError(t, err)
	lw.events <- ev(meta.Modified, "a", "6")
	select {
	case <-first:
	case <-time.After(wait):
		t.Fatal("the synchronous handler was not called for the event")
	}
	require.EqualValues(t, 2, replayed.Load(), "the replay, before AddHandler returned inside the call")
	lw.events <- ev(meta.Modified, "b", "7")
	require.Eventually(t, func() bool { return len(added.lines()) == 3 }, wait, time.Millisecond)
	require.Equal(t, "update b@1->7", added.lines()[2])
	require.EqualValues(t, 1, calls.Load(), "removed from inside its first call")
	require.Equal(t, []string{"update a@1->6", "update b@1->7"}, late.lines()[2:])
}
