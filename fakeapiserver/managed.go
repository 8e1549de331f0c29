package fakeapiserver

import (
	"reflect"
	"sort"
	"time"

	"github.com/zerokube/zerokube/fakeapiserver/internal/storage"
	"github.com/zerokube/zerokube/internal/fieldsv1"
)

// managedFields records field ownership as kube-apiserver's field manager
// does (k8s.io/apiserver endpoints/handlers/fieldmanager, apimachinery
// util/managedfields): one entry per manager, operation, apiVersion and
// subresource, with the FieldsV1 set of the fields that manager set.
// Checked against a real v1.37 server by conformance fields/managed-fields.
//
// Server-side apply refuses to change a field another manager owns (409
// Conflict, one FieldManagerConflict cause per field, conflicts.go) unless
// forced, when the applier takes the fields over; applying a value a field
// already has shares its ownership; a field the applier applied before and
// no longer applies is removed unless another manager owns it (prune.go).
// Entries a client sends are kept as they are on create (the benchmark
// workload's realistic entries stay as generated).

// mapFields are the fields of the built-in kinds whose type is a map
// (which own themselves in a set, "."), not a struct. The fake has no
// schemas; a field of these names is a map wherever it is (a Service's
// spec.selector is, a Deployment's is a struct and gets no ".").
var mapFields = fieldsv1.Maps{"labels": true, "annotations": true, "data": true, "binaryData": true,
	"stringData": true, "nodeSelector": true, "limits": true, "requests": true, "matchLabels": true,
	"capacity": true, "allocatable": true}

// strippedForOwnership is obj without what no manager owns: apiVersion,
// kind and the metadata the server sets (apimachinery's stripmeta), and
// the status on the main resource of a kind with a status subresource,
// or all but the status on /status (the strategies' reset fields).
func strippedForOwnership(res *Resource, wm writeMeta, obj object) object {
	c := make(object, len(obj))
	for k, v := range obj {
		c[k] = v
	}
	delete(c, "apiVersion")
	delete(c, "kind")
	if md, ok := c["metadata"].(map[string]any); ok {
		m := make(map[string]any, len(md))
		for k, v := range md {
			switch k {
			case "name", "namespace", "creationTimestamp", "selfLink", "uid", "generation", "managedFields", "resourceVersion":
			default:
				m[k] = v
			}
		}
		c["metadata"] = m
	}
	if res.StatusSubresource {
		if wm.status {
			if c["status"] == nil {
				return object{} // none yet: a first status write adds its fields
			}
			return object{"status": c["status"]}
		}
		delete(c, "status")
	}
	return c
}

// recordCreate sets the managedFields of a new object: its creator owns
// every field it set, defaults included. Entries the client sent are kept.
func (s *Server) recordCreate(res *Resource, wm writeMeta, m object) {
	md := storage.MetadataOf(m)
	if entries, _ := md["managedFields"].([]any); len(entries) > 0 {
		return
	}
	set := fieldsv1.Added(object{}, strippedForOwnership(res, wm, m), mapFields)
	if wm.applied != nil {
		// An applier owns what it applied, not the defaults.
		set = fieldsv1.Whole(strippedForOwnership(res, wm, wm.applied))
	}
	set.Disown("f:metadata")
	setEntries(md, s.entries(res, wm, nil, set, nil, nil))
}

// setEntries sets md's managedFields, or removes them when there are none
// (a create that sets no field but the name): kube-apiserver's ObjectMeta
// leaves an empty list out (omitempty; observed on v1.37.2, conformance
// writes/empty-lists-and-maps).
func setEntries(md object, entries []any) {
	if len(entries) == 0 {
		delete(md, "managedFields")
		return
	}
	md["managedFields"] = entries
}

// recordUpdate updates the managedFields of old becoming cur: the writer
// gains what it added or changed, every other manager loses it (an update
// always wins), and every manager loses what is gone. A write that changes
// nothing keeps the old entries, timestamps included, so that it stays a
// no-op. applied, for an Apply, is the applied configuration: its manager
// owns exactly its fields, and changing one another manager owns is a
// conflict unless wm.force.
func (s *Server) recordUpdate(res *Resource, wm writeMeta, old, cur, applied object) error {
	md, om := storage.MetadataOf(cur), storage.MetadataOf(old)
	base, _ := om["managedFields"].([]any)
	if sent, ok := md["managedFields"].([]any); ok && len(sent) > 0 && !reflect.DeepEqual(sent, base) {
		base = sent // a client may set managedFields itself
	}
	so, sc := strippedForOwnership(res, wm, old), strippedForOwnership(res, wm, cur)
	added, removed := fieldsv1.Added(so, sc, mapFields), fieldsv1.Removed(so, sc)
	added.Disown("f:metadata")
	var own *fieldsv1.Set
	if applied != nil {
		if c := applyConflicts(res, wm, base, added); len(c) > 0 && !wm.force {
			return c.err()
		}
		// Forced, the others lose what changed (what they owned of it is
		// what conflicted); otherwise they own none of it, and keep what
		// was applied at the value they had set: shared ownership.
		own = fieldsv1.Whole(strippedForOwnership(res, wm, applied))
		own.Disown("f:metadata")
	}
	next := s.entries(res, wm, base, added, removed, own)
	if sameButTimes(next, om["managedFields"]) {
		// As kube-apiserver's IgnoreManagedFieldsTimestampsTransformer: a
		// write that changes no ownership keeps the old timestamps, so one
		// that changes nothing else stays a no-op.
		setOrDelete(md, "managedFields", om["managedFields"])
		return nil
	}
	setEntries(md, next)
	return nil
}

// sameButTimes reports whether two managedFields lists differ at most in
// their entries' times.
func sameButTimes(a []any, b any) bool {
	bl, _ := b.([]any)
	if len(a) != len(bl) {
		return false
	}
	for i := range a {
		x, _ := a[i].(map[string]any)
		y, _ := bl[i].(map[string]any)
		if len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if k != "time" && !reflect.DeepEqual(normalize(v), normalize(y[k])) {
				return false
			}
		}
	}
	return true
}

// entries returns base with wm's entry gaining add (or becoming own, for
// an Apply), everyone losing remove, and the others losing add; empty
// entries are dropped, and the rest sorted as kube-apiserver sorts them:
// by operation, time, manager, apiVersion, subresource.
func (s *Server) entries(res *Resource, wm writeMeta, base []any, add, remove, own *fieldsv1.Set) []any {
	sub := ""
	if wm.status {
		sub = "status"
	}
	mine := func(e map[string]any) bool {
		return e["manager"] == wm.manager && e["operation"] == wm.operation &&
			e["apiVersion"] == res.APIVersion() && storage.Str(e, "subresource") == sub
	}
	var out []any
	mineSet := &fieldsv1.Set{}
	var mineTime any
	for _, x := range base {
		e, ok := x.(map[string]any)
		if !ok {
			continue
		}
		fs, _ := e["fieldsV1"].(map[string]any)
		set := fieldsv1.FromMap(fs)
		if mine(e) {
			mineSet, mineTime = set, e["time"]
			continue
		}
		set.Subtract(add)
		set.Subtract(remove)
		if set.Empty() {
			continue
		}
		c := make(map[string]any, len(e))
		for k, v := range e {
			c[k] = v
		}
		c["fieldsV1"] = set.ToMap()
		out = append(out, c)
	}
	var when any = s.now().UTC().Format(time.RFC3339)
	if own != nil {
		mineSet = own
		if add.Empty() && remove.Empty() {
			// An apply that changes the object stamps no time (the
			// managedFieldsUpdater's Apply): a new entry has none.
			when = mineTime
		}
	} else {
		mineSet.Union(add)
		mineSet.Subtract(remove)
	}
	if !mineSet.Empty() {
		e := map[string]any{"manager": wm.manager, "operation": wm.operation, "apiVersion": res.APIVersion(),
			"fieldsType": "FieldsV1", "fieldsV1": mineSet.ToMap()}
		setOrDelete(e, "time", when)
		if sub != "" {
			e["subresource"] = sub
		}
		out = append(out, e)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].(map[string]any), out[j].(map[string]any)
		for _, k := range []string{"operation", "time", "manager", "apiVersion", "subresource"} {
			if x, y := storage.Str(a, k), storage.Str(b, k); x != y {
				return x < y
			}
		}
		return false
	})
	return out
}
