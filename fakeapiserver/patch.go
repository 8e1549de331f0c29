package fakeapiserver

import (
	"errors"
	"fmt"
	"mime"
	"reflect"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/zerokube/zerokube/fakeapiserver/internal/storage"
	"github.com/zerokube/zerokube/meta"
	"go.yaml.in/yaml/v3"
)

func errUnsupportedPatch(pt meta.PatchType) *meta.StatusError {
	return meta.NewStatusError(415, "UnsupportedMediaType",
		fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: %s, %s, %s (got %q)",
			meta.JSONPatch, meta.MergePatch, meta.StrategicMergePatch, pt))
}

// errUnsupportedCustomPatch is kube-apiserver's answer to a strategic
// merge patch of a custom resource, which has no Go type to take merge
// keys from (apiextensions-apiserver's crdHandler).
func errUnsupportedCustomPatch(pt meta.PatchType) *meta.StatusError {
	return meta.NewStatusError(415, "UnsupportedMediaType",
		fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: %s, %s, %s (got %q)",
			meta.JSONPatch, meta.MergePatch, meta.ApplyPatch, pt))
}

// applyPatch applies patch to cur (which it may modify) and returns the
// result. A strategic merge patch needs res's merge keys (strategic.go).
func applyPatch(res *Resource, pt meta.PatchType, cur object, patch []byte) (object, error) {
	mt, _, _ := mime.ParseMediaType(string(pt))
	switch meta.PatchType(mt) {
	case meta.MergePatch, meta.StrategicMergePatch:
		schema, known := smpSchemas[res.GVR]
		if meta.PatchType(mt) == meta.StrategicMergePatch && !known {
			return nil, errUnsupportedCustomPatch(pt)
		}
		p, err := storage.DecodeObject(patch)
		if err != nil {
			return nil, errBadRequest("%v", err)
		}
		if meta.PatchType(mt) == meta.StrategicMergePatch {
			out, err := strategicMerge(cur, p, schema)
			if err == nil {
				// Labels and annotations are omitempty maps: "$patch":
				// "delete" leaves none, not {}.
				md, _ := out["metadata"].(map[string]any)
				for _, k := range []string{"labels", "annotations"} {
					if v, ok := md[k].(map[string]any); ok && len(v) == 0 {
						delete(md, k)
					}
				}
			}
			return out, err
		}
		out, err := mergePatch(cur, p, false)
		if err != nil {
			return nil, err
		}
		m, ok := out.(map[string]any)
		if !ok {
			return nil, errBadRequest("the patch turned the object into a non-object")
		}
		return m, nil
	case meta.JSONPatch:
		var ops []jsonPatchOp
		if err := json.Unmarshal(patch, &ops, jsontext.AllowInvalidUTF8(true)); err != nil {
			return nil, errBadRequest("decode JSON patch: %v", err)
		}
		var doc any = cur
		for i, op := range ops {
			var err error
			if doc, err = op.apply(doc); err != nil {
				return nil, meta.NewStatusError(422, meta.ReasonInvalid, fmt.Sprintf("JSON patch operation %d (%s %s): %v", i, op.Op, op.Path, err))
			}
		}
		m, ok := doc.(map[string]any)
		if !ok {
			return nil, errBadRequest("the patch turned the object into a non-object")
		}
		return m, nil
	}
	return nil, errUnsupportedPatch(pt)
}

// mergePatch is RFC 7386. With byName set (server-side apply's merge of an
// applied configuration, apply below) lists of objects that all carry a
// "name" are merged by name, and a key starting with "$" is refused: an
// applied configuration has no strategic-merge directives, and a key the
// schema would drop must not be stored.
func mergePatch(target any, patch any, byName bool) (any, error) {
	pm, ok := patch.(map[string]any)
	if !ok {
		return patch, nil
	}
	tm, ok := target.(map[string]any)
	if !ok {
		tm = map[string]any{}
	}
	for k, v := range pm {
		if byName && strings.HasPrefix(k, "$") {
			return nil, errBadRequest("%s is a strategic merge patch directive, which an applied configuration cannot hold", k)
		}
		if v == nil {
			delete(tm, k)
			continue
		}
		if byName {
			merged, ok, err := mergeByName(tm[k], v)
			if err != nil {
				return nil, err
			}
			if ok {
				tm[k] = merged
				continue
			}
		}
		merged, err := mergePatch(tm[k], v, byName)
		if err != nil {
			return nil, err
		}
		tm[k] = merged
	}
	return tm, nil
}

// mergeByName merges two lists of named objects element by element; ok is
// false when they are not both such lists.
func mergeByName(target, patch any) (out []any, ok bool, err error) {
	tl, ok1 := target.([]any)
	pl, ok2 := patch.([]any)
	if !ok1 || !ok2 || !allNamed(tl) || !allNamed(pl) {
		return nil, false, nil
	}
	out = append([]any(nil), tl...)
	for _, p := range pl {
		pm := p.(map[string]any)
		found := false
		for i, t := range out {
			if t.(map[string]any)["name"] == pm["name"] {
				merged, err := mergePatch(t, pm, true)
				if err != nil {
					return nil, false, err
				}
				out[i], found = merged, true
			}
		}
		if !found {
			out = append(out, pm)
		}
	}
	return out, true, nil
}

func allNamed(l []any) bool {
	for _, e := range l {
		m, ok := e.(map[string]any)
		if !ok {
			return false
		}
		if _, ok := m["name"].(string); !ok {
			return false
		}
	}
	return true
}

// jsonPatchOp is one RFC 6902 operation.
type jsonPatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	From  string `json:"from,omitempty"`
	Value any    `json:"value"`
}

func (op jsonPatchOp) apply(doc any) (any, error) {
	switch op.Op {
	case "add":
		return pointerSet(doc, op.Path, op.Value, true)
	case "replace":
		if _, err := pointerGet(doc, op.Path); err != nil {
			return nil, err
		}
		return pointerSet(doc, op.Path, op.Value, false)
	case "remove":
		return pointerRemove(doc, op.Path)
	case "test":
		v, err := pointerGet(doc, op.Path)
		if err != nil {
			return nil, err
		}
		if !reflect.DeepEqual(normalize(v), normalize(op.Value)) {
			return nil, fmt.Errorf("test failed")
		}
		return doc, nil
	case "move", "copy":
		v, err := pointerGet(doc, op.From)
		if err != nil {
			return nil, err
		}
		if op.Op == "move" {
			if doc, err = pointerRemove(doc, op.From); err != nil {
				return nil, err
			}
		} else {
			v = deepCopy(v)
		}
		return pointerSet(doc, op.Path, v, true)
	}
	return nil, fmt.Errorf("unknown operation %q", op.Op)
}

func deepCopy(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

func splitPointer(p string) ([]string, error) {
	if p == "" {
		return nil, nil
	}
	if p[0] != '/' {
		return nil, fmt.Errorf("invalid JSON pointer %q", p)
	}
	parts := strings.Split(p[1:], "/")
	for i, s := range parts {
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	}
	return parts, nil
}

func pointerGet(doc any, p string) (any, error) {
	parts, err := splitPointer(p)
	if err != nil {
		return nil, err
	}
	cur := doc
	for _, k := range parts {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[k]
			if !ok {
				return nil, fmt.Errorf("path %q not found", p)
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(c) {
				return nil, fmt.Errorf("index %q out of range", k)
			}
			cur = c[i]
		default:
			return nil, fmt.Errorf("path %q not found", p)
		}
	}
	return cur, nil
}

// pointerSet sets (or for add on arrays, inserts) value at p.
func pointerSet(doc any, p string, value any, insert bool) (any, error) {
	parts, err := splitPointer(p)
	if err != nil {
		return nil, err
	}
	if len(parts) == 0 {
		return value, nil
	}
	return setIn(doc, parts, value, insert)
}

func setIn(cur any, parts []string, value any, insert bool) (any, error) {
	k, last := parts[0], len(parts) == 1
	switch c := cur.(type) {
	case map[string]any:
		if last {
			c[k] = value
			return c, nil
		}
		child, ok := c[k]
		if !ok {
			return nil, fmt.Errorf("path element %q not found", k)
		}
		v, err := setIn(child, parts[1:], value, insert)
		c[k] = v
		return c, err
	case []any:
		i := len(c)
		if k != "-" {
			var err error
			if i, err = strconv.Atoi(k); err != nil || i < 0 || i > len(c) || (!insert && i == len(c)) {
				return nil, fmt.Errorf("index %q out of range", k)
			}
		}
		if !last {
			if i == len(c) {
				return nil, fmt.Errorf("index %q out of range", k)
			}
			v, err := setIn(c[i], parts[1:], value, insert)
			c[i] = v
			return c, err
		}
		if !insert {
			c[i] = value
			return c, nil
		}
		c = append(c, nil)
		copy(c[i+1:], c[i:])
		c[i] = value
		return c, nil
	}
	return nil, fmt.Errorf("path element %q not found", k)
}

func pointerRemove(doc any, p string) (any, error) {
	parts, err := splitPointer(p)
	if err != nil || len(parts) == 0 {
		return nil, fmt.Errorf("cannot remove %q", p)
	}
	parent, err := pointerGet(doc, "/"+strings.Join(escapeAll(parts[:len(parts)-1]), "/"))
	if len(parts) == 1 {
		parent, err = doc, nil
	}
	if err != nil {
		return nil, err
	}
	k := parts[len(parts)-1]
	switch c := parent.(type) {
	case map[string]any:
		if _, ok := c[k]; !ok {
			return nil, fmt.Errorf("path %q not found", p)
		}
		delete(c, k)
		return doc, nil
	case []any:
		i, err := strconv.Atoi(k)
		if err != nil || i < 0 || i >= len(c) {
			return nil, fmt.Errorf("index %q out of range", k)
		}
		c = append(c[:i], c[i+1:]...)
		if len(parts) == 1 {
			return c, nil
		}
		return pointerSet(doc, "/"+strings.Join(escapeAll(parts[:len(parts)-1]), "/"), c, false)
	}
	return nil, fmt.Errorf("path %q not found", p)
}

func escapeAll(parts []string) []string {
	out := make([]string, len(parts))
	for i, s := range parts {
		out[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
	}
	return out
}

func isApply(pt meta.PatchType) bool {
	mt, _, _ := mime.ParseMediaType(string(pt))
	return meta.PatchType(mt) == meta.ApplyPatch
}

// apply is server-side apply without schemas: the applied configuration
// creates the object when it is missing, and is otherwise merged into it as
// a strategic merge patch, less the fields the manager applied last time,
// no longer applies and nobody else owns (prune.go). Changing a field
// another manager owns is a conflict unless forced (managed.go). It
// reports whether it created.
func (s *Server) apply(res *Resource, ns, name string, wm writeMeta, body []byte) (*storage.Object, bool, error) {
	var m map[string]any
	if err := yaml.Unmarshal(body, &m); err != nil || m == nil {
		return nil, false, errBadRequest("error decoding YAML: %v", err)
	}
	md := storage.MetadataOf(m)
	if got := storage.Str(md, "name"); got != "" && got != name {
		return nil, false, errBadRequest("the name of the object (%s) does not match the name on the URL (%s)", got, name)
	}
	md["name"] = name
	wm.applied, _ = deepCopy(m).(map[string]any) // the merge below shares m's values
	for range 2 {                                // a create that loses a race becomes an update
		o, err := s.update(res, ns, name, wm, func(cur object) (object, error) {
			merged, err := mergePatch(cur, m, true)
			if err != nil {
				return nil, err
			}
			// merged is cur, merged into in place: its managedFields are cur's.
			mm := merged.(map[string]any)
			return pruneUnapplied(res, wm, mm, mm), nil
		})
		var se *meta.StatusError
		if !errors.As(err, &se) || se.Status.Code != 404 || se.Status.Details == nil || se.Status.Details.Name != name {
			return o, false, err
		}
		o, err = s.create(res, ns, m, wm)
		if !errors.As(err, &se) || se.Status.Reason != meta.ReasonAlreadyExists {
			return o, true, err
		}
	}
	return nil, false, storage.Conflict(res, name, "the object keeps changing between create and update")
}
