package storage

import (
	"slices"

	"github.com/go-json-experiment/json"
)

// fields are the values of an object's selectable fields (its resource's
// FieldSelectors), read once when the object is built, so that a field
// selector is matched without decoding the object: a fleet of per-node
// agents, each listing and watching spec.nodeName=<its node>, otherwise
// costs one decode per stored pod per LIST and two per watcher per event.
// kube-apiserver does the same: its registry computes an object's field
// set (GetAttrs) once and the watch cache keeps it beside the object.
type fields struct {
	names  []string // the resource's FieldSelectors when the object was built
	values []fieldValue
}

// fieldValue is what LookupField returns for one field of the stored JSON.
type fieldValue struct {
	v  string
	ok bool
}

// selectableFields reads res's FieldSelectors from m, the object build is
// about to encode (without kind and apiVersion: they are res's), as
// LookupField reads them from the stored JSON.
func selectableFields(res *Resource, m object) fields {
	if len(res.FieldSelectors) == 0 {
		return fields{}
	}
	f := fields{names: res.FieldSelectors, values: make([]fieldValue, len(res.FieldSelectors))}
	for i, path := range res.FieldSelectors {
		var v fieldValue
		switch path {
		case "kind":
			v = fieldValue{res.Kind, true}
		case "apiVersion":
			v = fieldValue{res.APIVersion(), true}
		default:
			v.v, v.ok = LookupField(m, path)
		}
		f.values[i] = v
	}
	return f
}

// get returns the stored value of field; found is false when the object
// was built without it (a resource whose FieldSelectors changed since).
func (f *fields) get(field string) (v fieldValue, found bool) {
	if i := slices.Index(f.names, field); i >= 0 {
		return f.values[i], true
	}
	return fieldValue{}, false
}

// asJSON returns v as decoding its JSON encoding gives it back: a map,
// slice, string, float64, bool or nil. The maps a write builds hold the
// front's own Go values (an int64 replica count, a []string), which the
// stored JSON holds as numbers and arrays; LookupField reads them as those.
func asJSON(v any) any {
	b, err := json.Marshal(v, deterministic)
	if err != nil {
		return v // build fails to encode it too, so no object holds it
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return v
	}
	return out
}
