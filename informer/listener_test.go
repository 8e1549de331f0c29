package informer

import (
	"testing"

	"github.com/stretchr/testify/require"
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
			l := &listener[*pod]{name: "h", h: h, capacity: 1, metrics: NopMetrics{}, log: quiet(),
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
	l := &listener[*pod]{name: "h", h: h, metrics: NopMetrics{}, log: quiet(), clock: newFakeClock(),
		wake: make(chan struct{}, 1)}
	for i := range 100 {
		l.push(&notification[*pod]{kind: notifUpdate, key: "ns/a", old: mkPod("a", "0"), obj: mkPod("a", string(rune('0'+i%10)))})
	}
	require.Equal(t, 100, l.live)
}
