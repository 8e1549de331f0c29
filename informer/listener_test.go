package informer

import (
	"context"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/informer/observe"
)

func TestFullQueueMergesPerKeyKeepingTheFinalState(t *testing.T) {
	a1, a2, a3 := mkPod("a", "1"), mkPod("a", "2"), mkPod("a", "3")
	add := func(p *pod) *notification[*pod] {
		return &notification[*pod]{kind: notifAdd, key: "ns/a", obj: p, flag: true}
	}
	upd := func(o, p *pod) *notification[*pod] {
		return &notification[*pod]{kind: notifUpdate, key: "ns/a", old: o, obj: p}
	}
	del := func(p *pod) *notification[*pod] { return &notification[*pod]{kind: notifDelete, key: "ns/a", obj: p} }
	for _, tc := range []struct {
		name string
		in   []*notification[*pod]
		want []string
	}{
		{"add+update is an add of the new state", []*notification[*pod]{add(a1), upd(a1, a2)}, []string{"add a@2 initial=true"}},
		{"add+delete is nothing", []*notification[*pod]{add(a1), del(a1)}, []string{}},
		{"update+update spans first old to last new", []*notification[*pod]{upd(a1, a2), upd(a2, a3)}, []string{"update a@1->3"}},
		{"update+delete is a delete", []*notification[*pod]{upd(a1, a2), del(a2)}, []string{"delete a unknown=false"}},
		{"delete+add stay two calls", []*notification[*pod]{del(a1), add(a2)}, []string{"delete a unknown=false", "add a@2 initial=true"}},
		{"delete+add+update merge the tail", []*notification[*pod]{del(a1), add(a2), upd(a2, a3)}, []string{"delete a unknown=false", "add a@3 initial=true"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newView()
			// Capacity 1 with a filler entry: every push finds the queue full.
			l := &listener[*pod]{name: "h", h: h, capacity: 1, metrics: observe.NopMetrics{}, obs: observers{metrics: observe.NopMetrics{}, log: quiet()},
				clock: newFakeClock(), wake: make(chan struct{}, 1)}
			l.push(&notification[*pod]{kind: notifAdd, key: "ns/filler", obj: mkPod("filler", "1")})
			for _, n := range tc.in {
				l.push(n)
			}
			for n := l.pop(); n != nil; n = l.pop() {
				l.call(n)
			}
			require.Equal(t, tc.want, h.lines()[1:])
			require.Zero(t, l.live)
		})
	}
}

func TestUnboundedQueueNeverMerges(t *testing.T) {
	h := newView()
	l := &listener[*pod]{name: "h", h: h, metrics: observe.NopMetrics{}, obs: observers{metrics: observe.NopMetrics{}, log: quiet()}, clock: newFakeClock(),
		wake: make(chan struct{}, 1)}
	for i := range 100 {
		l.push(&notification[*pod]{kind: notifUpdate, key: "ns/a", old: mkPod("a", "0"), obj: mkPod("a", string(rune('0'+i%10)))})
	}
	require.Equal(t, 100, l.live)
}

// TestDrainedQueueGivesAReplaysRoomBack: the replay of a big initial list
// grows a handler's queue to one entry per object; once drained it keeps
// none of that room, while a queue that stays small keeps its array (a
// steady watch does not reallocate per event).
func TestDrainedQueueGivesAReplaysRoomBack(t *testing.T) {
	l := &listener[*pod]{name: "h", h: newView(), metrics: observe.NopMetrics{}, obs: observers{metrics: observe.NopMetrics{}, log: quiet()}, clock: newFakeClock(),
		wake: make(chan struct{}, 1)}
	for i := range 10_000 {
		l.push(&notification[*pod]{kind: notifAdd, key: "ns/p" + strconv.Itoa(i), obj: mkPod("p", "1")})
	}
	for l.pop() != nil {
	}
	require.Zero(t, l.q.Cap(), "a drained queue after a replay of 10,000")

	for range 3 {
		l.push(&notification[*pod]{kind: notifAdd, key: "ns/a", obj: mkPod("a", "1")})
	}
	for l.pop() != nil {
	}
	require.NotZero(t, l.q.Cap(), "a small drained queue keeps its array")
}

// A listener nudges its goroutine only for the first entry of an empty
// queue; entries pushed while the handler is busy must still all arrive, in
// order, whether or not anything records the calls' timing.
func TestListenerDeliversEverythingPushedWhileBusy(t *testing.T) {
	for _, tc := range []struct {
		name    string
		metrics observe.Metrics
		timed   bool
	}{
		{"untimed (observe.NopMetrics)", observe.NopMetrics{}, false},
		{"timed (metrics set)", &countMetrics{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newView()
			h.block = make(chan struct{})
			l := newListener[*pod](h, HandlerOptions{Name: "h", Unbounded: true},
				Options[*pod]{Clock: newFakeClock(), Observe: ObserveOptions{Metrics: tc.metrics, Logger: quiet()}})
			require.Equal(t, tc.timed, l.timed)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { defer close(done); l.run(ctx) }()
			defer func() { cancel(); close(h.block); <-done }()

			// Rounds: a burst pushed while the handler is blocked, then
			// released call by call. Between rounds the goroutine goes back
			// to waiting, so each round's first push must wake it.
			var want []string
			for round := range 20 {
				for i := range 5 {
					rv := strconv.Itoa(round*5 + i)
					l.push(&notification[*pod]{kind: notifAdd, key: "ns/p" + rv, obj: mkPod("p"+rv, rv)})
					want = append(want, "add p"+rv+"@"+rv+" initial=false")
				}
				for range 5 {
					select {
					case h.block <- struct{}{}: // let one call through
					case <-time.After(10 * time.Second):
						t.Fatalf("handler stuck after %d calls", len(h.lines()))
					}
				}
				deadline := time.Now().Add(10 * time.Second)
				for len(h.lines()) < len(want) && time.Now().Before(deadline) {
					runtime.Gosched()
				}
			}
			require.Equal(t, want, h.lines())
		})
	}
}

// The untimed path still recovers a panicking handler.
func TestUntimedListenerRecoversPanics(t *testing.T) {
	l := &listener[*pod]{name: "h", metrics: observe.NopMetrics{}, obs: observers{metrics: observe.NopMetrics{}, log: quiet()}, clock: newFakeClock(),
		h: HandlerFuncs[*pod]{AddFunc: func(*pod, bool) { panic("boom") }}}
	require.NotPanics(t, func() { l.call(&notification[*pod]{kind: notifAdd, key: "ns/a", obj: mkPod("a", "1")}) })
}

func TestIsNop(t *testing.T) {
	for _, tc := range []struct {
		m    observe.Metrics
		want bool
	}{
		{observe.NopMetrics{}, true},
		{&observe.NopMetrics{}, true},
		{&countMetrics{}, false}, // embeds observe.NopMetrics but records some calls
	} {
		require.Equal(t, tc.want, isNop(tc.m), "%T", tc.m)
	}
}
