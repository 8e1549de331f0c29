package reliability

import (
	"fmt"
	"strconv"
	"sync"

	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
)

// The chaos oracle forgives nothing a later relist would repair: a delete
// that reached the informer's watch must reach every handler that held the
// object as an observed delete (finalStateUnknown false), never as a
// tombstone of a later relist; and an observed delete must have come from a
// watch event. Convergence alone lets through a queue that loses a Delete,
// a Replace that skips a tombstone, or a re-watch from "" that skips what
// happened in between: the next relist hides each of them.

// watchCover follows the informer's trace to know which resourceVersions
// its watches covered: a watch from resourceVersion a that delivered an
// event or bookmark at b received every event in (a, b], in order (the
// server sends events in resourceVersion order, and a bookmark only after
// the events before it). A streaming list's watch covers from its
// initial-events-end bookmark on.
type watchCover struct {
	mu      sync.Mutex // guards the fields below
	open    bool       // a watch is open and its start is known
	start   int64
	max     int64
	spans   [][2]int64      // closed watches' (start, max]
	deleted map[string]bool // "key@rv" of every DELETED event received
}

func newWatchCover() *watchCover { return &watchCover{deleted: map[string]bool{}} }

func rvNum(rv string) int64 {
	n, _ := strconv.ParseInt(rv, 10, 64) // "" and "0": a watch from the start of time
	return n
}

func (w *watchCover) observe(ev observe.Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch ev.Stage {
	case observe.StageWatchOpened:
		w.closeLocked()
		if !ev.Streaming {
			w.open, w.start, w.max = true, rvNum(ev.ResourceVersion), rvNum(ev.ResourceVersion)
		}
	case observe.StageBookmark:
		if ev.Op == observe.OpInitialEventsEnd {
			w.open, w.start, w.max = true, rvNum(ev.ResourceVersion), rvNum(ev.ResourceVersion)
		} else if w.open {
			w.max = max(w.max, rvNum(ev.ResourceVersion))
		}
	case observe.StageEvent:
		if ev.EventType == meta.Deleted {
			w.deleted[ev.Key+"@"+ev.ResourceVersion] = true
		}
		if w.open {
			w.max = max(w.max, rvNum(ev.ResourceVersion))
		}
	case observe.StageWatchEnded, observe.StageRelist:
		w.closeLocked()
	}
}

func (w *watchCover) closeLocked() {
	if w.open && w.max > w.start {
		w.spans = append(w.spans, [2]int64{w.start, w.max})
	}
	w.open = false
}

// covered: some watch received the event at resourceVersion r.
func (w *watchCover) covered(r int64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.open && w.start < r && r <= w.max {
		return true
	}
	for _, s := range w.spans {
		if s[0] < r && r <= s[1] {
			return true
		}
	}
	return false
}

func (w *watchCover) sawDelete(key, rv string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.deleted[key+"@"+rv]
}

// deleteRec is one OnDelete a view received.
type deleteRec struct {
	key, uid, rv string
	unknown      bool
}

// left records that the object uid left the informer's view (deleted, or
// moved out of its selector) at the server's current resourceVersion: the
// script is the server's only writer.
func (sc *scenario) left(uid string) {
	sc.lmu.Lock()
	sc.leaves[uid] = append(sc.leaves[uid], sc.srv.ResourceVersion())
	sc.lmu.Unlock()
}

// leftAfter is the first time uid left the view after resourceVersion rv;
// 0 if it did not (as far as recorded).
func (sc *scenario) leftAfter(uid string, rv int64) int64 {
	sc.lmu.Lock()
	defer sc.lmu.Unlock()
	for _, r := range sc.leaves[uid] {
		if r > rv {
			return r
		}
	}
	return 0
}

// relistTraced follows relists: a Replace at resourceVersion L, then the
// cache swapped to its result. Right after the swap (the trace runs on the
// processing goroutine, before anything else is applied) no cached object
// may be one that had left the view by L: the relist's tombstone removes
// it. A Replace that skips a tombstone leaves it there until the next one,
// which convergence alone forgives.
func (sc *scenario) relistTraced(ev observe.Event) {
	switch ev.Stage {
	case observe.StageReplace:
		sc.lmu.Lock()
		sc.replaces = append(sc.replaces, rvNum(ev.ResourceVersion))
		sc.lmu.Unlock()
	case observe.StageCacheReplaced:
		sc.lmu.Lock()
		if len(sc.replaces) == 0 {
			sc.lmu.Unlock()
			return
		}
		// The oldest pending Replace: a later one may have merged into the
		// same batch, and what had left by the older had left by both.
		l := sc.replaces[0]
		sc.replaces = sc.replaces[:0]
		sc.lmu.Unlock()
		for _, o := range sc.inf.Store().List() {
			if r := sc.leftAfter(o.UID, rvNum(o.ResourceVersion)); r > 0 && r <= l {
				sc.lmu.Lock()
				sc.stale = append(sc.stale, fmt.Sprintf("the relist at rv %d kept %s@%s in the cache, which left at rv %d",
					l, meta.Key(o), o.ResourceVersion, r))
				sc.lmu.Unlock()
			}
		}
	}
}

// visible: the informer's selectors select an object of namespace ns with
// label value label.
func (sc *scenario) visible(ns, label string) bool {
	return !(sc.shape.fieldSel && ns == excludedNS) && (!sc.shape.selector || label == "in")
}

// checkDeletes applies the rules above to every handler's deletes. A
// restore reuses resourceVersions, so that what a watch covered says
// nothing about later writes: scenarios that drew one check only that
// observed deletes were watch events.
func (sc *scenario) checkDeletes() []string {
	sc.mu.Lock()
	restored := sc.drawn["restore"] > 0
	sc.mu.Unlock()
	var bad []string
	for _, v := range sc.views {
		for _, d := range v.deleteRecs() {
			if !d.unknown {
				if !sc.cover.sawDelete(d.key, d.rv) {
					bad = append(bad, fmt.Sprintf("%s: observed delete of %s@%s, which no watch event delivered", v.name, d.key, d.rv))
				}
				continue
			}
			if restored {
				continue
			}
			if r := sc.leftAfter(d.uid, rvNum(d.rv)); r > 0 && sc.cover.covered(r) {
				bad = append(bad, fmt.Sprintf("%s: %s (uid %s, last seen at rv %s) left at rv %d, which a watch delivered, yet the handler got a tombstone",
					v.name, d.key, d.uid, d.rv, r))
			}
		}
	}
	if !restored {
		sc.lmu.Lock()
		bad = append(bad, sc.stale...)
		sc.lmu.Unlock()
	}
	return bad
}
