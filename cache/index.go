package cache

import (
	"errors"
	"fmt"
)

// IndexFunc maps an object to the index values it is filed under: zero values
// leave it out of the index, several file it under each. It must be pure and
// deterministic (see invariant 6 in the package doc).
type IndexFunc[T any] func(obj T) ([]string, error)

// Indexers names index functions. The names are what ByIndex and friends take.
type Indexers[T any] map[string]IndexFunc[T]

// NamespaceIndex is the conventional name of the index by namespace.
const NamespaceIndex = "namespace"

// ErrNoIndex is returned (wrapped, with the name) by lookups on an index that was
// never declared.
var ErrNoIndex = errors.New("cache: no such index")

// ErrIndexExists is returned by AddIndexers for a name already in use: replacing
// an index function under live data would silently change what a name means.
var ErrIndexExists = errors.New("cache: index already exists")

// NamespaceIndexFunc returns an index function that files each object under its
// namespace ("" for cluster-scoped objects), given how to read the namespace.
// The cache does not know the Kubernetes object types, so the caller supplies the
// getter, for example func(p *Pod) string { return p.Namespace }.
func NamespaceIndexFunc[T any](namespace func(T) string) IndexFunc[T] {
	return func(obj T) ([]string, error) { return []string{namespace(obj)}, nil }
}

// smallBucket is the largest bucket kept as a slice. A linear scan over eight
// strings is as fast as a map lookup, and a slice of a few keys costs a few
// dozen bytes where the smallest map costs well over a hundred. Buckets that
// shrink back to half of this return to a slice, since Go maps never give
// memory back.
const smallBucket = 8

// bucket is the set of keys filed under one index value. Exactly one of small and
// large is in use: small while the set has at most smallBucket keys.
type bucket struct {
	small []string
	large map[string]struct{}
}

func (b *bucket) len() int {
	if b.large != nil {
		return len(b.large)
	}
	return len(b.small)
}

// add inserts key; it is idempotent because an index function may return the
// same value twice.
func (b *bucket) add(key string) {
	if b.large != nil {
		b.large[key] = struct{}{}
		return
	}
	for _, k := range b.small {
		if k == key {
			return
		}
	}
	if len(b.small) < smallBucket {
		b.small = append(b.small, key)
		return
	}
	b.large = make(map[string]struct{}, 2*smallBucket)
	for _, k := range b.small {
		b.large[k] = struct{}{}
	}
	b.large[key] = struct{}{}
	b.small = nil
}

func (b *bucket) remove(key string) {
	if b.large != nil {
		delete(b.large, key)
		if len(b.large) <= smallBucket/2 {
			b.small = make([]string, 0, smallBucket)
			for k := range b.large {
				b.small = append(b.small, k)
			}
			b.large = nil
		}
		return
	}
	for i, k := range b.small {
		if k == key {
			last := len(b.small) - 1
			b.small[i] = b.small[last]
			b.small[last] = "" // let the key's bytes go if nothing else holds them
			b.small = b.small[:last]
			return
		}
	}
}

// index maps index values to the keys filed under them. Most values of a
// unique-ish index (by UID, by owner) have exactly one key, so those live in
// one, as a bare string: no slice, no bucket, the smallest map slot. Values
// with two or more keys live in many. A value is in at most one of the two.
type index struct {
	one  map[string]string
	many map[string]bucket // buckets stored by value: a pointer would be one more allocation
}

func newIndex() index {
	return index{one: make(map[string]string), many: make(map[string]bucket)}
}

// size returns the number of values with keys.
func (ix index) size() int { return len(ix.one) + len(ix.many) }

func (ix index) add(value, key string) {
	if k, ok := ix.one[value]; ok {
		if k != key {
			delete(ix.one, value)
			ix.many[value] = bucket{small: []string{k, key}}
		}
		return
	}
	if b, ok := ix.many[value]; ok {
		b.add(key)
		ix.many[value] = b
		return
	}
	ix.one[value] = key
}

func (ix index) remove(value, key string) {
	if k, ok := ix.one[value]; ok {
		if k == key {
			delete(ix.one, value)
		}
		return
	}
	b, ok := ix.many[value]
	if !ok {
		return
	}
	b.remove(key)
	if b.len() > 1 {
		ix.many[value] = b
		return
	}
	delete(ix.many, value)
	ix.one[value] = b.small[0] // one key left: a large bucket shrank to a slice long before
}

// count returns how many keys value has.
func (ix index) count(value string) int {
	if _, ok := ix.one[value]; ok {
		return 1
	}
	b := ix.many[value]
	return b.len()
}

// appendKeys appends value's keys to dst.
func (ix index) appendKeys(dst []string, value string) []string {
	if k, ok := ix.one[value]; ok {
		return append(dst, k)
	}
	b, ok := ix.many[value]
	if !ok {
		return dst
	}
	if b.large != nil {
		for key := range b.large {
			dst = append(dst, key)
		}
		return dst
	}
	return append(dst, b.small...)
}

// values runs fn and panics on failure; see invariant 6. Panicking before any
// map is touched leaves the store as it was.
func values[T any](name string, fn IndexFunc[T], key string, obj T) []string {
	vals, err := fn(obj)
	if err != nil {
		panic(fmt.Errorf("cache: index %q of object %q: %w", name, key, err))
	}
	return vals
}

// build indexes every object of items with fn into a new index.
func build[T any](name string, fn IndexFunc[T], items map[string]T) index {
	ix := newIndex()
	for key, obj := range items {
		for _, v := range values(name, fn, key, obj) {
			ix.add(v, key)
		}
	}
	return ix
}

// contains reports whether vals holds v. Index value lists are tiny, so a scan
// beats building a set.
func contains(vals []string, v string) bool {
	for _, x := range vals {
		if x == v {
			return true
		}
	}
	return false
}
