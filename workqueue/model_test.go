package workqueue

import (
	"context"
	"errors"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/clock/clocktest"
)

// model is the queue's specification as plain data, driven in one goroutine.
type model struct {
	queue      []entry // in hand-out order
	dirty      map[int]bool
	processing map[int]bool
	waiting    map[int]time.Time
	now        time.Time
	shutdown   bool
	group      int // tie groups: items due at the same instant may come out in any order
}

// entry is a queued item and its tie group.
type entry struct{ item, group int }

func newModel(now time.Time) *model {
	return &model{dirty: map[int]bool{}, processing: map[int]bool{}, waiting: map[int]time.Time{}, now: now}
}

func (m *model) add(item int, group int) {
	if m.shutdown || m.dirty[item] {
		return
	}
	m.dirty[item] = true
	if !m.processing[item] {
		m.queue = append(m.queue, entry{item, group})
	}
}

func (m *model) newGroup() int { m.group++; return m.group }

func (m *model) step(d time.Duration) {
	m.now = m.now.Add(d)
	var due []int
	for item, at := range m.waiting {
		if !at.After(m.now) {
			due = append(due, item)
		}
	}
	slices.SortFunc(due, func(a, b int) int { return m.waiting[a].Compare(m.waiting[b]) })
	var last time.Time
	g := 0
	for _, item := range due {
		if g == 0 || !m.waiting[item].Equal(last) {
			g, last = m.newGroup(), m.waiting[item]
		}
		delete(m.waiting, item)
		m.add(item, g)
	}
}

// queueRun applies one operation to both and compares.
type queueRun struct {
	t     testing.TB
	clock *clocktest.Fake
	q     *Queue[int]
	m     *model
}

func newQueueRun(t testing.TB) *queueRun {
	c := clocktest.New()
	return &queueRun{t: t, clock: c, q: New[int](Options[int]{Clock: c}), m: newModel(c.Now())}
}

func (r *queueRun) apply(op, a byte) {
	item := int(a % 8)
	d := time.Duration(a%5) * time.Second
	switch op % 7 {
	case 0, 1:
		r.q.Add(item)
		r.m.add(item, r.m.newGroup())
	case 2:
		r.get()
	case 3: // Done of a held item when there is one, else of anything
		held := slices.Sorted(maps.Keys(r.m.processing))
		if len(held) > 0 {
			item = held[int(a)%len(held)]
		}
		r.q.Done(item)
		if r.m.processing[item] {
			delete(r.m.processing, item)
			if r.m.dirty[item] {
				r.m.queue = append(r.m.queue, entry{item, r.m.newGroup()})
			}
		}
	case 4:
		r.q.AddAfter(item, d)
		switch {
		case d <= 0:
			r.m.add(item, r.m.newGroup())
		case r.m.shutdown:
		default:
			at := r.m.now.Add(d)
			if old, ok := r.m.waiting[item]; !ok || at.Before(old) {
				r.m.waiting[item] = at
			}
		}
	case 5:
		advance(r.t, r.clock, d)
		r.m.step(d)
	case 6:
		if a%16 == 0 { // rare: it ends the interesting part
			r.q.ShutDown()
			r.m.shutdown = true
			clear(r.m.waiting)
		}
	}
	require.Equal(r.t, len(r.m.queue), r.q.Len())
}

// get takes an item if the model says one is there (or the queue is over);
// it never blocks, since Get checks the queue first.
func (r *queueRun) get() {
	if len(r.m.queue) == 0 {
		if r.m.shutdown {
			_, err := r.q.Get(context.Background())
			require.True(r.t, errors.Is(err, ErrShutDown), "got %v", err)
		}
		return
	}
	got, err := r.q.Get(context.Background())
	require.NoError(r.t, err)
	first := r.m.queue[0].group
	i := slices.IndexFunc(r.m.queue, func(e entry) bool { return e.item == got && e.group == first })
	require.GreaterOrEqual(r.t, i, 0, "got %d, want one of the group at the front of %v", got, r.m.queue)
	r.m.queue = slices.Delete(r.m.queue, i, i+1)
	r.m.processing[got] = true
	delete(r.m.dirty, got)
}

func TestQueueMatchesModel(t *testing.T) {
	for seed := range uint64(30) {
		r := newQueueRun(t)
		rnd := rand.New(rand.NewPCG(seed, 7))
		for range 2000 {
			r.apply(byte(rnd.IntN(256)), byte(rnd.IntN(256)))
		}
		r.q.ShutDown()
	}
}

// FuzzQueueModel reads operations two bytes at a time.
func FuzzQueueModel(f *testing.F) {
	f.Add([]byte{0, 1, 2, 0, 0, 1, 3, 0, 2, 0, 4, 3, 5, 4, 2, 0})
	f.Add([]byte{4, 9, 4, 1, 4, 17, 5, 3, 2, 0, 2, 0, 3, 0, 3, 1, 6, 16, 2, 0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		r := newQueueRun(t)
		for i := 0; i+1 < len(ops); i += 2 {
			r.apply(ops[i], ops[i+1])
		}
		r.q.ShutDown()
	})
}
