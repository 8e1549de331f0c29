package informer

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/cache"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
)

// ErrAlreadyStarted is returned by a second Run.
var ErrAlreadyStarted = errors.New("informer: Run called twice")

// ErrStopped is returned by WaitForSync when Run ended before the sync.
var ErrStopped = errors.New("informer: stopped before it synced")

// Informer keeps an indexed cache of one resource in step with the server
// and notifies any number of handlers. Create it with [New] (or get a
// shared one from a [Factory]), add handlers, then Run. All methods are safe for
// concurrent use.
type Informer[T any, P meta.PtrObject[T]] struct {
	opts Options[P]
	p    *pipeline[T, P] // the data path, built by newPipeline (pipeline.go)

	fatal    chan struct{} // closed when fail-fast stopped Run
	fatalErr error         // set before fatal is closed
	done     chan struct{} // closed when Run returns
	setupErr error         // checkType's verdict on T, or invalid options: Run refuses to start with it
	started  atomic.Bool
	ref      apiclient.Ref // what New was given (see Ref)
}

// newInformer returns an informer over lw: New's, or a test's own.
func newInformer[T any, P meta.PtrObject[T]](lw ListerWatcher[P], opts Options[P]) *Informer[T, P] {
	opts = opts.withDefaults()
	i := &Informer[T, P]{opts: opts, p: newPipeline[T](lw, opts),
		fatal: make(chan struct{}), done: make(chan struct{})}
	if i.setupErr = checkType[T, P](); i.setupErr != nil {
		opts.Observe.Logger.Error("informer: unusable object type", "informer", opts.Name, "err", i.setupErr)
	}
	return i
}

// Run syncs and keeps syncing until ctx ends, then stops every goroutine it
// started and returns nil; with Options.Sync.FailFast it returns the *SyncError
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
	err := i.p.run(ctx)
	if err != nil {
		i.fatalErr = err
		close(i.fatal)
	}
	return err
}

// AddHandler registers h. Objects already cached are replayed to it as
// adds (isInInitialList true), so a late handler starts from the same state
// as the others. Handlers may be added before or during Run.
func (i *Informer[T, P]) AddHandler(h Handler[P], opts HandlerOptions) (*Registration, error) {
	l, err := i.p.disp.add(h, opts)
	if err != nil {
		return nil, err
	}
	return &Registration{name: l.name, synced: l.synced, removed: l.removed, stopped: i.done,
		remove: func() { i.p.disp.remove(l) }}, nil
}

// AddIndexers adds indexes to the cache. Unlike client-go's, which refuses
// once the informer has started, it may be called at any time: the cached
// objects are indexed before the new indexes become visible, and every
// later write keeps them. A name already in use is an error wrapping
// cache.ErrIndexExists, and then nothing is added.
func (i *Informer[T, P]) AddIndexers(indexers cache.Indexers[P]) error {
	if err := i.p.store.AddIndexers(indexers); err != nil {
		return fmt.Errorf("informer %s: %w", i.opts.Name, err)
	}
	return nil
}

// HasSynced reports whether the initial list has been applied to the cache.
func (i *Informer[T, P]) HasSynced() bool { return i.p.disp.hasSynced() }

// WaitForSync blocks until the initial list is in the cache (nil), or ctx
// ends: then the error wraps context.Cause(ctx) and, when there was one,
// the *SyncError saying why the sync has not completed (errors.As finds it).
// With FailFast it returns the SyncError as soon as Run stops on it.
func (i *Informer[T, P]) WaitForSync(ctx context.Context) error {
	if i.HasSynced() {
		// Before the select, which picks at random among ready cases: an
		// informer synced from a snapshot that then stopped on a FailFast
		// failure has synced (Run returns the failure).
		return nil
	}
	select {
	case <-i.p.disp.synced:
		return nil
	case <-i.fatal:
		return fmt.Errorf("informer %s: %s%w", i.opts.Name, i.fix(i.fatalErr), i.fatalErr)
	case <-i.done:
		// fatal is closed before done: when both are, say why.
		select {
		case <-i.fatal:
			return fmt.Errorf("informer %s: %s%w", i.opts.Name, i.fix(i.fatalErr), i.fatalErr)
		default:
		}
		if i.HasSynced() {
			return nil
		}
		return fmt.Errorf("informer %s: %w", i.opts.Name, ErrStopped)
	case <-ctx.Done():
		if f := i.SyncError(); f != nil {
			return fmt.Errorf("informer %s: not synced: %w: %s%w", i.opts.Name, context.Cause(ctx), i.fix(f), f)
		}
		return fmt.Errorf("informer %s: not synced: %w", i.opts.Name, context.Cause(ctx))
	}
}

// fix says what to fix for a failure the informer's own request caused
// (observe.FailureBadRequest), ending in ": "; "" for any other.
func (i *Informer[T, P]) fix(err error) string {
	var se *SyncError
	if !errors.As(err, &se) || se.Reason != observe.FailureBadRequest {
		return ""
	}
	o := i.opts
	if o.LabelSelector == "" && o.FieldSelector == "" {
		return "the server rejected the request as invalid (400): fix what the ListerWatcher sends (its selectors): "
	}
	return fmt.Sprintf("the server rejected the request as invalid (400): fix Options.LabelSelector or FieldSelector (label selector %q, field selector %q): ",
		o.LabelSelector, o.FieldSelector)
}

// SyncError returns why the initial sync is failing, nil once synced or
// before any failure.
func (i *Informer[T, P]) SyncError() *SyncError {
	if i.HasSynced() {
		return nil
	}
	return i.p.rec.lastFailure()
}

// LastSyncResourceVersion is the resourceVersion of the last list, event or
// bookmark the reflector queued.
func (i *Informer[T, P]) LastSyncResourceVersion() string { return i.p.refl.lastSyncResourceVersion() }

// Undecodable lists the objects the last complete list skipped because
// they do not fit the type (Options.Decode.SkipUndecodable); empty without that
// option.
func (i *Informer[T, P]) Undecodable() []UndecodableObject { return i.p.refl.undecodable() }

// Lister returns a typed read-only view of the cache.
func (i *Informer[T, P]) Lister() Lister[P] { return Lister[P]{r: i.p.store} }

// Store returns the cache for direct reads (indexes, keys).
func (i *Informer[T, P]) Store() cache.Reader[P] { return i.p.store }
