package storage

import (
	"sort"
	"time"

	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

// event is one committed write. Events are immutable after commit, except
// for the lazily built transition frames, which are only touched under
// Store.mu.
type event struct {
	rv   int64
	res  *Resource
	typ  meta.EventType // Added, Modified or Deleted
	key  string
	obj  *Object // the new state; for Deleted the last state at the deletion's RV
	prev *Object // the state before; nil for Added
	at   time.Time
	// frame is the event as every watcher that sees it unchanged gets it,
	// encoded once, when the first watcher needs it, and shared.
	frame []byte
	// addedFrame and deletedFrame serve selector transitions (an object that
	// starts or stops matching); built on first use under Store.mu.
	addedFrame, deletedFrame []byte
}

// transitionFrameLocked returns the frame of typ for a watcher whose
// selector sees this event as typ. Requires Store.mu.
func (e *event) transitionFrameLocked(typ meta.EventType) []byte {
	switch {
	case typ == e.typ:
		if e.frame == nil {
			e.frame = watchstream.AppendFrame(nil, e.typ, e.obj.Full())
		}
		return e.frame
	case typ == meta.Added:
		if e.addedFrame == nil {
			e.addedFrame = watchstream.AppendFrame(nil, meta.Added, e.obj.Full())
		}
		return e.addedFrame
	default:
		// Stops matching: kube-apiserver sends the previous content at the
		// event's resourceVersion.
		if e.deletedFrame == nil {
			e.deletedFrame = watchstream.AppendFrame(nil, meta.Deleted, withRV(e.res, e.prev, e.rv).Full())
		}
		return e.deletedFrame
	}
}

// history is the bounded log of recent events that watches replay from and
// paginated lists reconstruct old snapshots from. Events are in RV order.
type history struct {
	events    []*event
	compacted int64 // every event with rv <= compacted is gone
	maxEvents int
	maxAge    time.Duration
}

func (h *history) append(e *event) {
	h.events = append(h.events, e)
	h.trim(e.at)
}

// trim drops events beyond the count and age bounds.
func (h *history) trim(now time.Time) {
	n := 0
	for n < len(h.events) && (len(h.events)-n > h.maxEvents || now.Sub(h.events[n].at) > h.maxAge) {
		n++
	}
	h.drop(n)
}

// compact drops every event with rv <= rv, as etcd compaction does.
func (h *history) compact(rv int64) int {
	n := sort.Search(len(h.events), func(i int) bool { return h.events[i].rv > rv })
	h.drop(n)
	if rv > h.compacted {
		h.compacted = rv
	}
	return n
}

func (h *history) drop(n int) {
	if n == 0 {
		return
	}
	h.compacted = max(h.compacted, h.events[n-1].rv)
	clear(h.events[:n]) // let the dropped objects be collected
	h.events = h.events[n:]
}

// since returns the events after rv. The caller must have checked that
// rv >= h.compacted.
func (h *history) since(rv int64) []*event {
	i := sort.Search(len(h.events), func(i int) bool { return h.events[i].rv > rv })
	return h.events[i:]
}

// truncate drops every event after rv, as a restore to rv loses them.
func (h *history) truncate(rv int64) {
	n := len(h.since(rv))
	clear(h.events[len(h.events)-n:])
	h.events = h.events[:len(h.events)-n]
}
