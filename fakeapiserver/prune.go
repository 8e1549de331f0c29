package fakeapiserver

import (
	"github.com/go-json-experiment/json"

	"github.com/zerokube/zerokube/fakeapiserver/internal/storage"
	"github.com/zerokube/zerokube/internal/fieldsv1"
)

// pruneUnapplied removes from merged (cur with an apply by wm merged in;
// both may be the same map) the fields wm's manager applied last time, does not apply now, and no
// manager owns: what structured-merge-diff's Updater.prune takes out, so
// that dropping a field from an applied configuration removes it unless
// someone else set it too.
func pruneUnapplied(res *Resource, wm writeMeta, cur, merged object) object {
	entries, _ := storage.MetadataOf(cur)["managedFields"].([]any)
	sub := ""
	if wm.status {
		sub = "status"
	}
	last, owned := &fieldsv1.Set{}, ownedBy(res, wm, wm.applied)
	for _, x := range entries {
		e, _ := x.(map[string]any)
		fs, _ := e["fieldsV1"].(map[string]any)
		if e["manager"] == wm.manager && e["operation"] == "Apply" && storage.Str(e, "subresource") == sub {
			last = fieldsv1.FromMap(fs)
			continue
		}
		owned.Union(fieldsv1.FromMap(fs))
	}
	// A field is taken out whole when nobody owns anything under it
	// (labels, once the last applied label goes), but never metadata,
	// which no set owns itself.
	last = last.NodesOwned()
	last.Disown("f:metadata")
	gone := fieldsv1.Difference(last, owned)
	for _, p := range gone.Paths() {
		if !owned.Under(p) {
			merged, _ = removePath(merged, p).(map[string]any)
		}
	}
	return merged
}

// ownedBy is the set an apply of applied makes its manager own.
func ownedBy(res *Resource, wm writeMeta, applied object) *fieldsv1.Set {
	own := fieldsv1.Whole(strippedForOwnership(res, wm, applied))
	own.Disown("f:metadata")
	return own
}

// removePath returns v without the field or list item at path (FieldsV1
// member names); v is changed in place where it can be.
func removePath(v any, path []string) any {
	if len(path) == 0 {
		return v
	}
	name, last := path[0], len(path) == 1
	switch x := v.(type) {
	case map[string]any:
		if len(name) < 2 || name[:2] != "f:" {
			return v
		}
		k := name[2:]
		if _, ok := x[k]; !ok {
			return v
		}
		if last {
			delete(x, k)
		} else {
			x[k] = removePath(x[k], path[1:])
		}
		return x
	case []any:
		for i, item := range x {
			b, err := json.Marshal(item, json.Deterministic(true))
			if err != nil || fieldsv1.ItemKey(b) != name {
				continue
			}
			if last {
				return append(x[:i:i], x[i+1:]...)
			}
			x[i] = removePath(item, path[1:])
			return x
		}
	}
	return v
}
