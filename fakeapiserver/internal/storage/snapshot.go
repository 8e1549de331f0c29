package storage

import (
	"cmp"
	"slices"
	"strings"

	"github.com/zerokube/zerokube/meta"
)

// entry is one object of a snapshot with its sort key.
type entry struct {
	key string
	obj *Object
}

// snapshot is the state of one resource at one resourceVersion, sorted by
// key. Every page of a paginated list is cut from the snapshot its first
// page named, so it is built once per (resource, resourceVersion) and
// shared: a page costs a binary search and the page itself, not a copy and
// a sort of the whole table (which made a paginated list of n objects cost
// O(n²/limit · log n)). Immutable once built.
type snapshot struct {
	res     *Resource
	rv      int64
	entries []entry // sorted by key
}

// scope returns the entries with key >= start, limited to namespace ns when
// ns is set and the resource is namespaced: keys are "namespace/name", so a
// namespace is one contiguous run and its end is the first key at or past
// ns+"0" ('0' follows '/').
func (sn *snapshot) scope(ns, start string) []entry {
	es := sn.entries
	if ns != "" && sn.res.Namespaced {
		lo := sn.search(ns + "/")
		hi := sn.search(ns + "0")
		es = es[lo:hi]
	}
	i, _ := slices.BinarySearchFunc(es, start, func(e entry, k string) int { return strings.Compare(e.key, k) })
	return es[i:]
}

func (sn *snapshot) search(key string) int {
	i, _ := slices.BinarySearchFunc(sn.entries, key, func(e entry, k string) int { return strings.Compare(e.key, k) })
	return i
}

// maxSnapshots bounds the cached snapshots. A reflector's list needs one;
// a few more serve lists that overlap with writes between their pages.
const maxSnapshots = 4

// snapshotCache holds the most recently used snapshots, newest use first.
// Guarded by Store.mu.
type snapshotCache struct {
	recent []*snapshot
}

// expire drops the snapshots older than compacted: their lists are 410
// Gone, and a snapshot must not keep deleted objects alive any longer than
// the history does. Called on every commit, so it is a few comparisons.
func (c *snapshotCache) expire(compacted int64) {
	c.recent = slices.DeleteFunc(c.recent, func(sn *snapshot) bool { return sn.rv < compacted })
}

// get returns the snapshot of res at rv, if cached, and marks it used.
func (c *snapshotCache) get(res *Resource, rv, compacted int64) *snapshot {
	c.expire(compacted)
	for i, sn := range c.recent {
		if sn.res == res && sn.rv == rv {
			copy(c.recent[1:i+1], c.recent[:i])
			c.recent[0] = sn
			return sn
		}
	}
	return nil
}

// put adds sn as the most recently used, evicting the least recently used.
func (c *snapshotCache) put(sn *snapshot) {
	if len(c.recent) == maxSnapshots {
		c.recent[maxSnapshots-1] = nil
		c.recent = c.recent[:maxSnapshots-1]
	}
	c.recent = slices.Insert(c.recent, 0, sn)
}

// snapshotLocked returns the objects of res as they were at rv, sorted by
// key, from the cache or built and cached. Requires s.mu and
// s.hist.compacted <= rv <= s.rv.
func (s *Store) snapshotLocked(res *Resource, rv int64) *snapshot {
	if sn := s.snaps.get(res, rv, s.hist.compacted); sn != nil {
		return sn
	}
	sn := &snapshot{res: res, rv: rv, entries: s.stateLocked(res, rv)}
	s.snaps.put(sn)
	return sn
}

// stateLocked builds the sorted state of res at rv from the table, undoing
// the logged events newer than rv. Requires s.mu.
func (s *Store) stateLocked(res *Resource, rv int64) []entry {
	t := s.tableLocked(res)
	var undo []*event
	for _, e := range s.hist.since(rv) {
		if e.res == res {
			undo = append(undo, e)
		}
	}
	if len(undo) > 0 {
		state := make(map[string]*Object, len(t))
		for k, o := range t {
			state[k] = o
		}
		for i := len(undo) - 1; i >= 0; i-- {
			e := undo[i]
			if e.typ == meta.Added {
				delete(state, e.key)
			} else {
				state[e.key] = e.prev
			}
		}
		t = state
	}
	es := make([]entry, 0, len(t))
	for k, o := range t {
		es = append(es, entry{key: k, obj: o})
	}
	slices.SortFunc(es, func(a, b entry) int { return cmp.Compare(a.key, b.key) })
	return es
}
