package fakeapiserver

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/zerokube/zerokube/fakeapiserver/internal/storage"
	"github.com/zerokube/zerokube/internal/fieldsv1"
	"github.com/zerokube/zerokube/meta"
)

// Server-side apply conflicts, as kube-apiserver reports them
// (structured-merge-diff's Updater.update finds them, apimachinery's
// util/managedfields/internal/conflict.go words them): an apply that would
// change a field another manager owns fails with 409 Conflict, one
// FieldManagerConflict cause per field.

// conflict is one field an apply would take from another manager.
type conflict struct {
	id      string // the manager's identifier, which orders conflicts
	manager string // as messages print it: "a", or "c" using v1
	path    string // as structured-merge-diff prints it: .spec.containers[name="c"].image
}

type conflicts []conflict

// applyConflicts returns the fields of changed (what an apply by wm changes)
// that the other managers in entries own, ordered by manager identifier,
// then path.
func applyConflicts(res *Resource, wm writeMeta, entries []any, changed *fieldsv1.Set) conflicts {
	sub := ""
	if wm.status {
		sub = "status"
	}
	var out conflicts
	for _, x := range entries {
		e, _ := x.(map[string]any)
		if e == nil {
			continue
		}
		op, sr := storage.Str(e, "operation"), storage.Str(e, "subresource")
		if e["manager"] == wm.manager && op == "Apply" && sr == sub {
			continue // the applier's own apply entry
		}
		fs, _ := e["fieldsV1"].(map[string]any)
		both := fieldsv1.FromMap(fs).Intersect(changed)
		if both.Empty() {
			continue
		}
		id, printed := managerIdentity(storage.Str(e, "manager"), op, storage.Str(e, "apiVersion"), sr)
		for _, p := range both.Paths() {
			out = append(out, conflict{id: id, manager: printed, path: fieldPath(p)})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// managerIdentity returns a managedFields entry's identifier (the entry
// without time and fields, and without apiVersion for an applier, as JSON:
// BuildManagerIdentifier) and how conflict messages print it.
func managerIdentity(manager, operation, apiVersion, subresource string) (id, printed string) {
	if operation == "Apply" {
		apiVersion = ""
	}
	b, _ := json.Marshal(struct {
		Manager     string `json:"manager,omitempty"`
		Operation   string `json:"operation,omitempty"`
		APIVersion  string `json:"apiVersion,omitempty"`
		Subresource string `json:"subresource,omitempty"`
	}{manager, operation, apiVersion, subresource})
	printed = strconv.Quote(manager)
	if subresource != "" {
		printed += " with subresource " + strconv.Quote(subresource)
	}
	if operation == "Update" {
		printed += " using " + apiVersion
	}
	return string(b), printed
}

// fieldPath prints a FieldsV1 path as structured-merge-diff's Path.String:
// ".field", `[key="value",port=80]` for a keyed list item, "[=value]" for a
// set member.
func fieldPath(names []string) string {
	var b strings.Builder
	for _, n := range names {
		kind, rest, _ := strings.Cut(n, ":")
		switch kind {
		case "f":
			b.WriteString("." + rest)
		case "k":
			var key map[string]any
			_ = json.Unmarshal([]byte(rest), &key)
			ks := make([]string, 0, len(key))
			for k := range key {
				ks = append(ks, k)
			}
			sort.Strings(ks)
			for i, k := range ks {
				ks[i] = k + "=" + valueString(key[k])
			}
			b.WriteString("[" + strings.Join(ks, ",") + "]")
		default: // "v:" (a set member) and this package's "i:" (an item without key)
			var v any
			_ = json.Unmarshal([]byte(rest), &v)
			b.WriteString("[=" + valueString(v) + "]")
		}
	}
	return b.String()
}

// valueString prints a key's value as structured-merge-diff's
// value.ToString: strings quoted, numbers and booleans bare.
func valueString(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case nil:
		return "null"
	}
	return fmt.Sprint(v)
}

// err is the 409 of an apply with conflicts: the message names each field
// and its manager (grouped by manager when there are several), the causes
// one field each.
func (c conflicts) err() *meta.StatusError {
	causes := make([]meta.StatusCause, len(c))
	for i, x := range c {
		causes[i] = meta.StatusCause{Type: "FieldManagerConflict", Message: "conflict with " + x.manager, Field: x.path}
	}
	var msg string
	if len(c) == 1 {
		msg = fmt.Sprintf("Apply failed with 1 conflict: conflict with %s: %s", c[0].manager, c[0].path)
	} else {
		var lines []string
		for i, x := range c {
			if i == 0 || c[i-1].id != x.id {
				lines = append(lines, "conflicts with "+x.manager+":")
			}
			lines = append(lines, "- "+x.path)
		}
		msg = fmt.Sprintf("Apply failed with %d conflicts: %s", len(c), strings.Join(lines, "\n"))
	}
	e := meta.NewStatusError(http.StatusConflict, meta.ReasonConflict, msg)
	e.Status.Details = &meta.StatusDetails{Causes: causes}
	return e
}
