package storage

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/zerokube/zerokube/meta"
)

// Watcher is one open watch. The store offers it frames under Store.mu
// through a buffered channel; the server's serving goroutine writes them out.
type Watcher struct {
	res       *Resource
	f         Filter
	ch        chan []byte // closed (under Store.mu) when the store ends the watch
	closed    bool        // guarded by Store.mu
	minRV     int64       // events at or below this RV are not sent
	bookmarks bool
	stalled   atomic.Bool   // fault: write nothing more, keep the connection
	cutNext   atomic.Bool   // fault: the next frame is cut in half and the connection dropped
	dropNext  atomic.Bool   // fault: the next event this watch sees is not sent
	poke      chan struct{} // wakes the serving goroutine to look at stalled
}

// Resource is the watched resource.
func (w *Watcher) Resource() *Resource { return w.res }

// Frames delivers the watch's frames; it is closed when the store ends
// the watch, after the frames already queued.
func (w *Watcher) Frames() <-chan []byte { return w.ch }

// Bookmarks reports whether the client allowed bookmarks.
func (w *Watcher) Bookmarks() bool { return w.bookmarks }

// Poked is signalled when a fault changes the watcher's state.
func (w *Watcher) Poked() <-chan struct{} { return w.poke }

// Stall makes the watch go silent: Stalled reports true from now on.
func (w *Watcher) Stall() {
	w.stalled.Store(true)
	select {
	case w.poke <- struct{}{}:
	default:
	}
}

// Stalled reports whether a fault stalled the watch.
func (w *Watcher) Stalled() bool { return w.stalled.Load() }

// ArmCut makes the next frame be cut in half and the connection dropped.
func (w *Watcher) ArmCut() { w.cutNext.Store(true) }

// ArmDrop makes the next event the watch sees go unsent, silently: the
// watch goes on with the events after it.
func (w *Watcher) ArmDrop() { w.dropNext.Store(true) }

// CutArmed reports whether a cut is armed, without disarming it.
func (w *Watcher) CutArmed() bool { return w.cutNext.Load() }

// TakeCut disarms an armed cut and reports whether there was one.
func (w *Watcher) TakeCut() bool { return w.cutNext.CompareAndSwap(true, false) }

// seesAs returns how a watcher with w's filter sees ev, or "" when it does
// not see it: an object that starts matching is ADDED, one that stops is
// DELETED, as kube-apiserver's watch cache reports them.
func (w *Watcher) seesAs(ev *event) meta.EventType {
	cur := w.f.Matches(ev.obj)
	prev := ev.prev != nil && w.f.Matches(ev.prev)
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
func (s *Store) offerEventLocked(w *Watcher, ev *event) {
	if w.closed || ev.rv <= w.minRV {
		return
	}
	if typ := w.seesAs(ev); typ != "" {
		if w.dropNext.CompareAndSwap(true, false) {
			s.log.Info("fakeapiserver: fault: a watch event not sent", "resource", w.res.Qualified(),
				"type", string(typ), "key", ev.key, "rv", ev.rv)
			return
		}
		s.offerLocked(w, ev.transitionFrameLocked(typ))
	}
}

// offerLocked queues a frame without blocking: a watcher whose buffer is
// full has fallen too far behind and is ended, as kube-apiserver ends a
// blocked watcher; its client re-watches from its last RV. Requires s.mu.
func (s *Store) offerLocked(w *Watcher, frame []byte) {
	select {
	case w.ch <- frame:
	default:
		s.stats.SlowWatchers.Add(1)
		s.log.Warn("fakeapiserver: ending a watcher that fell behind", "resource", w.res.Qualified(), "buffer", cap(w.ch))
		s.endWatcherLocked(w)
	}
}

// endWatcherLocked ends w's stream after the frames already queued.
// Requires s.mu.
func (s *Store) endWatcherLocked(w *Watcher) {
	if w.closed {
		return
	}
	w.closed = true
	close(w.ch)
	delete(s.watchers[w.res], w)
	s.nWatchers--
	s.signalLocked()
}

// EndWatches ends every open watch cleanly and returns how many ended.
func (s *Store) EndWatches(why string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
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

// EachWatcher calls fn for every open watcher, under the store's lock, and
// returns how many there were.
func (s *Store) EachWatcher(fn func(*Watcher)) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, ws := range s.watchers {
		for w := range ws {
			fn(w)
			n++
		}
	}
	return n
}

// InjectFrame queues raw bytes as the next frame of every open watch.
func (s *Store) InjectFrame(frame []byte) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, ws := range s.watchers {
		for w := range ws {
			s.offerLocked(w, frame)
			n++
		}
	}
	return n
}

// signalLocked wakes AwaitWatchers callers. Requires s.mu.
func (s *Store) signalLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// Watchers returns how many watches are open.
func (s *Store) Watchers() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nWatchers
}

// AwaitWatchers waits until cond holds for the number of open watches,
// evaluated each time watches come and go.
func (s *Store) AwaitWatchers(ctx context.Context, cond func(n int) bool) error {
	for {
		s.mu.Lock()
		ok, ch := cond(s.nWatchers), s.changed
		s.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

// WatchOptions are the validated parameters of a WATCH that the store needs.
type WatchOptions struct {
	RV          int64 // -1: unset
	SendInitial bool
	Bookmarks   bool
}

// WatchStart is what a new watch sends before live events: the current
// state as ADDED events, the initial-events-end bookmark, replayed history.
type WatchStart struct {
	W          *Watcher
	Initial    []*Object
	InitialEnd []byte // nil unless a bookmark ends the initial events
	Replay     [][]byte
	EndEarly   bool // set by the front's fault: end after the initial events
}

// TooOldError carries the error a watch gets as an ERROR event after 200:
// a 410 for a resourceVersion older than the history, a 504 for a
// streaming list at one the store has not reached.
type TooOldError struct{ Status *meta.StatusError }

func (e TooOldError) Error() string { return e.Status.Error() }

// Watch registers a watcher and, under the same lock, collects what it
// must send first, so no event falls between the two. A watch from a
// compacted RV fails with TooOldError.
func (s *Store) Watch(ctx context.Context, res *Resource, f Filter, o WatchOptions) (*WatchStart, error) {
	rv := o.RV
	if o.SendInitial && rv > 0 {
		if err := s.WaitForRV(ctx, rv); err != nil {
			var se *meta.StatusError
			if errors.As(err, &se) {
				// kube-apiserver's cacher waits for the RV after accepting
				// the watch, so its 504 comes as an ERROR event.
				return nil, TooOldError{se}
			}
			return nil, err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hist.trim(s.opts.Now())
	w := &Watcher{res: res, f: f, ch: make(chan []byte, s.opts.WatchBuffer), bookmarks: o.Bookmarks, poke: make(chan struct{}, 1)}
	st := &WatchStart{W: w}
	switch {
	case o.SendInitial || rv <= 0:
		for _, e := range s.snapshotLocked(res, s.rv).scope(f.NS, "") {
			if f.Matches(e.obj) {
				st.Initial = append(st.Initial, e.obj)
			}
		}
		w.minRV = s.rv
		if o.Bookmarks {
			st.InitialEnd = BookmarkFrame(res, s.rv, true)
		}
	case rv < s.hist.compacted:
		return nil, TooOldError{TooOld(rv, s.hist.compacted+1)}
	case rv > s.rv:
		w.minRV = rv // a future RV: silent until the store gets there
	default:
		w.minRV = s.rv
		for _, ev := range s.hist.since(rv) {
			if ev.res != res {
				continue
			}
			if typ := w.seesAs(ev); typ != "" {
				st.Replay = append(st.Replay, ev.transitionFrameLocked(typ))
			}
		}
	}
	if s.watchers[res] == nil {
		s.watchers[res] = map[*Watcher]struct{}{}
	}
	s.watchers[res][w] = struct{}{}
	s.nWatchers++
	s.stats.Watches.Add(1)
	s.signalLocked()
	return st, nil
}

// Bookmark queues a BOOKMARK at the current RV; every event up to it is
// already queued, so the order on the wire is right. A full buffer skips
// it; so does a closed watch or one waiting for a future RV.
func (s *Store) Bookmark(w *Watcher) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if w.closed || s.rv < w.minRV {
		return
	}
	select {
	case w.ch <- BookmarkFrame(w.res, s.rv, false):
		s.stats.Bookmarks.Add(1)
	default:
	}
}

// RemoveWatcher ends w, if the store has not already.
func (s *Store) RemoveWatcher(w *Watcher) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.endWatcherLocked(w)
}
