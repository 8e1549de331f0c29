package cache

import (
	"fmt"
	"maps"
	"sync"
)

// Store is a thread-safe, indexed map of objects. Create it with [New]; the zero
// value is not usable. All methods may be called from any goroutine.
//
// Objects are stored as given and handed back as stored: for pointer types every
// reader shares them, so nobody may mutate an object after adding it or after
// reading it (copy, change the copy, Update).
type Store[T any] struct {
	key func(T) string

	// wmu serialises writers. A writer holds it for its whole operation, including
	// the key and index function calls, and takes mu only around the map
	// assignments (invariant 2). Because only wmu holders mutate the maps below, a
	// writer may read them without mu.
	wmu sync.Mutex

	// mu guards items, indexers and indexes against concurrent writes; readers hold
	// it shared for the duration of one lookup.
	mu       sync.RWMutex
	items    map[string]T
	indexers Indexers[T]      // copied on AddIndexers, never mutated in place
	indexes  map[string]index // one per indexer, same names
}

// New returns an empty store that files objects under key(obj) and maintains one
// index per entry of indexers (nil for none). The indexers map is copied.
func New[T any](key func(T) string, indexers Indexers[T]) *Store[T] {
	s := &Store[T]{
		key:      key,
		items:    make(map[string]T),
		indexers: maps.Clone(indexers),
		indexes:  make(map[string]index, len(indexers)),
	}
	if s.indexers == nil {
		s.indexers = Indexers[T]{}
	}
	for name := range indexers {
		s.indexes[name] = newIndex()
	}
	return s
}

// Add stores obj under its key, replacing any object with the same key. It is
// the same operation as Update; both exist because deltas name them apart.
func (s *Store[T]) Add(obj T) { s.put(obj) }

// Update stores obj under its key and moves its index entries to its new index
// values.
func (s *Store[T]) Update(obj T) { s.put(obj) }

// Delete removes the object with obj's key, if any. Its old index entries are
// found from the stored object, so obj may be a stale copy or a tombstone's last
// known state.
func (s *Store[T]) Delete(obj T) { s.DeleteKey(s.key(obj)) }

// change is what one write does to one index: the stored object's values and
// the new object's values. Entries in both are left alone.
type change struct {
	ix       index
	old, new []string
}

// put is Add and Update.
func (s *Store[T]) put(obj T) {
	key := s.key(obj)
	s.wmu.Lock()
	defer s.wmu.Unlock()
	old, had := s.items[key]
	var buf [4]change // most stores have a handful of indexes: keep this on the stack
	changes := buf[:0]
	for name, fn := range s.indexers {
		c := change{ix: s.indexes[name], new: values(name, fn, key, obj)}
		if had {
			c.old = values(name, fn, key, old)
		}
		changes = append(changes, c)
	}
	s.mu.Lock()
	s.items[key] = obj
	for _, c := range changes {
		c.apply(key)
	}
	s.mu.Unlock()
}

// apply moves key from the values only in c.old to the values only in c.new.
func (c change) apply(key string) {
	for _, v := range c.old {
		if !contains(c.new, v) {
			c.ix.remove(v, key)
		}
	}
	for _, v := range c.new {
		if !contains(c.old, v) {
			c.ix.add(v, key)
		}
	}
}

// DeleteKey removes the object stored under key, if any, and its index entries.
func (s *Store[T]) DeleteKey(key string) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	old, had := s.items[key]
	if !had {
		return
	}
	var buf [4]change
	changes := buf[:0]
	for name, fn := range s.indexers {
		changes = append(changes, change{ix: s.indexes[name], old: values(name, fn, key, old)})
	}
	s.mu.Lock()
	delete(s.items, key)
	for _, c := range changes {
		c.apply(key)
	}
	s.mu.Unlock()
}

// Replace makes list the store's whole content, as one atomic step: readers see
// either the old set or the new one. When list holds two objects with the same
// key, the later one wins. The new maps and indexes are built before the
// readers' lock is taken, so readers are blocked only for the swap.
func (s *Store[T]) Replace(list []T) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	items := make(map[string]T, len(list))
	for _, obj := range list {
		items[s.key(obj)] = obj
	}
	indexes := make(map[string]index, len(s.indexers))
	for name, fn := range s.indexers {
		indexes[name] = build(name, fn, items)
	}
	s.mu.Lock()
	s.items, s.indexes = items, indexes
	s.mu.Unlock()
}

// AddIndexers declares more indexes. It may be called at any time: existing
// objects are indexed before the new indexes become visible. A name that is
// already declared is an error wrapping [ErrIndexExists], and then nothing is
// added.
func (s *Store[T]) AddIndexers(indexers Indexers[T]) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	for name := range indexers {
		if _, ok := s.indexers[name]; ok {
			return fmt.Errorf("%w: %q", ErrIndexExists, name)
		}
	}
	merged := maps.Clone(s.indexers)
	built := make(map[string]index, len(indexers))
	for name, fn := range indexers {
		merged[name] = fn
		built[name] = build(name, fn, s.items)
	}
	s.mu.Lock()
	s.indexers = merged
	maps.Copy(s.indexes, built)
	s.mu.Unlock()
	return nil
}
