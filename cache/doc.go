// Package cache is the informer's local copy of the cluster: a thread-safe
// store of objects, keyed by a caller-supplied key function, with any number of
// named secondary indexes.
//
// It sits at the end of the data path:
//
//	apiclient ─▶ watchstream ─▶ informer (reflector ─▶ fifo ─▶ cache ─▶ handlers)
//	                                                              ▲
//	                                                   listers ───┘ (read-only Reader)
//
// The informer's dispatcher (its processing loop) is the only writer: it applies
// each delta it pops from the fifo with Update or DeleteKey, and a whole relist with
// one Replace, so readers see the list before it or after it, never a mix. Listers and
// controllers read through the [Reader] interface. The package is generic over the
// object type and imports nothing from the rest of zerokube, so it knows nothing of
// HTTP, JSON or Kubernetes types; [NamespaceIndexFunc] takes the namespace getter
// as a function for that reason.
//
// Invariants (each has a test):
//  1. Every read sees the state before or after a whole write, never a half-applied
//     one: an object and its index entries change together (model test).
//  2. Readers wait behind a writer for at most the map assignments of one operation.
//     Writers are serialised by their own mutex and call the key and index functions
//     before taking the readers' lock; Replace and AddIndexers build their new maps
//     outside it and swap them in.
//  3. Index buckets hold exactly the keys whose objects map to that value; an Update
//     moves a key between values, and a bucket that becomes empty is deleted, so the
//     indexes never hold memory for values no object has.
//  4. List, ListKeys, ByIndex, IndexKeys and ListIndexFuncValues return fresh slices
//     the caller owns. The objects in them are the stored ones, shared with every
//     other reader: callers must not mutate them (copy first).
//  5. Per object, the store keeps one map entry plus one index entry per index
//     value. A value with one key is a bare string in the index's map, a value
//     with a few keys a slice, and only a value with many keys a map of its own,
//     so unique-ish indexes (by UID, by owner) do not pay a map per value.
//  6. Index functions must be pure and deterministic: the store re-runs them on the
//     stored object to find its old index entries instead of remembering them. An
//     index function that fails is a programming error: the write panics with the
//     error before anything is changed.
//
// Unlike client-go's thread-safe store there is no Resync method: it was a no-op
// there too. Resync is the fifo's job; it reads the store through GetByKey and
// ListKeys.
package cache
