package informer

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/shard"
	"github.com/zerokube/zerokube/watchstream"
)

// Shard is the part of a resource an informer caches (Options.Shard), and
// the handle that moves it at run time. Create it with [NewShard]; one Shard
// may serve several informers. Safe for concurrent use.
//
// How it works, between the reflector and the ListerWatcher:
//
//  1. Every LIST and WATCH sends the selector as shardSelector. A server
//     with the ShardedListAndWatch gate filters; one without ignores it.
//  2. Every listed object and every watch event is checked with the same
//     hash and ranges (shard.Selector.Contains) before the reflector sees it,
//     so objects outside the shard never reach the queue, the cache or the
//     handlers, whichever side filtered. An object cannot move between
//     shards (uid and namespace never change), so no event is needed for
//     an object leaving its shard while the ranges stay the same.
//  3. ServerSide reports which side filtered: the server when the last
//     list came back with metadata.shardInfo naming this selector and no
//     foreign object arrived since; the client otherwise. Before a
//     streaming list, which has no shardInfo, a LIST of one object asks.
//  4. Set moves the shard: open watches end and the reflector relists with
//     the new selector (the ListerWatcher reports a 410 wrapping
//     errReshardMoved, which the reflector answers with an immediate relist).
//     The relist's Replace turns objects that left into deletes for the
//     handlers and new ones into adds; nothing restarts.
type Shard struct {
	mu      sync.Mutex
	sel     shard.Selector
	gen     uint64 // bumped by every Set
	watches map[reshardable]struct{}
	side    atomic.Int32 // sideUnknown, sideServer or sideClient
}

const (
	sideUnknown int32 = iota
	sideServer
	sideClient
)

// reshardable is an open watch that Set must end.
type reshardable interface{ reshard() }

// errReshardMoved is wrapped by the error that ends a watch or list when the
// shard changes: a 410 Expired Status, so that the reflector relists at
// once.
var errReshardMoved = errors.New("informer: the shard changed")

func errReshard() error {
	return fmt.Errorf("%w: %w", errReshardMoved, meta.NewStatusError(410, meta.ReasonExpired, "the shard changed; relisting"))
}

// NewShard returns a Shard holding sel, which must be valid and not empty.
func NewShard(sel shard.Selector) (*Shard, error) {
	if err := checkShard(sel); err != nil {
		return nil, err
	}
	return &Shard{sel: sel, watches: map[reshardable]struct{}{}}, nil
}

func checkShard(sel shard.Selector) error {
	if sel.IsEverything() {
		return errors.New("informer: a shard needs at least one range")
	}
	if err := sel.Validate(); err != nil {
		return fmt.Errorf("informer: %w", err)
	}
	return nil
}

// Selector is the current shard.
func (s *Shard) Selector() shard.Selector {
	sel, _ := s.current()
	return sel
}

func (s *Shard) current() (shard.Selector, uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sel, s.gen
}

// Set moves the shard to sel (invariant 4). Setting the same selector again
// does nothing.
func (s *Shard) Set(sel shard.Selector) error {
	if err := checkShard(sel); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if sel.Equal(s.sel) {
		return nil
	}
	s.sel = sel
	s.gen++
	s.side.Store(sideUnknown)
	for w := range s.watches {
		w.reshard()
	}
	clear(s.watches)
	return nil
}

// ServerSide reports whether the server filters for this shard (invariant
// 3); false until a list said so, and whenever an object from outside the
// shard arrived since.
func (s *Shard) ServerSide() bool { return s.side.Load() == sideServer }

// track registers an open watch opened at gen; false if the shard moved
// since, in which case the caller ends the watch itself.
func (s *Shard) track(w reshardable, gen uint64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if gen != s.gen {
		return false
	}
	s.watches[w] = struct{}{}
	return true
}

func (s *Shard) untrack(w reshardable) {
	s.mu.Lock()
	delete(s.watches, w)
	s.mu.Unlock()
}

// listed records what a complete list page said about who filtered.
func (s *Shard) listed(sel shard.Selector, info *meta.ShardInfo, foreign bool) {
	switch {
	case foreign || info == nil:
		s.side.Store(sideClient)
	case info.Selector == sel.String():
		s.side.CompareAndSwap(sideUnknown, sideServer)
	default:
		// The server applied some other selector: trust only our filter.
		s.side.Store(sideClient)
	}
}

// shardValue returns how to read the field sel hashes from a P, or an error
// when P has no such field (uid needs a GetUID method).
func shardValue[P meta.Object](f shard.Field) (func(P) string, error) {
	if f == shard.Namespace {
		return func(p P) string { return p.GetNamespace() }, nil
	}
	var zero P
	if _, ok := any(zero).(interface{ GetUID() string }); !ok {
		return nil, fmt.Errorf("informer: sharding by %s needs objects with a GetUID method (embed meta.ObjectMeta or meta.SlimMeta): %T has none", shard.UID, zero)
	}
	return func(p P) string { return any(p).(interface{ GetUID() string }).GetUID() }, nil
}

// shardLW puts a ListerWatcher behind a Shard (invariants 1, 2 and 4). It
// is the pipeline's shard filter stage. Its methods other than List and
// Watch may be called on a nil *shardLW (no Options.Shard), and then say
// "no shard".
type shardLW[P meta.Object] struct {
	inner ListerWatcher[P]
	sh    *Shard
	// listed is the shard of the last complete list (or of the snapshot
	// resumed): a watch continues only that list; nil before any. pageGen
	// is the generation of the list in progress; only the reflector's
	// goroutine calls List.
	listed  atomic.Pointer[listedShard]
	pageGen uint64
}

// listedShard is a shard generation and its selector, as listed.
type listedShard struct {
	gen uint64
	sel string
}

func newShardLW[P meta.Object](inner ListerWatcher[P], sh *Shard) *shardLW[P] {
	return &shardLW[P]{inner: inner, sh: sh}
}

// current is the shard's selector now, as a snapshot's identity names it
// ("" without a shard), and its generation.
func (lw *shardLW[P]) current() (string, uint64) {
	if lw == nil {
		return "", 0
	}
	sel, gen := lw.sh.current()
	return sel.String(), gen
}

// listedSelector is the selector of the shard the cache holds: of the
// last complete list, or of the snapshot resumed ("" without a shard).
func (lw *shardLW[P]) listedSelector() string {
	if lw == nil {
		return ""
	}
	if l := lw.listed.Load(); l != nil {
		return l.sel
	}
	return ""
}

// resumed records that the cache holds a snapshot of the shard sel at
// generation gen (current's answer before the snapshot was loaded): a
// watch may continue it, unless the shard moved since.
func (lw *shardLW[P]) resumed(sel string, gen uint64) {
	if lw != nil {
		lw.listed.Store(&listedShard{gen: gen, sel: sel})
	}
}

// forgetResumed undoes resumed, for a snapshot rejected after its resume's
// WATCH was sent (the pipeline's resume, before the reflector runs): the
// cache holds no list of any shard.
func (lw *shardLW[P]) forgetResumed() {
	if lw != nil {
		lw.listed.Store(nil)
	}
}

// watchable reports whether the cache holds the list of shard generation
// gen, which a watch at gen continues.
func (lw *shardLW[P]) watchable(gen uint64) bool {
	l := lw.listed.Load()
	return l != nil && l.gen == gen
}

// describing returns describe (the resource's part of a request's shape,
// nil: none) followed by the shard's part: the selector that List and
// Watch add to the request, and why. On a nil *shardLW (no Options.Shard)
// it is describe itself. The shape is built just before the request is
// sent: a Set in between sends the new selector where the trace says the
// old, and the relist that Set causes traces the new one.
func (lw *shardLW[P]) describing(describe func(*observe.Request)) func(*observe.Request) {
	if lw == nil {
		return describe
	}
	return func(req *observe.Request) {
		if describe != nil {
			describe(req)
		}
		lw.describe(req)
	}
}

// describe adds the shard's selector to req, and why, with what the last
// list said about which side filters (invariant 3).
func (lw *shardLW[P]) describe(req *observe.Request) {
	sel, _ := lw.sh.current()
	req.ShardSelector = sel.String()
	why := "shardSelector: Options.Shard (KEP-5866): "
	switch lw.sh.side.Load() {
	case sideServer:
		why += "the server filtered the last list"
	case sideClient:
		why += "the server did not filter the last list (no ShardedListAndWatch gate): it sends everything and the informer drops other shards' objects"
	default:
		why += "a server with the ShardedListAndWatch gate filters, one without sends everything and the informer drops other shards' objects"
	}
	req.Why = append(req.Why, why)
	if req.Verb == observe.VerbStreamingList && lw.sh.side.Load() == sideUnknown {
		// probe: a streaming list says nothing of who filtered.
		req.Why = append(req.Why, "shardSelector: a LIST of one object (limit=1, rv \"\") goes first, to learn whether the server filters")
	}
}

func (lw *shardLW[P]) List(ctx context.Context, o ListRequest, each func(P) error) (ListPage, error) {
	sel, gen := lw.sh.current()
	if o.Continue == "" {
		lw.pageGen = gen
	} else if gen != lw.pageGen {
		return ListPage{}, errReshard() // the pages so far are of another shard
	}
	value, err := shardValue[P](sel.Field)
	if err != nil {
		return ListPage{}, err
	}
	o.ShardSelector = sel.String()
	foreign := false
	// The objects of other shards are dropped here, above the reply's
	// reader: its watchdog has counted them, so a server that ignores
	// the shard selector and streams the whole resource is not taken for
	// one that stalled.
	lm, err := lw.inner.List(ctx, o, func(p P) error {
		if !sel.ContainsHash(shard.Hash(value(p))) {
			foreign = true
			return nil
		}
		return each(p)
	})
	if err != nil {
		return lm, err
	}
	lw.sh.listed(sel, lm.ShardInfo, foreign)
	if _, now := lw.sh.current(); now != gen {
		return lm, errReshard()
	}
	if lm.Continue == "" {
		lw.listed.Store(&listedShard{gen: gen, sel: sel.String()})
	}
	return lm, nil
}

func (lw *shardLW[P]) Watch(ctx context.Context, o WatchRequest) (Watch[P], error) {
	sel, gen := lw.sh.current()
	streaming := o.Mode == StreamingList
	if !streaming && !lw.watchable(gen) {
		return nil, errReshard() // the cache holds another shard's list
	}
	value, err := shardValue[P](sel.Field)
	if err != nil {
		return nil, err
	}
	o.ShardSelector = sel.String()
	if streaming && lw.sh.side.Load() == sideUnknown {
		lw.probe(ctx, sel)
	}
	w, err := lw.inner.Watch(ctx, o)
	if err != nil {
		return nil, err
	}
	sw := &shardWatch[P]{inner: newEndableWatch(w, errReshard), sh: lw.sh, sel: sel, value: value}
	if !lw.sh.track(sw, gen) {
		sw.reshard()
	}
	if streaming {
		lw.listed.Store(&listedShard{gen: gen, sel: sel.String()}) // a streaming list is this shard's list
	}
	return sw, nil
}

// probe asks for one object of the shard to learn whether the server
// filters: a streaming list carries no shardInfo. A consistent read ("")
// because a LIST at "0" comes whole from kube-apiserver's watch cache,
// limit or not. A failed probe leaves the question open.
func (lw *shardLW[P]) probe(ctx context.Context, sel shard.Selector) {
	lm, err := lw.inner.List(ctx, ListRequest{Limit: 1, ShardSelector: sel.String()}, func(P) error { return nil })
	if err == nil {
		lw.sh.listed(sel, lm.ShardInfo, false)
	}
}

// shardWatch drops events from outside its shard and ends with errReshardMoved
// when the shard moves.
type shardWatch[P meta.Object] struct {
	inner  *endableWatch[P] // ended with errReshard
	sh     *Shard
	sel    shard.Selector
	value  func(P) string
	unseen sync.Once
}

func (w *shardWatch[P]) reshard() { w.inner.end() }

func (w *shardWatch[P]) Next() (watchstream.Event[P], error) {
	for {
		ev, err := w.inner.Next()
		if err != nil {
			return ev, err
		}
		switch ev.Type {
		case meta.Added, meta.Modified, meta.Deleted:
			if !w.sel.ContainsHash(shard.Hash(w.value(ev.Object))) {
				w.sh.side.Store(sideClient)
				continue
			}
		}
		return ev, nil
	}
}

func (w *shardWatch[P]) Stop() {
	w.unseen.Do(func() { w.sh.untrack(w) })
	w.inner.Stop()
}
