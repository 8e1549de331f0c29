package shard

import (
	"fmt"
	"strings"
)

// Field is the metadata field whose hash places an object in a shard, in the
// selector's object-rooted syntax (not the fieldSelector syntax
// "metadata.uid").
type Field string

// The fields kube-apiserver v1.37 can shard by.
const (
	// UID spreads objects evenly; an object keeps its uid for life, so it
	// never moves between shards.
	UID Field = "object.metadata.uid"
	// Namespace keeps a namespace's objects together in one shard; it
	// cannot change either. Cluster-scoped objects all hash the empty string.
	Namespace Field = "object.metadata.namespace"
)

func (f Field) valid() bool { return f == UID || f == Namespace }

// Object is what Contains reads of an object. meta.ObjectMeta and
// meta.SlimMeta (and every type embedding them) have both methods.
type Object interface {
	GetNamespace() string
	GetUID() string
}

// Selector is one replica's shard: the field it hashes and the ranges of
// hashes it owns. The zero Selector selects everything (invariant 5);
// an empty Field means UID.
type Selector struct {
	Field  Field
	Ranges []Range
}

// Of returns shard i of n equal shards by uid: "i of N".
func Of(i, n int) (Selector, error) {
	r, err := Split(i, n)
	if err != nil {
		return Selector{}, err
	}
	return Selector{Field: UID, Ranges: []Range{r}}, nil
}

// On returns s hashing field f instead.
func (s Selector) On(f Field) Selector {
	s.Field = f
	return s
}

// IsEverything reports whether s filters nothing: no ranges, as when the
// parameter is absent.
func (s Selector) IsEverything() bool { return len(s.Ranges) == 0 }

func (s Selector) field() Field {
	if s.Field == "" {
		return UID
	}
	return s.Field
}

// Validate reports a selector the server would reject: an unknown field.
// Ranges are valid by construction when built with the functions here.
func (s Selector) Validate() error {
	if !s.field().valid() {
		return fmt.Errorf("shard: unsupported field %q; supported: %s, %s", s.Field, UID, Namespace)
	}
	for _, r := range s.Ranges {
		if r.Start > r.Last {
			return fmt.Errorf("shard: range start %#x is after its last hash %#x", r.Start, r.Last)
		}
	}
	return nil
}

// Value is the string s hashes for obj: its uid or its namespace.
func (s Selector) Value(obj Object) string {
	if s.field() == Namespace {
		return obj.GetNamespace()
	}
	return obj.GetUID()
}

// ContainsHash reports whether a field hash h is in one of s's ranges.
func (s Selector) ContainsHash(h uint64) bool {
	if s.IsEverything() {
		return true
	}
	for _, r := range s.Ranges {
		if r.Contains(h) {
			return true
		}
	}
	return false
}

// Contains reports whether obj belongs to s: exactly the test kube-apiserver
// applies to every object of a sharded list or watch.
func (s Selector) Contains(obj Object) bool {
	if s.IsEverything() {
		return true
	}
	return s.ContainsHash(Hash(s.Value(obj)))
}

// String is the shardSelector parameter: each range as
// shardRange(field, 'start', 'end'), joined by " || ". It is the canonical
// form kube-apiserver echoes in metadata.shardInfo.selector, so a client can
// compare the echo with what it sent. The zero Selector gives "".
func (s Selector) String() string {
	var b strings.Builder
	for i, r := range s.Ranges {
		if i > 0 {
			b.WriteString(" || ")
		}
		fmt.Fprintf(&b, "shardRange(%s, '%s', '%s')", s.field(), r.startHex(), r.endHex())
	}
	return b.String()
}

// Equal reports whether s and o select by the same field with the same
// ranges in the same order.
func (s Selector) Equal(o Selector) bool {
	if s.IsEverything() || o.IsEverything() {
		return s.IsEverything() == o.IsEverything()
	}
	if s.field() != o.field() || len(s.Ranges) != len(o.Ranges) {
		return false
	}
	for i := range s.Ranges {
		if s.Ranges[i] != o.Ranges[i] {
			return false
		}
	}
	return true
}
