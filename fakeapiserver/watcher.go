package fakeapiserver

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/url"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/zerokube/zerokube/meta"
)

// watcher is one open watch. The server offers it frames under s.mu through
// ch; its serving goroutine writes them out.
type watcher struct {
	res       *Resource
	f         filter
	ch        chan []byte // closed (under s.mu) when the server ends the watch
	closed    bool        // guarded by s.mu
	minRV     int64       // events at or below this RV are not sent
	bookmarks bool
	stalled   atomic.Bool   // fault: write nothing more, keep the connection
	cutNext   atomic.Bool   // fault: the next frame is cut in half and the connection dropped
	poke      chan struct{} // wakes the serving goroutine to look at stalled
}

// seesAs returns how a watcher with w's filter sees ev, or "" when it does
// not see it: an object that starts matching is ADDED, one that stops is
// DELETED, as kube-apiserver's watch cache reports them.
func (w *watcher) seesAs(ev *event) meta.EventType {
	cur := w.f.matches(ev.obj)
	prev := ev.prev != nil && w.f.matches(ev.prev)
	switch ev.typ {
	case meta.Added:
		if cur {
			return meta.Added
		}
	case meta.Modified:
		switch {
		case cur && prev:
			return meta.Modified
		case cur:
			return meta.Added
		case prev:
			return meta.Deleted
		}
	case meta.Deleted:
		if cur || prev {
			return meta.Deleted
		}
	}
	return ""
}

// offerEventLocked hands ev to w if w sees it. Requires s.mu.
func (s *Server) offerEventLocked(w *watcher, ev *event) {
	if w.closed || ev.rv <= w.minRV {
		return
	}
	if typ := w.seesAs(ev); typ != "" {
		s.offerLocked(w, ev.transitionFrameLocked(typ))
	}
}

// offerLocked queues a frame without blocking: a watcher whose buffer is
// full has fallen too far behind and is ended, as kube-apiserver ends a
// blocked watcher; its client re-watches from its last RV. Requires s.mu.
func (s *Server) offerLocked(w *watcher, frame []byte) {
	select {
	case w.ch <- frame:
	default:
		s.stats.slowWatchers.Add(1)
		s.log.Warn("fakeapiserver: ending a watcher that fell behind", "resource", w.res.qualified(), "buffer", cap(w.ch))
		s.endWatcherLocked(w)
	}
}

// endWatcherLocked ends w's stream after the frames already queued.
// Requires s.mu.
func (s *Server) endWatcherLocked(w *watcher) {
	if w.closed {
		return
	}
	w.closed = true
	close(w.ch)
	delete(s.watchers[w.res], w)
	s.nWatchers--
	s.signalLocked()
}

func (s *Server) endAllWatchersLocked(why string) int {
	n := 0
	for _, ws := range s.watchers {
		for w := range ws {
			s.endWatcherLocked(w)
			n++
		}
	}
	if n > 0 {
		s.log.Info("fakeapiserver: ended watches", "count", n, "why", why)
	}
	return n
}

// signalLocked wakes Await… callers. Requires s.mu.
func (s *Server) signalLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// watchOptions are the validated parameters of a WATCH.
type watchOptions struct {
	list        listOptions
	sendInitial bool
	bookmarks   bool
	timeout     time.Duration
}

func (s *Server) parseWatchOptions(q url.Values) (watchOptions, error) {
	var o watchOptions
	var err error
	if o.list, err = parseListOptions(q, true); err != nil {
		return o, err
	}
	o.sendInitial = isTrue(q.Get("sendInitialEvents"))
	o.bookmarks = isTrue(q.Get("allowWatchBookmarks"))
	m := o.list.match
	switch {
	case q.Has("sendInitialEvents") && m != "NotOlderThan":
		return o, errListInvalid("resourceVersionMatch", m, "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan")
	case !q.Has("sendInitialEvents") && m != "":
		return o, errListInvalid("resourceVersionMatch", m, "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided")
	}
	o.timeout = s.opts.MinRequestTimeout + time.Duration(rand.Int64N(int64(s.opts.MinRequestTimeout)))
	if t := q.Get("timeoutSeconds"); t != "" {
		n, err := strconv.ParseInt(t, 10, 64)
		if err != nil || n < 0 {
			return o, errBadRequest("invalid timeoutSeconds: %q", t)
		}
		if n > 0 {
			o.timeout = time.Duration(n) * time.Second
		}
	}
	return o, nil
}

// watchStart is what a new watch sends before live events: the current
// state as ADDED events, the initial-events-end bookmark, replayed history.
type watchStart struct {
	w          *watcher
	initial    []*stored
	initialEnd []byte // nil unless a bookmark ends the initial events
	replay     [][]byte
	endEarly   bool // fault: end the stream after the initial events sent
}

// errWatchTooOld carries the error a watch gets as an ERROR event after
// 200: a 410 for a resourceVersion older than the history, a 504 for a
// streaming list at one the server has not reached.
type errWatchTooOld struct{ status *meta.StatusError }

func (e errWatchTooOld) Error() string { return e.status.Error() }

// startWatch registers a watcher and, under the same lock, collects what it
// must send first, so no event falls between the two.
func (s *Server) startWatch(ctx context.Context, res *Resource, f filter, o watchOptions) (*watchStart, error) {
	rv := o.list.rv
	if o.sendInitial && rv > 0 {
		if err := s.waitForRV(ctx, rv); err != nil {
			var se *meta.StatusError
			if errors.As(err, &se) {
				// kube-apiserver's cacher waits for the RV after accepting
				// the watch, so its 504 comes as an ERROR event.
				return nil, errWatchTooOld{se}
			}
			return nil, err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hist.trim(s.now())
	w := &watcher{res: res, f: f, ch: make(chan []byte, s.opts.WatchBuffer), bookmarks: o.bookmarks, poke: make(chan struct{}, 1)}
	st := &watchStart{w: w}
	switch {
	case o.sendInitial || rv <= 0:
		for _, e := range s.snapshotLocked(res, s.rv).scope(f.ns, "") {
			if f.matches(e.obj) {
				st.initial = append(st.initial, e.obj)
			}
		}
		w.minRV = s.rv
		if o.bookmarks {
			st.initialEnd = bookmarkFrame(res, s.rv, true)
		}
	case rv < s.hist.compacted:
		return nil, errWatchTooOld{errTooOld(rv, s.hist.compacted+1)}
	case rv > s.rv:
		w.minRV = rv // a future RV: silent until the server gets there
	default:
		w.minRV = s.rv
		for _, ev := range s.hist.since(rv) {
			if ev.res != res {
				continue
			}
			if typ := w.seesAs(ev); typ != "" {
				st.replay = append(st.replay, ev.transitionFrameLocked(typ))
			}
		}
	}
	if s.watchers[res] == nil {
		s.watchers[res] = map[*watcher]struct{}{}
	}
	s.watchers[res][w] = struct{}{}
	s.nWatchers++
	s.stats.watches.Add(1)
	s.signalLocked()
	return st, nil
}

// bookmark queues a BOOKMARK at the current RV; every event up to it is
// already queued, so the order on the wire is right. A full buffer skips it.
func (s *Server) bookmark(w *watcher) {
	if s.faults.noBookmarks.Load() {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if w.closed || s.rv < w.minRV {
		return
	}
	select {
	case w.ch <- bookmarkFrame(w.res, s.rv, false):
		s.stats.bookmarks.Add(1)
	default:
	}
}

func (s *Server) removeWatcher(w *watcher) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.endWatcherLocked(w)
}

// errCut ends a stream whose connection a fault cut.
var errCut = errors.New("fakeapiserver: watch cut by fault injection")
