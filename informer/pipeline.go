package informer

import (
	"context"
	"errors"
	"sync"

	"github.com/zerokube/zerokube/cache"
	"github.com/zerokube/zerokube/fifo"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
)

// pipeline is an informer's data path, built in one place (newPipeline)
// and run in one place (run). An object passes through, in this order:
//
//	ListerWatcher ─▶ shard filter ─▶ audit repair ─▶ reflector ─▶ consistent point ─▶ queue ─▶ dispatcher ─▶ cache
//	                 (Options.Shard)  (Audit.Repair)               (Snapshot, Audit)                     └─▶ listeners ─▶ handlers
//
// newPipeline builds the stages from the end of the path to its start, so
// each is given the stages it hands to, and the record, when it is built;
// nothing is patched in afterwards (but the audit's metadata lister, which
// New hands over: auditVia). The shard filter, the audit's repair stage
// and the consistent point are there only with their option. Beside the
// path, the snapshot writer and the audit read the cache at the consistent
// point. Beside the path, the record (record.go)
// is the one account of failures, contact and progress that the reflector
// and the dispatcher write and Health, SyncError, WaitForSync and the
// backoff read.
type pipeline[T any, P meta.PtrObject[T]] struct {
	opts  Options[P]
	rec   *record
	store *cache.Store[P]
	queue fifo.Queue[P]
	snap  *snapshotter[T, P] // the snapshot gate and its writer; nil without Options.Snapshot
	disp  *dispatcher[P]
	shard *shardLW[P] // nil without Options.Shard
	audit *audit[P]   // the cache audit; nil without Options.Audit
	refl  *reflector[P]
}

// newPipeline builds the stages over lw. opts have their defaults.
func newPipeline[T any, P meta.PtrObject[T]](lw ListerWatcher[P], opts Options[P]) *pipeline[T, P] {
	p := &pipeline[T, P]{opts: opts, rec: newRecord(opts.Backoff.withDefaults().ResetAfter)}
	p.store = cache.New(func(o P) string { return meta.Key(o) }, indexers(opts))
	p.queue = newQueue(opts.Process.DeltaFIFO, p.store)
	unsharded := lw
	if opts.Shard != nil {
		p.shard = newShardLW(lw, opts.Shard)
		lw = p.shard
	}
	var repair *repairLW[P]
	if opts.Audit.enabled() && opts.Audit.Repair {
		repair = newRepairLW(lw)
		lw = repair
	}
	var sink sink[P] = p.queue
	var popped func() // the consistent point's wake-up after each pop
	if opts.Snapshot.enabled() || opts.Audit.enabled() {
		c := newConsistentPoint(p.store, p.queue, p.rec, p.shard.listedSelector, opts.Clock)
		sink, popped = gatedQueue[P]{q: p.queue, c: c}, c.afterPop
		if opts.Snapshot.enabled() {
			p.snap = newSnapshotter[T](opts, c)
			lw = p.snap.verified(lw, unsharded) // the resume's checks (snapshot_verify.go)
		}
		if opts.Audit.enabled() {
			p.audit = newAudit(opts, c, unsharded, repair, p.rec)
		}
	}
	p.disp = newDispatcher(opts, p.store, p.queue, p.rec, popped)
	cfg := defaultReflectorConfig(opts)
	cfg.metadata = asksMetadata[T](opts)
	p.refl = newReflector(lw, p.disp.sink(sink), p.rec, p.disp.checkSynced, cfg)
	return p
}

// indexers are the cache's indexes: the namespace index and opts'.
func indexers[P meta.Object](opts Options[P]) cache.Indexers[P] {
	ix := cache.Indexers[P]{cache.NamespaceIndex: cache.NamespaceIndexFunc(func(p P) string {
		return p.GetNamespace()
	})}
	for name, fn := range opts.Indexers {
		ix[name] = fn
	}
	return ix
}

// run starts the stages, runs the reflector until ctx ends or fail-fast
// stops it, then stops every goroutine it started and writes the snapshot
// of a clean stop.
func (p *pipeline[T, P]) run(ctx context.Context) error {
	p.rec.started.Store(p.opts.Clock.Now().UnixNano())
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	first := p.refl.initialState()
	if p.snap != nil {
		first = p.resume(ctx, first)
		wg.Add(1)
		go func() { defer wg.Done(); p.snap.run(ctx) }()
	}
	p.disp.start(ctx, &wg)
	if p.audit != nil {
		wg.Add(1)
		go func() { defer wg.Done(); p.audit.run(ctx) }()
	}
	err := p.refl.run(ctx, first)
	cancel()
	p.disp.stop()
	p.queue.Close()
	wg.Wait()
	if p.snap != nil {
		p.snap.final(ctx)
	}
	return err
}

// resume loads the saved snapshot, if there is a sound one of what this
// informer caches, into the cache and returns the reflector's first state:
// a watch from the snapshot's resourceVersion, or a relist from it when
// the snapshot lacks objects a list skipped (SkipUndecodable), which a
// watch would never bring. Without one it returns first. The snapshot's
// batch is applied here, alone, before the reflector and the processing
// loop start: no later delta can join it and pass for a snapshot object.
// The resume's WATCH may have been sent already, to offer the snapshot's
// TLS session (snapshot_verify.go); it is the reflector's first watch
// when the session vouched for the snapshot, and dropped unread if not.
func (p *pipeline[T, P]) resume(ctx context.Context, first state) state {
	sel, gen := p.shard.current()
	// A watch from the snapshot (the resume's, which load may send)
	// continues the list of sel; undone if no snapshot is used.
	p.shard.resumed(sel, gen)
	var pre *preopened[P]
	open := func(rv string) (answered bool) {
		pre = p.refl.openResume(ctx, rv)
		var se *meta.StatusError
		return pre.err == nil || errors.As(pre.err, &se)
	}
	l, ok := p.snap.load(ctx, sel, open)
	if !ok || !l.watched {
		pre.drop()
		pre = nil
	}
	if !ok {
		p.shard.forgetResumed()
		return first
	}
	if err := p.queue.Replace(l.items, l.rv); err != nil {
		p.opts.Observe.Logger.Error("informer: queueing the snapshot", "informer", p.opts.Name, "err", err)
		pre.drop()
		p.shard.forgetResumed()
		return first
	}
	p.refl.setRV(l.rv) // before the apply: the synced it may trace says this rv
	p.disp.applySnapshot()
	if l.skipped > 0 {
		p.opts.Observe.Logger.Info("informer: the snapshot lacks objects a list skipped; listing again",
			"informer", p.opts.Name, "skipped", l.skipped)
		return p.refl.relist(l.rv, observe.CauseSnapshotIncomplete)
	}
	return p.refl.resumeAt(l.rv, pre)
}
