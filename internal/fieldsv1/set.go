package fieldsv1

import (
	"bytes"
	"slices"
	"sort"
)

// Set is a FieldsV1 tree for a server that computes ownership: which
// fields of an object a manager set. A node is owned itself (a leaf field,
// or "." beside its members) and holds members by name: "f:<field>",
// "k:{…}" (a list item by its key), "i:{…}" (a list item without one).
// The zero value is the empty set.
type Set struct {
	self    bool
	members map[string]*Set
}

func (s *Set) member(name string) *Set {
	if s.members == nil {
		s.members = map[string]*Set{}
	}
	m := s.members[name]
	if m == nil {
		m = &Set{}
		s.members[name] = m
	}
	return m
}

// Empty reports whether s owns nothing.
func (s *Set) Empty() bool { return s == nil || (!s.self && len(s.members) == 0) }

// Disown drops the ownership of the member name itself (not of what is
// under it), and the member when that leaves it empty: how the server
// keeps "metadata" out of every set.
func (s *Set) Disown(name string) {
	if m := s.members[name]; m != nil {
		m.self = false
		if m.Empty() {
			delete(s.members, name)
		}
	}
}

// Drop removes the member name and everything under it.
func (s *Set) Drop(name string) { delete(s.members, name) }

// Keep removes every member but name.
func (s *Set) Keep(name string) {
	for k := range s.members {
		if k != name {
			delete(s.members, k)
		}
	}
}

// Union adds o's paths to s.
func (s *Set) Union(o *Set) {
	if o == nil {
		return
	}
	s.self = s.self || o.self
	for name, om := range o.members {
		s.member(name).Union(om)
	}
}

// Subtract removes o's paths from s; a path o owns whole (a leaf) takes
// s's subtree with it.
func (s *Set) Subtract(o *Set) {
	if o == nil {
		return
	}
	for name, om := range o.members {
		sm := s.members[name]
		if sm == nil {
			continue
		}
		if om.self && len(om.members) == 0 {
			delete(s.members, name)
			continue
		}
		if om.self {
			sm.self = false
		}
		sm.Subtract(om)
		if sm.Empty() {
			delete(s.members, name)
		}
	}
}

// FromMap reads a decoded fieldsV1 value (nil: the empty set).
func FromMap(m map[string]any) *Set {
	s := &Set{}
	for name, v := range m {
		if name == "." {
			s.self = true
			continue
		}
		sub, _ := v.(map[string]any)
		c := FromMap(sub)
		if len(sub) == 0 {
			c.self = true
		}
		s.member(name).Union(c)
	}
	return s
}

// ToMap is s as a fieldsV1 value: leaves are {}, an owned node with
// members has "." among them.
func (s *Set) ToMap() map[string]any {
	out := make(map[string]any, len(s.members)+1)
	if s.self && len(s.members) > 0 {
		out["."] = map[string]any{}
	}
	for name, m := range s.members {
		out[name] = m.ToMap()
	}
	return out
}

// Names returns the member names, sorted as a FieldsV1 encoding sorts them.
func (s *Set) Names() []string {
	names := make([]string, 0, len(s.members))
	for n := range s.members {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Maps names the fields whose values are maps in the kind's schema
// (labels, data, …), not structs (spec, metadata, …): a new map owns
// itself ("."), a new struct does not. Nil means every object is a map, as
// for a kind without a schema.
type Maps map[string]bool

func (m Maps) dot(field string) bool { return m == nil || m[field] }

// Added returns the set of what an update from old to cur sets: every
// field that is new (with everything under it; maps and list items own
// themselves, "."), and every leaf whose value changed. Lists whose items
// are all objects are merged by item key; other lists are leaves. Paths
// that are gone are Removed's.
func Added(old, cur map[string]any, maps Maps) *Set {
	s := &Set{}
	addObject(s, old, cur, maps)
	return s
}

func addObject(s *Set, old, cur map[string]any, maps Maps) {
	for k, cv := range cur {
		name := "f:" + k
		ov, had := old[k]
		switch {
		case !had:
			s.member(name).Union(whole(cv, maps.dot(k), maps))
		default:
			addValue(s, name, ov, cv, maps)
		}
	}
}

func addValue(s *Set, name string, ov, cv any, maps Maps) {
	om, oOK := ov.(map[string]any)
	cm, cOK := cv.(map[string]any)
	if oOK && cOK && len(cm) > 0 {
		sub := &Set{}
		addObject(sub, om, cm, maps)
		if !sub.Empty() {
			s.member(name).Union(sub)
		}
		return
	}
	oi, oKeyed := keyedItems(ov)
	ci, cKeyed := keyedItems(cv)
	if oKeyed && cKeyed {
		sub := &Set{}
		for key, item := range ci {
			if prev, ok := oi[key]; ok {
				inner := &Set{}
				addObject(inner, prev, item, maps)
				if !inner.Empty() {
					sub.member(key).Union(inner)
				}
				continue
			}
			sub.member(key).Union(whole(item, true, maps))
		}
		if !sub.Empty() {
			s.member(name).Union(sub)
		}
		return
	}
	if !bytes.Equal(mustMarshal(ov), mustMarshal(cv)) {
		s.member(name).self = true
	}
}

// Removed returns the paths of old that cur no longer has, each whole.
func Removed(old, cur map[string]any) *Set {
	s := &Set{}
	for k, ov := range old {
		name := "f:" + k
		cv, has := cur[k]
		if !has {
			s.member(name).self = true
			continue
		}
		om, oOK := ov.(map[string]any)
		cm, cOK := cv.(map[string]any)
		if oOK && cOK {
			if sub := Removed(om, cm); !sub.Empty() {
				s.member(name).Union(sub)
			}
			continue
		}
		oi, oKeyed := keyedItems(ov)
		ci, cKeyed := keyedItems(cv)
		if oKeyed && cKeyed {
			for key, item := range oi {
				if now, ok := ci[key]; !ok {
					s.member(name).member(key).self = true
				} else if sub := Removed(item, now); !sub.Empty() {
					s.member(name).member(key).Union(sub)
				}
			}
		}
	}
	return s
}

// Whole returns the set of every field of v as an applied configuration
// records it: list items own themselves ("."), maps do not.
func Whole(v map[string]any) *Set {
	s := whole(v, false, Maps{})
	s.self = false
	return s
}

// whole is the set of every field of v, v owning itself when self.
func whole(v any, self bool, maps Maps) *Set {
	if m, ok := v.(map[string]any); ok && len(m) > 0 {
		s := &Set{self: self, members: make(map[string]*Set, len(m))}
		for k, x := range m {
			s.members["f:"+k] = whole(x, maps.dot(k), maps)
		}
		return s
	}
	if items, ok := keyedItems(v); ok && len(items) > 0 {
		s := &Set{members: make(map[string]*Set, len(items))}
		for key, item := range items {
			s.members[key] = whole(item, true, maps)
		}
		return s
	}
	return &Set{self: true}
}

// keyedItems returns a list's items by their member names when every item
// is an object; false for anything else.
func keyedItems(v any) (map[string]map[string]any, bool) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil, false
	}
	out := make(map[string]map[string]any, len(list))
	for _, it := range list {
		m, ok := it.(map[string]any)
		if !ok {
			return nil, false
		}
		out[itemKey(mustMarshal(m))] = m
	}
	return out, true
}

// Intersect returns the paths that both s and o own: how server-side apply
// finds the fields an applier would change under another manager.
func (s *Set) Intersect(o *Set) *Set {
	out := &Set{}
	if s == nil || o == nil {
		return out
	}
	out.self = s.self && o.self
	for name, sm := range s.members {
		if om := o.members[name]; om != nil {
			if c := sm.Intersect(om); !c.Empty() {
				out.member(name).Union(c)
			}
		}
	}
	return out
}

// Paths returns every owned path as its member names from the root, in the
// order structured-merge-diff's Set.Iterate visits them: at each node first
// the members owned themselves, by name, then the paths under each member,
// by name.
func (s *Set) Paths() [][]string {
	var out [][]string
	s.appendPaths(nil, &out)
	return out
}

func (s *Set) appendPaths(prefix []string, out *[][]string) {
	names := s.Names()
	for _, n := range names {
		if s.members[n].self {
			*out = append(*out, append(slices.Clone(prefix), n))
		}
	}
	for _, n := range names {
		s.members[n].appendPaths(append(slices.Clone(prefix), n), out)
	}
}

// Difference returns the paths a owns and b does not.
func Difference(a, b *Set) *Set {
	out := &Set{}
	if a == nil {
		return out
	}
	out.self = a.self && (b == nil || !b.self)
	for name, am := range a.members {
		var bm *Set
		if b != nil {
			bm = b.members[name]
		}
		if c := Difference(am, bm); !c.Empty() {
			out.member(name).Union(c)
		}
	}
	return out
}

// Under reports whether s owns path (member names from the root) or
// anything below it.
func (s *Set) Under(path []string) bool {
	n := s
	for _, name := range path {
		if n = n.members[name]; n == nil {
			return false
		}
	}
	return !n.Empty()
}

// NodesOwned returns a copy of s in which every node below the root owns
// itself: structured-merge-diff's EnsureNamedFieldsAreMembers, which makes
// a struct's fields members of a set so that pruning can remove them
// whole (without schemas every object is taken for a struct; a map's
// entries are leaves already).
func (s *Set) NodesOwned() *Set {
	out := &Set{}
	for name, m := range s.members {
		c := m.NodesOwned()
		c.self = true
		out.member(name).Union(c)
	}
	return out
}
