package workqueue

import (
	"container/heap"
	"time"

	"github.com/zerokube/zerokube/clock"
)

// delayed holds the items AddAfter is keeping until their time comes: a min-heap
// by due time plus an index so an item waits only once, and the one Clock timer
// armed for the earliest due time.
type delayed[K comparable] struct {
	heap  dueHeap[K]
	index map[K]*due[K]
	timer clock.Timer // armed for timerAt; nil when none is
	at    time.Time   // when timer fires
	gen   uint64      // bumped per timer, so a stopped timer that fired anyway is ignored
}

type due[K comparable] struct {
	item K
	at   time.Time
	pos  int // position in the heap, kept by the heap methods
}

func newDelayed[K comparable]() delayed[K] { return delayed[K]{index: make(map[K]*due[K])} }

// add makes item due at at, or earlier if it already waits for an earlier time.
// It reports whether the earliest due time moved, so the timer must be re-armed.
func (d *delayed[K]) add(item K, at time.Time) bool {
	if e, ok := d.index[item]; ok {
		if !at.Before(e.at) {
			return false
		}
		e.at = at
		heap.Fix(&d.heap, e.pos)
	} else {
		e := &due[K]{item: item, at: at}
		d.index[item] = e
		heap.Push(&d.heap, e)
	}
	return d.timer == nil || d.heap[0].at.Before(d.at)
}

// popDue removes and returns the earliest item if it is due at now.
func (d *delayed[K]) popDue(now time.Time) (K, bool) {
	if len(d.heap) == 0 || d.heap[0].at.After(now) {
		var zero K
		return zero, false
	}
	e := heap.Pop(&d.heap).(*due[K])
	delete(d.index, e.item)
	return e.item, true
}

// stop disarms the timer and drops every waiting item.
func (d *delayed[K]) stop() {
	if d.timer != nil {
		d.timer.Stop()
		d.timer = nil
	}
	d.gen++
	d.heap = nil
	clear(d.index)
}

// scheduleLocked arms the clock for the earliest waiting item, replacing any
// timer armed for a later time; q.mu must be held.
func (q *Queue[K]) scheduleLocked() {
	d := &q.waiting
	if d.timer != nil {
		d.timer.Stop()
		d.timer = nil
	}
	if len(d.heap) == 0 {
		return
	}
	d.gen++
	gen := d.gen
	d.at = d.heap[0].at
	d.timer = q.clock.AfterFunc(d.at.Sub(q.clock.Now()), func() { q.fire(gen) })
}

// fire queues every item that is due and re-arms for the next one. A timer from
// an older generation was replaced or stopped after it had already fired: the
// current timer covers its items.
func (q *Queue[K]) fire(gen uint64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if gen != q.waiting.gen || q.shutdown {
		return
	}
	q.waiting.timer = nil
	now := q.clock.Now()
	for {
		item, ok := q.waiting.popDue(now)
		if !ok {
			break
		}
		q.addLocked(item)
	}
	q.scheduleLocked()
}

// dueHeap orders waiting items by due time for container/heap.
type dueHeap[K comparable] []*due[K]

func (h dueHeap[K]) Len() int           { return len(h) }
func (h dueHeap[K]) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h dueHeap[K]) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].pos, h[j].pos = i, j
}

func (h *dueHeap[K]) Push(x any) {
	e := x.(*due[K])
	e.pos = len(*h)
	*h = append(*h, e)
}

func (h *dueHeap[K]) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return e
}
