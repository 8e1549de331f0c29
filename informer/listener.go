package informer

import (
	"context"
	"sync"
	"time"

	"github.com/zerokube/zerokube/clock"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/internal/ring"
	"github.com/zerokube/zerokube/meta"
)

type notifKind uint8

const (
	notifAdd notifKind = iota + 1
	notifUpdate
	notifDelete
	notifSynced // marker: everything of the initial list is before it
)

// notification is one pending call of a handler. dead entries were merged
// away and are skipped.
type notification[P any] struct {
	kind   notifKind
	key    string
	obj    P
	old    P    // notifUpdate only
	flag   bool // isInInitialList for add, a resync for update, finalStateUnknown for delete
	snap   bool // add: the object was loaded from a snapshot (SnapshotHandler)
	queued time.Time
	dead   bool
}

// merge folds n into the pending p for the same key, keeping the final
// state; false when the two cannot be one call (delete then add).
func (p *notification[P]) merge(n *notification[P]) bool {
	switch {
	case p.kind == notifAdd && n.kind == notifUpdate:
		p.obj, p.snap = n.obj, false // the state is the server's now
	case p.kind == notifAdd && n.kind == notifDelete:
		p.dead = true
	case p.kind == notifUpdate && n.kind == notifUpdate:
		p.obj, p.flag = n.obj, p.flag && n.flag // a resync merged with a change is a change
	case p.kind == notifUpdate && n.kind == notifDelete:
		p.kind, p.obj, p.flag = notifDelete, n.obj, n.flag
		var zero P
		p.old = zero
	default:
		return false
	}
	return true
}

// listener is one handler with its queue and goroutine; a synchronous
// handler's (inline) has no goroutine: the goroutines that process deltas
// drain its queue (drain).
type listener[P meta.Object] struct {
	name     string
	h        Handler[P]
	inline   bool          // HandlerOptions.Synchronous
	turn     chan struct{} // inline: cap 1, held by the goroutine calling the handler
	capacity int           // 0: unbounded
	resync   time.Duration
	metrics  observe.Metrics // for the handler queue's depth gauge
	obs      observers
	clock    clock.Clock
	timed    bool // metrics or trace want each call's lag and duration

	synced  chan struct{} // closed by run when it reaches the sync marker
	removed chan struct{}
	once    sync.Once
	wake    chan struct{} // cap 1

	mu      sync.Mutex // guards the fields below
	q       ring.Ring[*notification[P]]
	live    int                         // entries of q not dead
	pending map[string]*notification[P] // last queued notification per key; nil until the queue is first full

	// nextResync is when the handler's next resync is due; syncing says
	// the current resync is for it. The resync loop sets both and the
	// dispatcher reads syncing; both hold mu.
	nextResync time.Time
	syncing    bool
}

// newListener returns a handler's listener with o's settings (o.Name set)
// and the informer's for the rest.
func newListener[P meta.Object](h Handler[P], o HandlerOptions, opts Options[P]) *listener[P] {
	l := &listener[P]{
		name: o.Name, h: h, inline: o.Synchronous, capacity: o.QueueCapacity, metrics: opts.Observe.Metrics, obs: observersOf(opts),
		clock: opts.Clock, synced: make(chan struct{}),
		removed: make(chan struct{}), wake: make(chan struct{}, 1),
	}
	l.timed = l.obs.timed()
	if l.inline {
		l.turn = make(chan struct{}, 1)
	}
	switch {
	case o.Unbounded:
		l.capacity = 0
	case o.QueueCapacity <= 0:
		l.capacity = defaultHandlerQueue
	}
	l.resync = o.ResyncPeriod
	if l.resync == 0 {
		l.resync = opts.Process.ResyncPeriod
	}
	if l.resync > 0 {
		l.nextResync = opts.Clock.Now().Add(l.resync)
	}
	return l
}

// resyncAt is when the handler's next resync is due; false when it never
// resyncs.
func (l *listener[P]) resyncAt() (time.Time, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.nextResync, l.resync > 0
}

// markResync records whether the handler's resync is due at now (and when
// the next one is); the dispatcher then hands resync notifications only to
// the handlers marked.
func (l *listener[P]) markResync(now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.syncing = l.resync > 0 && !now.Before(l.nextResync)
	if l.syncing {
		l.nextResync = now.Add(l.resync)
	}
	return l.syncing
}

// resyncing reports whether the current resync is for this handler.
func (l *listener[P]) resyncing() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.syncing
}

// hasSynced reports whether the handler has been called for every object
// of the initial list (or of its replay).
func (l *listener[P]) hasSynced() bool { return isClosed(l.synced) }

func (l *listener[P]) push(n *notification[P]) {
	l.mu.Lock()
	if l.capacity > 0 && l.live >= l.capacity && n.key != "" {
		l.indexPendingLocked()
		if p := l.pending[n.key]; p != nil && p.merge(n) {
			if p.dead {
				delete(l.pending, n.key)
				l.live--
			}
			l.mu.Unlock()
			l.obs.emit(observe.Event{Stage: observe.StageCoalesced, Handler: l.name, Key: n.key})
			return
		}
	}
	l.q.Push(n)
	l.live++
	if l.pending != nil && n.key != "" {
		l.pending[n.key] = n
	}
	depth := l.live
	l.mu.Unlock()
	l.metrics.HandlerQueueDepth(l.name, depth)
	if depth == 1 && !l.inline {
		// Only the first entry needs a nudge: run waits on wake only
		// after pop found no live entry, and every push after that
		// finds the queue empty again. A busy handler's pushes then
		// cost no channel operation.
		select {
		case l.wake <- struct{}{}:
		default:
		}
	}
}

// indexPendingLocked builds the key → last pending notification index the
// first time the queue is full. A handler that keeps up never pays for it;
// it is dropped again when the queue drains. l.mu must be held.
func (l *listener[P]) indexPendingLocked() {
	if l.pending != nil {
		return
	}
	l.pending = make(map[string]*notification[P], l.live)
	for i := range l.q.Len() {
		if n := l.q.At(i); !n.dead && n.key != "" {
			l.pending[n.key] = n
		}
	}
}

// pop returns the next live notification, or nil when there is none.
func (l *listener[P]) pop() *notification[P] {
	n, depth := l.popDepth()
	if n != nil {
		l.metrics.HandlerQueueDepth(l.name, depth)
	}
	return n
}

// popDepth is pop under the lock, also returning the depth left behind.
func (l *listener[P]) popDepth() (*notification[P], int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.q.Len() > 0 {
		n := l.q.Pop()
		if l.q.Len() == 0 {
			l.pending = nil // drained: merging is off until the queue fills again
		}
		if n.dead {
			continue
		}
		if l.pending != nil && l.pending[n.key] == n {
			delete(l.pending, n.key)
		}
		l.live--
		return n, l.live
	}
	return nil, 0
}

// run calls the handler until ctx ends or the handler is removed.
func (l *listener[P]) run(ctx context.Context) {
	for {
		n := l.pop()
		if n == nil {
			select {
			case <-ctx.Done():
				return
			case <-l.removed:
				return
			case <-l.wake:
				continue
			}
		}
		// A stopped informer or a removed handler abandons its backlog
		// instead of draining it, as client-go does.
		select {
		case <-ctx.Done():
			return
		case <-l.removed:
			return
		default:
		}
		l.call(n)
		// The entry may share its allocation with other handlers' copies
		// (distributeLocked): drop its objects now rather than when the
		// slowest of them is done.
		*n = notification[P]{}
	}
}

// drain calls a synchronous handler for everything queued, on the calling
// goroutine, until done is closed or the handler is removed. One goroutine
// at a time holds the turn, so calls stay in order and never overlap; a
// goroutine that finds the turn taken returns at once, and the holder
// looks at the queue again after giving the turn back, so what was pushed
// meanwhile is not left waiting (as fifo's TryPop does). The same goroutine
// coming back here from inside the handler (it added a handler, say) finds
// the turn taken and returns: no deadlock, and the outer drain makes the
// calls.
func (l *listener[P]) drain(done <-chan struct{}) { l.drainTurn(done, false) }

// replay is drain for AddHandler: it waits for the turn when a processing
// goroutine holds it (delivering this very replay: it found the new
// listener), so that AddHandler returns only after the replay was
// delivered. Only this waits for a turn, and only for the listener
// AddHandler has just made, newer than every turn the waiting goroutine
// may hold (it may be inside another synchronous handler): waits cannot
// form a cycle, and each ends when the holder's calls do.
func (l *listener[P]) replay(done <-chan struct{}) { l.drainTurn(done, true) }

func (l *listener[P]) drainTurn(done <-chan struct{}, wait bool) {
	for {
		if wait {
			select {
			case l.turn <- struct{}{}:
			case <-done:
				return
			case <-l.removed:
				return
			}
			wait = false
		} else {
			select {
			case l.turn <- struct{}{}:
			default:
				return
			}
		}
		for l.open(done) {
			n := l.pop()
			if n == nil {
				break
			}
			l.call(n)
			*n = notification[P]{} // as run does
		}
		<-l.turn
		if !l.open(done) || l.empty() {
			return
		}
	}
}

// open reports whether the handler still gets calls: neither removed nor
// its informer stopping (done closed).
func (l *listener[P]) open(done <-chan struct{}) bool {
	select {
	case <-done:
		return false
	case <-l.removed:
		return false
	default:
		return true
	}
}

// empty reports whether nothing live is queued.
func (l *listener[P]) empty() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.live == 0
}

// call runs the handler for n, recovering a panic so one bad handler never
// takes the informer down.
func (l *listener[P]) call(n *notification[P]) {
	if n.kind == notifSynced {
		if !l.hasSynced() { // only run closes it, and the marker comes once
			close(l.synced)
		}
		return
	}
	// Reading the clock twice per call is a measurable share of a fast
	// handler's cost, and only metrics and traces use the times.
	var start time.Time
	if l.timed {
		start = l.clock.Now()
	}
	defer func() {
		v := recover()
		if !l.timed && v == nil {
			return // nobody times calls, and nothing went wrong
		}
		ev := observe.Event{Stage: observe.StageHandlerCalled, Handler: l.name, Op: n.op(), Key: n.key}
		if v != nil {
			ev.Err = panicked(v)
		}
		if l.timed {
			ev.Duration, ev.Lag = l.clock.Now().Sub(start), start.Sub(n.queued)
		}
		l.obs.emit(ev)
	}()
	switch n.kind {
	case notifAdd:
		if sh, ok := l.h.(SnapshotHandler[P]); n.snap && ok {
			sh.OnSnapshotAdd(n.obj)
			return
		}
		l.h.OnAdd(n.obj, n.flag)
	case notifUpdate:
		l.h.OnUpdate(n.old, n.obj)
	case notifDelete:
		l.h.OnDelete(n.obj, n.flag)
	case notifSynced:
	}
}

func (n *notification[P]) op() observe.Op {
	switch n.kind {
	case notifAdd:
		return observe.OpAdd
	case notifUpdate:
		if n.flag {
			return observe.OpSync
		}
		return observe.OpUpdate
	case notifDelete:
		if n.flag {
			return observe.OpTombstone // finalStateUnknown: the relist found it gone
		}
		return observe.OpDelete
	case notifSynced:
	}
	return 0
}

func (l *listener[P]) stop() { l.once.Do(func() { close(l.removed) }) }
