package informer

import (
	"github.com/zerokube/zerokube/cache"
	"github.com/zerokube/zerokube/meta"
)

// Lister is a typed read-only view of an informer's cache. Reads see the
// cache as of the last applied delta: it may lag the server by the events
// in flight. Returned objects are shared: never modify them. Each call holds
// the cache's read lock only for its own lookup.
type Lister[P meta.Object] struct {
	r cache.Reader[P]
}

// List returns the cached objects whose labels match sel (all for an empty
// selector), in no particular order.
func (l Lister[P]) List(sel meta.LabelSelector) []P {
	return filter(l.r.List(), sel)
}

// Get returns the object namespace/name ("" namespace for cluster-scoped).
func (l Lister[P]) Get(namespace, name string) (P, bool) {
	return l.r.GetByKey(meta.JoinKey(namespace, name))
}

// ByIndex returns the objects filed under value in the named index.
func (l Lister[P]) ByIndex(index, value string) ([]P, error) { return l.r.ByIndex(index, value) }

// Namespace narrows the lister to one namespace, using the namespace index.
func (l Lister[P]) Namespace(namespace string) NamespaceLister[P] {
	return NamespaceLister[P]{r: l.r, ns: namespace}
}

// NamespaceLister lists and gets within one namespace.
type NamespaceLister[P meta.Object] struct {
	r  cache.Reader[P]
	ns string
}

// List returns the namespace's objects whose labels match sel.
func (l NamespaceLister[P]) List(sel meta.LabelSelector) []P {
	objs, err := l.r.ByIndex(cache.NamespaceIndex, l.ns)
	if err != nil { // the informer always declares the index; a bare reader may not
		objs = nil
		for _, o := range l.r.List() {
			if o.GetNamespace() == l.ns {
				objs = append(objs, o)
			}
		}
	}
	return filter(objs, sel)
}

// Get returns the object name in the namespace.
func (l NamespaceLister[P]) Get(name string) (P, bool) {
	return Lister[P]{r: l.r}.Get(l.ns, name)
}

func filter[P meta.Object](objs []P, sel meta.LabelSelector) []P {
	if sel.Empty() {
		return objs
	}
	out := objs[:0:0]
	for _, o := range objs {
		if sel.Matches(o.GetLabels()) {
			out = append(out, o)
		}
	}
	return out
}
