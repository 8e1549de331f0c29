// Package shard splits a resource between N informer replicas the way
// kube-apiserver's shard selectors do (KEP-5866, alpha since Kubernetes 1.36,
// feature gate ShardedListAndWatch, off by default).
//
// An object belongs to a shard when the 64-bit FNV-1a hash of one of its
// metadata fields (its uid by default, or its namespace) falls in one of the
// shard's ranges. A range is half-open, [start, end), over [0, 2^64); the
// exclusive end of the top range is 2^64 itself. On the wire a shard is the
// query parameter
//
//	shardSelector=shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')
//
// with several ranges joined by "||".
//
// It sits beside the data path, below everything that uses it:
//
//	shard ◀─ apiclient (the shardSelector parameter)
//	shard ◀─ fakeapiserver (filters lists and watches like the real gate)
//	shard ◀─ informer (sends the selector, and applies the same filter itself
//	                   when the server ignores it)
//
// and imports nothing but the standard library. A server that honours the
// selector answers a sharded LIST with metadata.shardInfo.selector; one that
// does not (the gate off, or a server older than 1.36) ignores the parameter
// and sends everything. Because [Selector.Contains] computes exactly what the
// server computes, an informer that filters on its own ends up with the same
// shard either way.
//
// Invariants:
//  1. [Hash] is FNV-1a 64 of the field's bytes, as hash/fnv.New64a computes it
//     and as kube-apiserver's k8s.io/apimachinery/pkg/sharding.HashField does.
//  2. A [Range] never holds an empty or inverted interval: Start <= Last. Its
//     wire end is Last+1, which is 2^64 for the top range (see [Range]).
//  3. [Split] of N covers [0, 2^64) exactly once: every hash is in exactly
//     one of the N shards, so the union of N replicas is the whole resource
//     and no object is in two of them.
//  4. [Parse] accepts what kube-apiserver v1.37 accepts and [Selector.String]
//     writes the canonical form that server echoes in shardInfo:
//     Parse(s.String()) == s, and String of a parsed selector is the server's
//     echo of it.
//  5. The zero [Selector] selects everything, as an absent parameter does.
package shard
