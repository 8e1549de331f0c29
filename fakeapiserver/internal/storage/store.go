package storage

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zerokube/zerokube/meta"
)

// Options configures a Store. Zero values are not defaulted here: the
// server passes its own, already defaulted.
type Options struct {
	HistoryEvents int           // events kept for watches and old snapshots
	HistoryAge    time.Duration // and their age bound
	WatchBuffer   int           // frames a watcher may fall behind
	TooLargeWait  time.Duration // how long a read waits for a future RV
	Now           func() time.Time
	Logger        *slog.Logger
	// Namespaces is the resource whose objects contain the namespaced
	// ones: a namespaced create needs its namespace, and deleting a
	// namespace deletes what it holds.
	Namespaces *Resource
}

// Store holds every object, the global resourceVersion, the history of
// events and the open watchers, behind one lock. It knows nothing of
// HTTP; the server's front parses requests and writes replies.
type Store struct {
	opts Options
	log  *slog.Logger

	mu        sync.Mutex // guards the fields below
	rv        int64
	tables    map[*Resource]map[string]*Object
	hist      history
	watchers  map[*Resource]map[*Watcher]struct{}
	rvChanged chan struct{} // closed and replaced whenever rv advances
	nWatchers int
	changed   chan struct{} // closed and replaced when watchers come and go
	snaps     snapshotCache // sorted list snapshots, shared by the pages of a list

	stats Counters
}

// Counters are what the store has done; atomics, read by the server's Stats.
type Counters struct {
	Writes, Watches, Bookmarks, SlowWatchers atomic.Int64
}

// New returns an empty store at resourceVersion 0.
func New(opts Options) *Store {
	return &Store{
		opts: opts, log: opts.Logger,
		tables:    map[*Resource]map[string]*Object{},
		watchers:  map[*Resource]map[*Watcher]struct{}{},
		rvChanged: make(chan struct{}),
		changed:   make(chan struct{}),
		hist:      history{maxEvents: opts.HistoryEvents, maxAge: opts.HistoryAge},
	}
}

// Counters returns the store's counters.
func (s *Store) Counters() *Counters { return &s.stats }

// RV returns the current resourceVersion.
func (s *Store) RV() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rv
}

// Get returns the current state of an object, or a 404.
func (s *Store) Get(res *Resource, ns, name string) (*Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if o := s.tableLocked(res)[res.Key(ns, name)]; o != nil {
		return o, nil
	}
	return nil, NotFound(res, name)
}

// tableLocked returns the objects of res, keyed by Resource.Key. Requires s.mu.
func (s *Store) tableLocked(res *Resource) map[string]*Object {
	t := s.tables[res]
	if t == nil {
		t = map[string]*Object{}
		s.tables[res] = t
	}
	return t
}

// commitLocked makes obj the state of key, appends the event to the history
// and offers it to every watcher of res. Requires s.mu; obj is at s.rv+1,
// which this makes the current resourceVersion.
func (s *Store) commitLocked(res *Resource, typ meta.EventType, key string, obj, prev *Object) {
	s.rv = obj.rv
	t := s.tableLocked(res)
	if typ == meta.Deleted {
		delete(t, key)
	} else {
		t[key] = obj
	}
	ev := &event{rv: obj.rv, res: res, typ: typ, key: key, obj: obj, prev: prev, at: s.opts.Now()}
	s.hist.append(ev)
	s.snaps.expire(s.hist.compacted)
	s.stats.Writes.Add(1)
	for w := range s.watchers[res] {
		s.offerEventLocked(w, ev)
	}
	close(s.rvChanged)
	s.rvChanged = make(chan struct{})
}

// Create stores m as a new object of res. m is the complete object (the
// caller has set name, namespace, uid and the rest); Create sets its
// resourceVersion and takes ownership of m. A namespaced object needs its
// namespace to exist and not to be terminating; an existing key is a 409
// AlreadyExists.
func (s *Store) Create(res *Resource, m map[string]any) (*Object, error) {
	return s.create(res, m, false)
}

// CreateDry checks what Create checks and returns the object Create would
// store, storing nothing: a dryRun=All create. Its resourceVersion is the
// one the write would have had.
func (s *Store) CreateDry(res *Resource, m map[string]any) (*Object, error) {
	return s.create(res, m, true)
}

func (s *Store) create(res *Resource, m map[string]any, dry bool) (*Object, error) {
	md := MetadataOf(m)
	ns, name := Str(md, "namespace"), Str(md, "name")
	s.mu.Lock()
	defer s.mu.Unlock()
	if res.Namespaced {
		switch nso := s.tableLocked(s.opts.Namespaces)[ns]; {
		case nso == nil:
			return nil, NamespaceNotFound(ns)
		case nso.raw.DeletionTimestamp != nil:
			// Checked here too, under the lock, so that no create lands
			// after the namespace controller listed what it deletes.
			return nil, NamespaceTerminating(res, name, ns)
		}
	}
	key := res.Key(ns, name)
	if s.tableLocked(res)[key] != nil {
		return nil, AlreadyExists(res, name)
	}
	obj, err := build(res, m, s.rv+1)
	if err != nil {
		return nil, BadRequest("%v", err)
	}
	if !dry {
		s.commitLocked(res, meta.Added, key, obj, nil)
	}
	return obj, nil
}

// UpdateFunc computes the next state of an object from its current one,
// under the store's lock, so no other write falls between the read and the
// write. It returns the next state (the store sets its resourceVersion) and
// whether that write completes a pending deletion (the last finalizer of a
// deleting object is gone).
type UpdateFunc func(cur *Object) (next map[string]any, deleteNow bool, err error)

// Update is a guaranteed update of an existing object, as kube-apiserver's
// storage does it:
//   - a next state whose encoding equals the current one is not written:
//     Update returns the current object, no event is sent and the
//     resourceVersion does not move;
//   - deleteNow removes the object in the same write: the DELETED event
//     carries the last stored state at the new resourceVersion, and Update
//     returns next at the object's previous resourceVersion.
func (s *Store) Update(res *Resource, ns, name string, fn UpdateFunc) (*Object, error) {
	return s.update(res, ns, name, fn, false)
}

// UpdateDry is Update without the write (a dryRun=All update): fn runs on
// the current object and UpdateDry returns what Update would have
// returned, at the current resourceVersion; nothing is stored, no event
// is sent.
func (s *Store) UpdateDry(res *Resource, ns, name string, fn UpdateFunc) (*Object, error) {
	return s.update(res, ns, name, fn, true)
}

func (s *Store) update(res *Resource, ns, name string, fn UpdateFunc, dry bool) (*Object, error) {
	key := res.Key(ns, name)
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := s.tableLocked(res)[key]
	if cur == nil {
		return nil, NotFound(res, name)
	}
	next, deleteNow, err := fn(cur)
	if err != nil {
		return nil, err
	}
	atCur, err := build(res, next, cur.rv)
	if err != nil {
		return nil, BadRequest("%v", err)
	}
	if dry {
		return atCur, nil
	}
	if deleteNow {
		s.commitLocked(res, meta.Deleted, key, withRV(res, cur, s.rv+1), cur)
		return atCur, nil
	}
	if string(atCur.Full()) == string(cur.Full()) {
		return cur, nil // a no-op: nothing is written
	}
	s.commitLocked(res, meta.Modified, key, withRV(res, atCur, s.rv+1), cur)
	return s.tableLocked(res)[key], nil
}

// Delete removes an object. check, when set, sees the current state first
// (preconditions) and may refuse. The DELETED event and the returned object
// are the last state at the deletion's resourceVersion. Deleting a
// namespace deletes every object in it, as the namespace controller would.
func (s *Store) Delete(res *Resource, ns, name string, check func(cur *Object) error) (*Object, error) {
	key := res.Key(ns, name)
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := s.tableLocked(res)[key]
	if cur == nil {
		return nil, NotFound(res, name)
	}
	if check != nil {
		if err := check(cur); err != nil {
			return nil, err
		}
	}
	obj := withRV(res, cur, s.rv+1)
	s.commitLocked(res, meta.Deleted, key, obj, cur)
	if res == s.opts.Namespaces {
		s.deleteNamespaceContentsLocked(name)
	}
	return obj, nil
}

// deleteNamespaceContentsLocked removes what the namespace controller would:
// every object in the deleted namespace, in a fixed order.
func (s *Store) deleteNamespaceContentsLocked(ns string) {
	for res, t := range s.tables {
		if !res.Namespaced {
			continue
		}
		var keys []string
		for k := range t {
			if strings.HasPrefix(k, ns+"/") {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			cur := t[k]
			s.commitLocked(res, meta.Deleted, k, withRV(res, cur, s.rv+1), cur)
		}
	}
}

// Compact drops history up to rv (0 or beyond the current RV: everything
// up to now), as etcd compaction does, and returns the RV it compacted to
// and how many events of the history it dropped.
func (s *Store) Compact(rv int64) (int64, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rv <= 0 || rv > s.rv {
		rv = s.rv
	}
	n := s.hist.compact(rv)
	s.snaps.expire(s.hist.compacted)
	return rv, n
}

// WaitForRV waits until the store reaches rv, or answers 504 with the
// ResourceVersionTooLarge cause after Options.TooLargeWait.
func (s *Store) WaitForRV(ctx context.Context, rv int64) error {
	timer := time.NewTimer(s.opts.TooLargeWait)
	defer timer.Stop()
	for {
		s.mu.Lock()
		cur, ch := s.rv, s.rvChanged
		s.mu.Unlock()
		if cur >= rv {
			return nil
		}
		select {
		case <-ch:
		case <-timer.C:
			return TooLarge(rv)
		case <-ctx.Done():
			return fmt.Errorf("storage: wait for resourceVersion %d: %w", rv, ctx.Err())
		}
	}
}

// compactPastLocked compacts the history past rv. When no write came
// after rv, the resourceVersion first moves on by one, as a write to a key
// no resource shows would move etcd's revision. Requires s.mu.
func (s *Store) compactPastLocked(rv int64) {
	if s.rv <= rv {
		s.rv++
		close(s.rvChanged)
		s.rvChanged = make(chan struct{})
	}
	_ = s.hist.compact(s.rv)
	s.snaps.expire(s.hist.compacted)
}

// Restore rolls every resource back to its state at rv (moved into the
// history's range), as when etcd is restored from a backup: the
// resourceVersion goes back, the history after rv is gone, and every watch
// ends. It returns the resourceVersion restored to.
func (s *Store) Restore(rv int64) int64 {
	s.mu.Lock()
	rv = min(max(rv, s.hist.compacted), s.rv)
	for res := range s.tables {
		t := make(map[string]*Object)
		for _, e := range s.stateLocked(res, rv) {
			t[e.key] = e.obj
		}
		s.tables[res] = t
	}
	s.hist.truncate(rv)
	s.snaps = snapshotCache{} // snapshots past rv would be served for reused RVs
	s.rv = rv
	s.mu.Unlock()
	s.EndWatches("fault: restore")
	return rv
}

// Put stores m as it is, without any check but the namespace's: an added
// or a modified object, as another writer could have put there. A
// missing uid is kept from the object it replaces, or made up.
func (s *Store) Put(res *Resource, m map[string]any) (*Object, error) {
	md := MetadataOf(m)
	key := res.Key(Str(md, "namespace"), Str(md, "name"))
	s.mu.Lock()
	defer s.mu.Unlock()
	prev := s.tableLocked(res)[key]
	if Str(md, "uid") == "" {
		md["uid"] = NewUID()
		if prev != nil {
			md["uid"] = prev.raw.UID
		}
	}
	o, err := build(res, m, s.rv+1)
	if err != nil {
		return nil, err
	}
	typ := meta.Added
	if prev != nil {
		typ = meta.Modified
	}
	s.commitLocked(res, typ, key, o, prev)
	return o, nil
}
