package cache

import "fmt"

// Reader is the read-only view of a [Store] that listers and controllers get.
// Every method is safe for concurrent use and sees a consistent state (one
// whole write or another). Returned slices are fresh and the caller's; the
// objects in them are shared and must not be mutated.
type Reader[T any] interface {
	// Get returns the stored object with obj's key.
	Get(obj T) (T, bool)
	// GetByKey returns the object stored under key.
	GetByKey(key string) (T, bool)
	// List returns every stored object, in no particular order.
	List() []T
	// ListKeys returns every key, in no particular order.
	ListKeys() []string
	// Len returns the number of stored objects.
	Len() int
	// ByIndex returns the objects filed under value in the named index.
	ByIndex(name, value string) ([]T, error)
	// ByIndexAppend appends the objects filed under value to dst; with enough
	// capacity in dst it does not allocate.
	ByIndexAppend(dst []T, name, value string) ([]T, error)
	// IndexKeys returns the keys filed under value in the named index.
	IndexKeys(name, value string) ([]string, error)
	// ListIndexFuncValues returns the values of the named index that have objects.
	ListIndexFuncValues(name string) []string
	// Index returns the objects that share any of obj's values in the named index.
	Index(name string, obj T) ([]T, error)
}

// Writer is the write side of a [Store] that the informer's dispatcher
// holds, so that code given only a Reader cannot change the cache: Update
// and DeleteKey for watch deltas, Replace for a whole relist in one step.
// (Store's Add and Delete are conveniences for direct users; Add is Update.)
type Writer[T any] interface {
	Update(obj T)
	DeleteKey(key string)
	Replace(list []T)
}

var (
	_ Reader[int] = (*Store[int])(nil)
	_ Writer[int] = (*Store[int])(nil)
)

// Get returns the stored object with the same key as obj.
func (s *Store[T]) Get(obj T) (T, bool) { return s.GetByKey(s.key(obj)) }

// GetByKey returns the object stored under key.
func (s *Store[T]) GetByKey(key string) (T, bool) {
	s.mu.RLock()
	obj, ok := s.items[key]
	s.mu.RUnlock()
	return obj, ok
}

// List returns a snapshot of every stored object, in no particular order.
func (s *Store[T]) List() []T {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]T, 0, len(s.items))
	for _, obj := range s.items {
		out = append(out, obj)
	}
	return out
}

// ListKeys returns a snapshot of every key, in no particular order.
func (s *Store[T]) ListKeys() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]string, 0, len(s.items))
	for key := range s.items {
		out = append(out, key)
	}
	return out
}

// Len returns the number of stored objects.
func (s *Store[T]) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.items)
}

// ByIndex returns the objects filed under value in the named index, nil when
// there are none. The slice is allocated at its exact size: the only allocation.
func (s *Store[T]) ByIndex(name, value string) ([]T, error) {
	return s.ByIndexAppend(nil, name, value)
}

// ByIndexAppend appends the objects filed under value in the named index to dst
// and returns the extended slice. Reusing dst across calls (dst[:0]) makes index
// lookups allocation-free.
func (s *Store[T]) ByIndexAppend(dst []T, name, value string) ([]T, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	ix, ok := s.indexes[name]
	if !ok {
		return dst, fmt.Errorf("%w: %q", ErrNoIndex, name)
	}
	if key, ok := ix.one[value]; ok {
		return append(dst, s.items[key]), nil
	}
	b, ok := ix.many[value]
	if !ok {
		return dst, nil
	}
	if dst == nil {
		dst = make([]T, 0, b.len())
	}
	if b.large != nil {
		for key := range b.large {
			dst = append(dst, s.items[key])
		}
		return dst, nil
	}
	for _, key := range b.small {
		dst = append(dst, s.items[key])
	}
	return dst, nil
}

// IndexKeys returns the keys filed under value in the named index.
func (s *Store[T]) IndexKeys(name, value string) ([]string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	ix, ok := s.indexes[name]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrNoIndex, name)
	}
	n := ix.count(value)
	if n == 0 {
		return nil, nil
	}
	return ix.appendKeys(make([]string, 0, n), value), nil
}

// ListIndexFuncValues returns every value of the named index that at least one
// object is filed under; nil for an unknown index.
func (s *Store[T]) ListIndexFuncValues(name string) []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	ix := s.indexes[name]
	if ix.size() == 0 {
		return nil
	}
	out := make([]string, 0, ix.size())
	for v := range ix.one {
		out = append(out, v)
	}
	for v := range ix.many {
		out = append(out, v)
	}
	return out
}

// Index returns the stored objects that share at least one value with obj in
// the named index, each once. obj itself need not be stored.
func (s *Store[T]) Index(name string, obj T) ([]T, error) {
	s.mu.RLock()
	fn, ok := s.indexers[name]
	s.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrNoIndex, name)
	}
	vals, err := fn(obj) // outside the lock: user code
	if err != nil {
		return nil, fmt.Errorf("cache: index %q: %w", name, err)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	ix := s.indexes[name]
	if len(vals) == 1 { // the common case needs no de-duplication
		return s.objects(ix.appendKeys(nil, vals[0])), nil
	}
	seen := make(map[string]struct{})
	var keys []string
	for _, v := range vals {
		for _, key := range ix.appendKeys(nil, v) {
			if _, dup := seen[key]; !dup {
				seen[key] = struct{}{}
				keys = append(keys, key)
			}
		}
	}
	return s.objects(keys), nil
}

// objects looks keys up; s.mu must be held.
func (s *Store[T]) objects(keys []string) []T {
	if len(keys) == 0 {
		return nil
	}
	out := make([]T, len(keys))
	for i, key := range keys {
		out[i] = s.items[key]
	}
	return out
}
