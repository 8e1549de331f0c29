package informer

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/zerokube/zerokube/meta"
)

// processor fans notifications out to the handlers. Its mutex is held by the
// processing loop while it applies a batch to the store and distributes it,
// and by AddHandler while it replays the store to a new handler, so a new
// handler sees every object exactly once: in the replay or afterwards.
type processor[P meta.Object] struct {
	opts    Options[P]
	changed chan struct{} // cap 1: the set of handlers (and resync periods) changed

	mu        sync.Mutex // guards the fields below and each listener's resync fields
	listeners []*listener[P]
	count     int // handlers ever added, for default names
	ctx       context.Context
	wg        *sync.WaitGroup
	stopped   bool
	synced    bool
}

func newProcessor[P meta.Object](opts Options[P]) *processor[P] {
	return &processor[P]{opts: opts, changed: make(chan struct{}, 1)}
}

// start launches the goroutines of the handlers added before Run.
func (p *processor[P]) start(ctx context.Context, wg *sync.WaitGroup) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ctx, p.wg = ctx, wg
	for _, l := range p.listeners {
		p.goLocked(l)
	}
}

func (p *processor[P]) goLocked(l *listener[P]) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		l.run(p.ctx)
	}()
}

// stop refuses new handlers; their goroutines end with Run's context.
func (p *processor[P]) stop() {
	p.mu.Lock()
	p.stopped = true
	p.mu.Unlock()
}

func (p *processor[P]) newListener(h Handler[P], o HandlerOptions) *listener[P] {
	p.count++
	if o.Name == "" {
		o.Name = fmt.Sprintf("handler-%d", p.count)
	}
	l := &listener[P]{
		name: o.Name, h: h, capacity: o.QueueCapacity, metrics: p.opts.Metrics, log: p.opts.Logger,
		clock: p.opts.Clock, trace: p.opts.Trace, removed: make(chan struct{}), wake: make(chan struct{}, 1),
	}
	l.timed = l.trace != nil || !isNop(l.metrics)
	switch {
	case o.Unbounded:
		l.capacity = 0
	case o.QueueCapacity <= 0:
		l.capacity = DefaultHandlerQueue
	}
	l.resync = o.ResyncPeriod
	if l.resync == 0 {
		l.resync = p.opts.ResyncPeriod
	}
	if l.resync > 0 {
		l.nextResync = p.opts.Clock.Now().Add(l.resync)
	}
	return l
}

// add registers a handler and replays current objects to it as adds.
func (p *processor[P]) add(h Handler[P], o HandlerOptions, current func() []P) (*listener[P], error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return nil, fmt.Errorf("informer %s: AddHandler after the informer stopped", p.opts.Name)
	}
	l := p.newListener(h, o)
	now := p.opts.Clock.Now()
	for _, obj := range current() {
		l.push(&notification[P]{kind: notifAdd, key: meta.Key(obj), obj: obj, flag: true, queued: now})
	}
	if p.synced {
		l.push(&notification[P]{kind: notifSynced, queued: now})
	}
	p.listeners = append(p.listeners, l)
	if p.ctx != nil {
		p.goLocked(l)
	}
	p.signalChanged()
	return l, nil
}

func (p *processor[P]) remove(l *listener[P]) {
	p.mu.Lock()
	p.listeners = slices.DeleteFunc(p.listeners, func(x *listener[P]) bool { return x == l })
	p.mu.Unlock()
	l.stop()
	p.signalChanged()
}

func (p *processor[P]) signalChanged() {
	select {
	case p.changed <- struct{}{}:
	default:
	}
}

// distributeLocked queues n for every handler; a sync notification (resync,
// or a relist that found an object unchanged) only for the handlers whose
// resync is due. p.mu must be held.
func (p *processor[P]) distributeLocked(n notification[P], isSync bool) {
	takers := 0
	for _, l := range p.listeners {
		if !isSync || l.syncing {
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
	for _, l := range p.listeners {
		if isSync && !l.syncing {
			continue
		}
		cs = append(cs, n)
		l.push(&cs[len(cs)-1])
	}
}

// markSyncedLocked queues the synced marker behind the initial list.
func (p *processor[P]) markSyncedLocked(now time.Time) {
	p.synced = true
	for _, l := range p.listeners {
		l.push(&notification[P]{kind: notifSynced, queued: now})
	}
}

// minResync is the shortest handler resync period, 0 when none resyncs.
func (p *processor[P]) minResync() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	var m time.Duration
	for _, l := range p.listeners {
		if l.resync > 0 && (m == 0 || l.resync < m) {
			m = l.resync
		}
	}
	return m
}

// resyncDue marks the handlers whose resync is due at now and reports
// whether any is.
func (p *processor[P]) resyncDue(now time.Time) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	any := false
	for _, l := range p.listeners {
		l.syncing = l.resync > 0 && !now.Before(l.nextResync)
		if l.syncing {
			l.nextResync = now.Add(l.resync)
			any = true
		}
	}
	return any
}
