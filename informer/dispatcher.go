package informer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zerokube/zerokube/cache"
	"github.com/zerokube/zerokube/fifo"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
)

// dispatcher owns the processing loop, the whole step between the delta
// queue and the handlers: it pops deltas, applies them to the cache, fans a
// notification out to every handler's queue, runs resyncs, and records the
// sync. Its mutex is held for each of those steps, so each is atomic for
// the others: a handler added at any time is replayed the cache as of one
// moment and then hears of every later change exactly once (invariant 10),
// and the sync marker lands in every handler's queue behind the initial
// list. It is the cache's only writer.
//
// By default the stage runs on a goroutine of its own waiting in Pop
// (processLoop). With Options.Process.InlineProcessing it runs on the goroutine
// that wrote the deltas instead (the reflector, the resync loop, Run for a
// snapshot): written pops with TryPop until the queue is empty, a
// goroutine wake-up less per event. Either way the queue's turn serializes
// the pops, and synchronous handlers are called by the goroutine that
// processed, after the fact, outside mu.
type dispatcher[P meta.Object] struct {
	opts  Options[P]
	obs   observers
	store cache.Writer[P]
	read  cache.Reader[P]
	queue fifo.Queue[P]
	rec   *record // what was applied when, the sync; the resourceVersion for the synced trace
	// afterPop runs after each Pop: the snapshot writer's wake-up (a
	// no-op without snapshots).
	afterPop func()
	loop     bool // not Options.Process.InlineProcessing: pop on a goroutine of its own
	// processFn is process as a func value, made once: a method value
	// passed to the queue escapes, an allocation per pop otherwise.
	processFn func([]fifo.Delta[P], bool) error
	changed   chan struct{} // cap 1: the set of handlers (and resync periods) changed
	synced    chan struct{} // closed, under mu, once the initial list is in the cache

	mu        sync.Mutex // guards the fields below and every write to the cache
	listeners []*listener[P]
	// inline are the synchronous handlers' listeners, a copy replaced
	// (never modified) when one is added or removed, so it can be called
	// outside mu.
	inline  []*listener[P]
	count   int // handlers ever added, for default names
	ctx     context.Context
	wg      *sync.WaitGroup
	stopped bool

	// snapshotting: applySnapshot is applying, so a sync now is the
	// snapshot's (the synced trace says observe.OpSnapshot), not a list's.
	snapshotting bool
}

// newQueue builds the delta queue (a DeltaFIFO when deltaFIFO, else an
// InOrder) for a dispatcher over store. Either
// kind hands over each relist as one batch of its own (WholeRelists), which
// process relies on to swap the cache to a relist in one step.
func newQueue[P meta.Object](deltaFIFO bool, store *cache.Store[P]) fifo.Queue[P] {
	key := func(p P) string { return meta.Key(p) }
	if deltaFIFO {
		return fifo.NewDelta(fifo.DeltaOptions[P]{Key: key, KnownObjects: store, WholeRelists: true})
	}
	return fifo.NewInOrder(fifo.InOrderOptions[P]{Key: key, KnownObjects: store, WholeRelists: true})
}

// newDispatcher returns the processing loop between q, built by newQueue,
// and store, recording into rec, calling afterPop (nil: nothing) after
// each pop.
func newDispatcher[P meta.Object](opts Options[P], store *cache.Store[P], q fifo.Queue[P], rec *record, afterPop func()) *dispatcher[P] {
	if afterPop == nil {
		afterPop = func() {}
	}
	d := &dispatcher[P]{opts: opts, obs: observersOf(opts), store: store, read: store, queue: q, rec: rec, afterPop: afterPop,
		loop: !opts.Process.InlineProcessing, changed: make(chan struct{}, 1), synced: make(chan struct{})}
	d.processFn = d.process
	return d
}

// sink is the queue as the reflector writes into it: with InlineProcessing
// each write is processed before it returns (see written).
func (d *dispatcher[P]) sink(q sink[P]) sink[P] {
	if d.loop {
		return q
	}
	return processingSink[P]{sink: q, written: d.written}
}

// processingSink follows every successful write with processing what is
// queued, on the writer's goroutine.
type processingSink[P any] struct {
	sink[P]
	written func()
}

func (s processingSink[P]) Add(obj P) error    { return s.then(s.sink.Add(obj)) }
func (s processingSink[P]) Update(obj P) error { return s.then(s.sink.Update(obj)) }
func (s processingSink[P]) Delete(obj P) error { return s.then(s.sink.Delete(obj)) }

func (s processingSink[P]) Replace(list []P, rv string) error {
	return s.then(s.sink.Replace(list, rv))
}

func (s processingSink[P]) then(err error) error {
	if err == nil {
		s.written()
	}
	return err
}

// Bookmark passes a bookmark on to a sink that records them (snapshots).
func (s processingSink[P]) Bookmark(rv string) {
	if b, ok := s.sink.(bookmarker); ok {
		b.Bookmark(rv)
	}
}

// start launches the processing and resync loops and the goroutines of the
// handlers added so far; all end with ctx and are counted in wg.
func (d *dispatcher[P]) start(ctx context.Context, wg *sync.WaitGroup) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.ctx, d.wg = ctx, wg
	for _, l := range d.listeners {
		d.goLocked(l)
	}
	if d.loop {
		wg.Add(1)
		go func() { defer wg.Done(); d.processLoop(ctx) }()
	}
	wg.Add(1)
	go func() { defer wg.Done(); d.resyncLoop(ctx) }()
}

// goLocked starts l's goroutine; a synchronous handler has none. d.mu held.
func (d *dispatcher[P]) goLocked(l *listener[P]) {
	if l.inline {
		return
	}
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		l.run(d.ctx)
	}()
}

// stop refuses new handlers; their goroutines end with Run's context.
func (d *dispatcher[P]) stop() {
	d.mu.Lock()
	d.stopped = true
	d.mu.Unlock()
}

// hasSynced reports whether the initial list is in the cache.
func (d *dispatcher[P]) hasSynced() bool { return isClosed(d.synced) }

// isClosed reports whether ch is closed, without waiting.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// processLoop pops deltas and processes them until the queue closes or ctx
// ends.
func (d *dispatcher[P]) processLoop(ctx context.Context) {
	for {
		err := d.queue.Pop(ctx, d.processFn)
		switch {
		case err == nil:
		case errors.Is(err, fifo.ErrClosed), ctx.Err() != nil:
			return
		default:
			d.opts.Observe.Logger.Error("informer: processing deltas", "informer", d.opts.Name, "err", err)
		}
		d.popped()
	}
}

// written processes what the queue holds on the calling goroutine, the one
// that just wrote to it, unless a processing loop does. A pop another
// goroutine is processing makes TryPop return false at once: that
// goroutine then takes what was written here (fifo's TryPop hand-off), so
// nothing waits for the next write.
func (d *dispatcher[P]) written() {
	if d.loop {
		return
	}
	for {
		popped, err := d.queue.TryPop(d.processFn)
		switch {
		case err == nil:
		case errors.Is(err, fifo.ErrClosed):
			return
		default:
			d.opts.Observe.Logger.Error("informer: processing deltas", "informer", d.opts.Name, "err", err)
		}
		if !popped {
			return
		}
		d.popped()
	}
}

// popped follows every pop, on the goroutine that processed it: the sync
// check, the queue depth, the snapshotter's wake-up, then the synchronous
// handlers.
func (d *dispatcher[P]) popped() {
	d.checkSynced()
	d.opts.Observe.Metrics.QueueDepth(d.queue.Len())
	d.afterPop()
	d.callInline()
}

// callInline runs the synchronous handlers' pending calls on this
// goroutine, outside mu, so a handler may add or remove handlers.
func (d *dispatcher[P]) callInline() {
	d.mu.Lock()
	ls, ctx := d.inline, d.ctx
	d.mu.Unlock()
	var done <-chan struct{}
	if ctx != nil {
		done = ctx.Done()
	}
	for _, l := range ls {
		l.drain(done)
	}
}

// process applies one popped batch. A batch holding a relist (the queue
// hands one over whole, see newQueue) swaps the cache in one step; any
// other batch is applied delta by delta. Handlers hear of each change after
// the cache holds it (invariant 8).
func (d *dispatcher[P]) process(deltas []fifo.Delta[P], isInInitialList bool) error {
	return d.apply(deltas, isInInitialList, false)
}

// applySnapshot applies the snapshot just queued, on the calling goroutine,
// before the processing loop and the reflector start: the queue then
// holds that one batch, and nothing can join it. Its adds are marked for
// SnapshotHandler. An empty snapshot syncs at once.
func (d *dispatcher[P]) applySnapshot() {
	fromSnapshot := func(deltas []fifo.Delta[P], initial bool) error { return d.apply(deltas, initial, true) }
	d.setSnapshotting(true)
	defer d.setSnapshotting(false)
	for {
		popped, err := d.queue.TryPop(fromSnapshot)
		if err != nil {
			d.opts.Observe.Logger.Error("informer: applying the snapshot", "informer", d.opts.Name, "err", err)
		}
		if !popped {
			break
		}
		d.popped()
	}
	d.checkSynced()
}

func (d *dispatcher[P]) setSnapshotting(on bool) {
	d.mu.Lock()
	d.snapshotting = on
	d.mu.Unlock()
}

// apply is process; fromSnapshot says the batch is a snapshot's.
func (d *dispatcher[P]) apply(deltas []fifo.Delta[P], isInInitialList, fromSnapshot bool) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.opts.Clock.Now()
	defer d.rec.lastApplied.Store(now.UnixNano())
	if isRelist(deltas) {
		d.applyRelistLocked(deltas, isInInitialList, fromSnapshot, now)
		return nil
	}
	for _, dl := range deltas {
		key := meta.Key(dl.Object)
		old, had := d.read.GetByKey(key)
		c := classifyDelta(dl, key, old, had, isInInitialList, fromSnapshot, now)
		if dl.Type == fifo.Deleted {
			d.store.DeleteKey(key)
		} else {
			d.store.Update(dl.Object)
		}
		d.traceStored(c)
		d.distributeLocked(c.n, c.isSync)
	}
	return nil
}

// checkSynced records the sync once the queue says everything of the first
// list has been processed: the one place "synced" is decided. Called after
// every pop and after every list (an empty first list syncs without a pop).
func (d *dispatcher[P]) checkSynced() {
	if d.hasSynced() || !d.queue.HasSynced() {
		return
	}
	if d.markSynced() {
		d.callInline() // the marker, for a synchronous handler's HasSynced
	}
}

// markSynced closes synced and queues the marker behind the initial list
// for every handler; false when another goroutine did it first.
func (d *dispatcher[P]) markSynced() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.hasSynced() {
		return false
	}
	now := d.opts.Clock.Now()
	for _, l := range d.listeners {
		l.push(&notification[P]{kind: notifSynced, queued: now})
	}
	close(d.synced)
	d.rec.markSynced()
	ev := observe.Event{Stage: observe.StageSynced, Items: d.read.Len(), ResourceVersion: d.rec.resourceVersion()}
	if d.snapshotting {
		ev.Op = observe.OpSnapshot
	}
	d.obs.emit(ev)
	return true
}

// add registers a handler and replays the cached objects to it as adds,
// then the sync marker if the informer has synced. A synchronous handler
// has had its replay when add returns: on the caller's goroutine, or on a
// processing goroutine that found it first (add waits for that one).
func (d *dispatcher[P]) add(h Handler[P], o HandlerOptions) (*listener[P], error) {
	l, done, err := d.addLocked(h, o)
	if err == nil && l.inline {
		l.replay(done)
	}
	return l, err
}

// addLocked is add's part under mu; done is Run's context's, nil before
// Run.
func (d *dispatcher[P]) addLocked(h Handler[P], o HandlerOptions) (*listener[P], <-chan struct{}, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stopped {
		return nil, nil, fmt.Errorf("informer %s: AddHandler after the informer stopped", d.opts.Name)
	}
	d.count++
	if o.Name == "" {
		o.Name = fmt.Sprintf("handler-%d", d.count)
	}
	l := newListener(h, o, d.opts)
	now := d.opts.Clock.Now()
	for _, obj := range d.read.List() {
		l.push(&notification[P]{kind: notifAdd, key: meta.Key(obj), obj: obj, flag: true, queued: now})
	}
	if d.hasSynced() {
		l.push(&notification[P]{kind: notifSynced, queued: now})
	}
	d.listeners = append(d.listeners, l)
	if l.inline {
		d.inline = append(slices.Clip(d.inline), l)
	}
	var done <-chan struct{}
	if d.ctx != nil {
		d.goLocked(l)
		done = d.ctx.Done()
	}
	d.signalChanged()
	return l, done, nil
}

func (d *dispatcher[P]) remove(l *listener[P]) {
	d.mu.Lock()
	d.listeners = slices.DeleteFunc(d.listeners, func(x *listener[P]) bool { return x == l })
	if l.inline {
		// A new slice: callInline may be ranging over the old one.
		d.inline = slices.DeleteFunc(slices.Clone(d.inline), func(x *listener[P]) bool { return x == l })
	}
	d.mu.Unlock()
	l.stop()
	d.signalChanged()
}

func (d *dispatcher[P]) signalChanged() {
	select {
	case d.changed <- struct{}{}:
	default:
	}
}

// distributeLocked queues n for every handler; a sync notification (resync,
// or a relist that found an object unchanged) only for the handlers whose
// resync is due. d.mu must be held.
func (d *dispatcher[P]) distributeLocked(n notification[P], isSync bool) {
	takers := 0
	for _, l := range d.listeners {
		if !isSync || l.resyncing() {
			takers++
		}
	}
	if takers == 0 {
		return // a sync nobody is due for costs nothing
	}
	// One allocation for every handler's copy rather than one each: each
	// listener owns its element, and run clears it after the call, so
	// the array keeps only a few dozen bytes per handler alive until the
	// slowest handler gets to it.
	cs := make([]notification[P], 0, takers)
	for _, l := range d.listeners {
		if isSync && !l.resyncing() {
			continue
		}
		cs = append(cs, n)
		l.push(&cs[len(cs)-1])
	}
}

// resyncLoop asks the queue for a resync whenever a handler's period is due.
func (d *dispatcher[P]) resyncLoop(ctx context.Context) {
	for d.resyncWait(ctx) {
	}
}

// resyncWait waits for the next resync tick (or a change of handlers) and
// resyncs when due; false when the loop should end.
func (d *dispatcher[P]) resyncWait(ctx context.Context) bool {
	var tick <-chan time.Time
	if at := d.nextResync(); !at.IsZero() {
		t := d.opts.Clock.NewTimer(max(at.Sub(d.opts.Clock.Now()), 0))
		defer t.Stop()
		tick = t.C()
	}
	select {
	case <-ctx.Done():
		return false
	case <-d.changed:
	case <-tick:
		if due := d.resyncDue(d.opts.Clock.Now()); len(due) > 0 {
			d.obs.emit(observe.Event{Stage: observe.StageResync, Handler: due, Items: d.read.Len()})
			if d.queue.Resync() != nil {
				return false
			}
			d.written()
		}
	}
	return true
}

// nextResync is when the earliest handler resync is due; zero when no
// handler resyncs. It is a point in time, not a period: adding or removing
// a handler must not restart anyone's countdown, or frequent changes would
// postpone every resync.
func (d *dispatcher[P]) nextResync() time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	var next time.Time
	for _, l := range d.listeners {
		if at, ok := l.resyncAt(); ok && (next.IsZero() || at.Before(next)) {
			next = at
		}
	}
	return next
}

// resyncDue marks the handlers whose resync is due at now and returns their
// names, comma-separated ("" when none is).
func (d *dispatcher[P]) resyncDue(now time.Time) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var names []string
	for _, l := range d.listeners {
		if l.markResync(now) {
			names = append(names, l.name)
		}
	}
	return strings.Join(names, ",")
}
