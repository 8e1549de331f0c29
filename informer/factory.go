package informer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"runtime"
	"slices"
	"sync"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/meta"
)

// Factory shares informers: every caller asking for the same resource,
// namespace, selectors and Go type gets the same Informer, so a process
// lists and watches each of them once, however many controllers use it.
type Factory struct {
	client *apiclient.Client
	log    *slog.Logger

	mu        sync.Mutex // guards the fields below
	informers map[factoryKey]factoryEntry
	ctx       context.Context // set by Start
	wg        sync.WaitGroup
}

type factoryKey struct {
	ref          apiclient.Ref // without its Scope: a Ref made by hand and one from discovery are one cache
	label, field string
	typ          reflect.Type
	shard        *Shard // informers of different shards are different caches
}

type factoryEntry struct {
	inf interface {
		Run(context.Context) error
		WaitForSync(context.Context) error
	}
	opts    string // the first caller's options, as optionsSummary renders them
	started bool
}

// NewFactory returns a factory of informers over c. logger may be nil.
func NewFactory(c *apiclient.Client, logger *slog.Logger) *Factory {
	if logger == nil {
		logger = slog.Default()
	}
	return &Factory{client: c, log: logger, informers: map[factoryKey]factoryEntry{}}
}

// Shared returns the factory's informer for ref, opts' selectors,
// opts.Shard and the type T, creating it with opts on first use. Later callers share it and
// their opts are not used (add handlers with their own HandlerOptions
// instead); when they differ from the first caller's in any option that
// changes what the informer caches or does (optionsSummary), the factory
// logs a warning naming both, because the second caller does not get what
// it asked for (whole objects, a transform, a resync period, a queue, ...). It is a warning,
// not an error, so that shared informers stay as easy to get as
// client-go's, which ignores them silently. After Start, a new informer
// starts at once.
func Shared[T any, P meta.PtrObject[T]](f *Factory, ref apiclient.Ref, opts Options[P]) *Informer[T, P] {
	k := factoryKey{ref: apiclient.Ref{GVR: ref.GVR, Namespace: ref.Namespace}, label: opts.LabelSelector,
		field: opts.FieldSelector, typ: reflect.TypeFor[T](), shard: opts.Shard}
	summary := optionsSummary[T](opts)
	f.mu.Lock()
	defer f.mu.Unlock()
	if e, ok := f.informers[k]; ok {
		if e.opts != summary {
			f.log.Warn("informer: factory shares the informer created with other options; these are not used",
				"resource", ref.String(), "type", k.typ.String(), "first", e.opts, "ignored", summary)
		}
		return e.inf.(*Informer[T, P])
	}
	inf := New[T, P](f.client, ref, opts)
	e := factoryEntry{inf: inf, opts: summary}
	if f.ctx != nil {
		f.startLocked(&e)
	}
	f.informers[k] = e
	return inf
}

// Start runs every informer not yet running until ctx ends.
func (f *Factory) Start(ctx context.Context) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ctx = ctx
	for k, e := range f.informers {
		if !e.started {
			f.startLocked(&e)
			f.informers[k] = e
		}
	}
}

func (f *Factory) startLocked(e *factoryEntry) {
	e.started = true
	inf, ctx := e.inf, f.ctx
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		if err := inf.Run(ctx); err != nil {
			f.log.Error("informer: factory informer stopped", "err", err)
		}
	}()
}

// WaitForCacheSync waits until every informer of the factory has synced.
// When ctx ends first, the error joins each unsynced informer's error (see
// Informer.WaitForSync).
func (f *Factory) WaitForCacheSync(ctx context.Context) error {
	f.mu.Lock()
	infs := make([]interface{ WaitForSync(context.Context) error }, 0, len(f.informers))
	for _, e := range f.informers {
		infs = append(infs, e.inf)
	}
	f.mu.Unlock()
	if len(infs) == 0 {
		return errors.New("informer: factory has no informers")
	}
	// Each informer's error, joined: errors.As finds their *SyncError.
	var errs []error
	for _, inf := range infs {
		if err := inf.WaitForSync(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Shutdown waits until every informer started by the factory has returned;
// cancel Start's context first.
func (f *Factory) Shutdown() { f.wg.Wait() }

// optionsSummary renders the options that change what an informer of T
// caches or does, so that two callers' can be compared: values where they
// are comparable, and for a function whether it is set and which one
// (two closures made by one function literal cannot be told apart).
// Selectors and the shard are not here: they are part of the factory's
// key, so callers that differ in them get informers of their own.
//
// What is cached depends on: the request shape (whole objects or
// PartialObjectMetadata, which Transport.FullObjects and T decide
// together), Transform, KeepManagedFields, SkipUndecodable (objects that
// do not decode skipped, or the sync failing), ExpectedKind and
// ExpectedAPIVersion (objects dropped), the ListerWatcher a
// WrapListerWatcher puts in, and the wire (Transport.JSON: protobuf or
// JSON decoded into T, which a type with its own decoder may read
// differently). The rest changes how the informer gets there.
func optionsSummary[T any, P meta.Object](o Options[P]) string {
	request := "whole"
	if asksMetadata[T](o) {
		request = "PartialObjectMetadata"
	}
	indexers := slices.Sorted(maps.Keys(o.Indexers))
	return fmt.Sprintf("request=%s transform=%s keepManagedFields=%t skipUndecodable=%t kind=%q apiVersion=%q "+
		"wrapListerWatcher=%s json=%t websocket=%T maxObjectSize=%d sharer=%t snapshot=%t "+
		"deltaFIFO=%t inline=%t pageSize=%d consistentFirstList=%t streaming=%t resync=%v failFast=%t indexers=%v trace=%t",
		request, funcName(o.Decode.Transform), o.Decode.KeepManagedFields, o.Decode.SkipUndecodable, o.Decode.ExpectedKind, o.Decode.ExpectedAPIVersion,
		funcName(o.WrapListerWatcher), o.Transport.JSON, o.Transport.Websocket, o.Transport.MaxObjectSize,
		o.Decode.Sharer != nil, o.Snapshot.enabled(),
		o.Process.DeltaFIFO, o.Process.InlineProcessing, o.Sync.PageSize, o.Sync.ConsistentFirstList, o.Sync.StreamingList, o.Process.ResyncPeriod, o.Sync.FailFast,
		indexers, o.Observe.Trace != nil)
}

// funcName names the function fn holds ("pkg.Func", "pkg.Caller.func1"
// for a literal), "none" when it is nil.
func funcName(fn any) string {
	v := reflect.ValueOf(fn)
	if !v.IsValid() || v.IsNil() {
		return "none"
	}
	if f := runtime.FuncForPC(v.Pointer()); f != nil {
		return f.Name()
	}
	return "set"
}
