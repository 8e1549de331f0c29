package informer

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/zerokube/zerokube/cache"
	"github.com/zerokube/zerokube/fifo"
	"github.com/zerokube/zerokube/meta"
)

// ErrAlreadyStarted is returned by a second Run.
var ErrAlreadyStarted = errors.New("informer: Run called twice")

// ErrStopped is returned by WaitForSync when Run ended before the sync.
var ErrStopped = errors.New("informer: stopped before it synced")

// Informer keeps an indexed cache of one resource in step with the server
// and notifies any number of handlers. Create it with [New] or
// [NewForResource], add handlers, then Run. All methods are safe for
// concurrent use.
type Informer[T any, P meta.PtrObject[T]] struct {
	opts  Options[P]
	store *cache.Store[P]
	queue fifo.Queue[P]
	refl  *reflector[P]
	disp  *dispatcher[P]     // the processing stage: cache writes, handlers, resync, sync
	snap  *snapshotter[T, P] // nil without Options.Snapshot

	failure  atomic.Pointer[SyncError] // the last failure before the sync
	fatal    chan struct{}             // closed when fail-fast stopped Run
	fatalErr error                     // set before fatal is closed
	done     chan struct{}             // closed when Run returns
	setupErr error                     // CheckType's verdict on T, or invalid options: Run refuses to start with it
	started  atomic.Bool
}

// New returns an informer over lw. It does nothing until Run.
func New[T any, P meta.PtrObject[T]](lw ListerWatcher[P], opts Options[P]) *Informer[T, P] {
	opts = opts.withDefaults()
	indexers := cache.Indexers[P]{cache.NamespaceIndex: cache.NamespaceIndexFunc(func(p P) string {
		return p.GetNamespace()
	})}
	for name, fn := range opts.Indexers {
		indexers[name] = fn
	}
	key := func(p P) string { return meta.Key(p) }
	i := &Informer[T, P]{
		opts: opts, store: cache.New(key, indexers),
		fatal: make(chan struct{}), done: make(chan struct{}),
	}
	i.queue = newQueue(opts.Queue, i.store)
	i.disp = newDispatcher(opts, i.store, i.queue)
	if opts.Shard != nil {
		lw = newShardLW(lw, opts.Shard)
	}
	cfg := defaultReflectorConfig(opts)
	cfg.onListed = i.disp.checkSynced
	cfg.onFailure = i.syncFailed
	var q sink[P] = i.queue
	if opts.Snapshot.enabled() {
		i.snap = newSnapshotter[T](opts, i.store, i.queue)
		q = gatedQueue[T, P]{q: i.queue, s: i.snap}
		i.disp.afterPop = i.snap.afterPop
	}
	i.refl = newReflector(lw, i.disp.sink(q), cfg)
	i.disp.lastRV = i.refl.lastSyncResourceVersion
	if i.setupErr = CheckType[T, P](); i.setupErr != nil {
		opts.Logger.Error("informer: unusable object type", "informer", opts.Name, "err", i.setupErr)
	} else if opts.Queue > QueueDeltaFIFO {
		// Caught here, not papered over with the default queue: a typo'd
		// QueueKind would otherwise run with a queue the user did not pick.
		i.setupErr = fmt.Errorf("informer %q: Options.Queue is %d, not a QueueKind (QueueInOrder or QueueDeltaFIFO)", opts.Name, opts.Queue)
		opts.Logger.Error("informer: invalid options", "informer", opts.Name, "err", i.setupErr)
	}
	return i
}

// Run syncs and keeps syncing until ctx ends, then stops every goroutine it
// started and returns nil; with Options.FailFast it returns the *SyncError
// that stopped it. Run may be called once.
func (i *Informer[T, P]) Run(ctx context.Context) error {
	if !i.started.CompareAndSwap(false, true) {
		return ErrAlreadyStarted
	}
	defer close(i.done)
	if i.setupErr != nil {
		i.fatalErr = i.setupErr
		close(i.fatal)
		return i.setupErr
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	i.startSnapshots(ctx, &wg)
	i.disp.start(ctx, &wg)
	err := i.refl.run(ctx)
	if err != nil {
		i.fatalErr = err
		close(i.fatal)
	}
	cancel()
	i.disp.stop()
	i.queue.Close()
	wg.Wait()
	if i.snap != nil {
		i.snap.final(ctx)
	}
	return err
}

// AddHandler registers h. Objects already cached are replayed to it as
// adds (isInInitialList true), so a late handler starts from the same state
// as the others. Handlers may be added before or during Run.
func (i *Informer[T, P]) AddHandler(h Handler[P], opts HandlerOptions) (*Registration, error) {
	l, err := i.disp.add(h, opts)
	if err != nil {
		return nil, err
	}
	return &Registration{name: l.name, synced: l.synced, removed: l.removed, stopped: i.done,
		remove: func() { i.disp.remove(l) }}, nil
}

// AddIndexers adds indexes to the cache. Unlike client-go's, which refuses
// once the informer has started, it may be called at any time: the cached
// objects are indexed before the new indexes become visible, and every
// later write keeps them. A name already in use is an error wrapping
// cache.ErrIndexExists, and then nothing is added.
func (i *Informer[T, P]) AddIndexers(indexers cache.Indexers[P]) error {
	if err := i.store.AddIndexers(indexers); err != nil {
		return fmt.Errorf("informer %s: %w", i.opts.Name, err)
	}
	return nil
}

// HasSynced reports whether the initial list has been applied to the cache.
func (i *Informer[T, P]) HasSynced() bool { return i.disp.hasSynced() }

// WaitForSync blocks until the initial list is in the cache (nil), or ctx
// ends: then the error wraps context.Cause(ctx) and, when there was one,
// the *SyncError saying why the sync has not completed (errors.As finds it).
// With FailFast it returns the SyncError as soon as Run stops on it.
func (i *Informer[T, P]) WaitForSync(ctx context.Context) error {
	select {
	case <-i.disp.synced:
		return nil
	case <-i.fatal:
		return fmt.Errorf("informer %s: %w", i.opts.Name, i.fatalErr)
	case <-i.done:
		// fatal is closed before done: when both are, say why.
		select {
		case <-i.fatal:
			return fmt.Errorf("informer %s: %w", i.opts.Name, i.fatalErr)
		default:
		}
		if i.HasSynced() {
			return nil
		}
		return fmt.Errorf("informer %s: %w", i.opts.Name, ErrStopped)
	case <-ctx.Done():
		if f := i.failure.Load(); f != nil {
			return fmt.Errorf("informer %s: not synced: %w: %w", i.opts.Name, context.Cause(ctx), f)
		}
		return fmt.Errorf("informer %s: not synced: %w", i.opts.Name, context.Cause(ctx))
	}
}

// SyncError returns why the initial sync is failing, nil once synced or
// before any failure.
func (i *Informer[T, P]) SyncError() *SyncError {
	if i.HasSynced() {
		return nil
	}
	return i.failure.Load()
}

// LastSyncResourceVersion is the resourceVersion of the last list, event or
// bookmark the reflector queued.
func (i *Informer[T, P]) LastSyncResourceVersion() string { return i.refl.lastSyncResourceVersion() }

// Undecodable lists the objects the last complete list skipped because
// their JSON does not fit the type (Options.SkipUndecodable); empty
// without that option.
func (i *Informer[T, P]) Undecodable() []UndecodableObject { return i.refl.undecodable() }

// Lister returns a typed read-only view of the cache.
func (i *Informer[T, P]) Lister() Lister[P] { return Lister[P]{r: i.store} }

// Store returns the cache for direct reads (indexes, keys).
func (i *Informer[T, P]) Store() cache.Reader[P] { return i.store }

func (i *Informer[T, P]) syncFailed(e *SyncError) {
	i.failure.Store(e)
}
