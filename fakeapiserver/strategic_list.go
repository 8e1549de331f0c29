package fakeapiserver

import (
	"reflect"
	"sort"
)

// The list half of a strategic merge patch: apimachinery's mergeSlice and
// the ordering it enforces (strategicpatch/patch.go), step for step, so
// that lists come out in kube-apiserver's order.

// mergeSlice merges a list with the merge strategy.
func mergeSlice(orig, patch []any, f *smpField, deleteList bool) ([]any, error) {
	if len(orig) == 0 && len(patch) == 0 {
		return orig, nil
	}
	isMap, err := elementsAreMaps(orig, patch)
	if err != nil {
		return nil, err
	}
	var merged []any
	if !isMap {
		if deleteList {
			return deleteFromSlice(orig, patch), nil
		}
		merged = dedupScalars(append(append([]any(nil), orig...), patch...))
	} else {
		if f.key == "" {
			return nil, errSMP("cannot merge lists without merge key for type map")
		}
		if orig, patch, err = applyListDirectives(orig, patch, f); err != nil {
			return nil, err
		}
		if merged, err = mergeByKey(orig, patch, f); err != nil {
			return nil, err
		}
	}
	inPatch, serverOnly, err := partition(merged, patch, f.key, isMap)
	if err != nil {
		return nil, err
	}
	return normalizeElementOrder(inPatch, serverOnly, patch, orig, f.key, isMap)
}

// elementsAreMaps reports whether the lists hold objects; they must hold
// one type, never lists (sliceElementType).
func elementsAreMaps(lists ...[]any) (bool, error) {
	var prev reflect.Type
	for _, l := range lists {
		for _, v := range l {
			t := reflect.TypeOf(v)
			if prev == nil {
				if t != nil && t.Kind() == reflect.Slice {
					return false, errSMP("lists of lists are not supported")
				}
				prev = t
			} else if prev != t {
				return false, errSMP("list element types are not identical: %v", lists)
			}
		}
	}
	if prev == nil {
		return false, errSMP("no elements in any of the given slices")
	}
	return prev.Kind() == reflect.Map, nil
}

// applyListDirectives applies the "$patch" elements: delete removes the
// elements with that key, replace drops the original list
// (mergeSliceWithSpecialElements). It returns the list to merge into and
// the patch's other elements.
func applyListDirectives(orig, patch []any, f *smpField) ([]any, []any, error) {
	key := f.key
	rest := []any{}
	replace := false
	for _, v := range patch {
		m := v.(map[string]any)
		d, ok := m[smpDirective]
		if !ok {
			rest = append(rest, v)
			continue
		}
		switch d {
		case "delete":
			kv, ok := m[key]
			if !ok {
				return nil, nil, errSMP("map: %v does not contain declared merge key: %s", m, key)
			}
			kept := orig[:0:0]
			for _, e := range orig {
				if em, ok := e.(map[string]any); !ok || !sameValue(em[key], kv) {
					kept = append(kept, e)
				}
			}
			orig = kept
		case "replace":
			replace = true // and keep going, to apply the other elements' directives
		case "merge":
			return nil, nil, errSMP("merging lists cannot yet be specified in the patch")
		default:
			return nil, nil, errSMP("unknown patch type: %v in map: %v", d, m)
		}
	}
	if replace {
		cleaned := make([]any, len(rest))
		for i, e := range rest {
			c, err := strategicMerge(nil, e.(map[string]any), f.elem)
			if err != nil {
				return nil, nil, err
			}
			cleaned[i] = c
		}
		return cleaned, nil, nil
	}
	return orig, rest, nil
}

// mergeByKey merges each patch element into the element with its key, or
// appends it (mergeSliceWithoutSpecialElements).
func mergeByKey(orig, patch []any, f *smpField) ([]any, error) {
	for _, v := range patch {
		pm := v.(map[string]any)
		kv, ok := pm[f.key]
		if !ok {
			return nil, errSMP("map: %v does not contain declared merge key: %s", pm, f.key)
		}
		i, err := findByKey(orig, f.key, kv)
		if err != nil {
			return nil, err
		}
		if i < 0 {
			c, err := strategicMerge(nil, pm, f.elem)
			if err != nil {
				return nil, err
			}
			orig = append(orig, c)
			continue
		}
		merged, err := strategicMerge(orig[i].(map[string]any), pm, f.elem)
		if err != nil {
			return nil, err
		}
		orig[i] = merged
	}
	return orig, nil
}

func findByKey(l []any, key string, kv any) (int, error) {
	for i, e := range l {
		m, ok := e.(map[string]any)
		if !ok {
			return -1, errSMP("value for key %v is not a map.", i)
		}
		if v, ok := m[key]; ok && sameValue(v, kv) {
			return i, nil
		}
	}
	return -1, nil
}

// sameValue compares scalars as Go's == compares apimachinery's decoded
// JSON (numbers are float64 on both sides there; normalise ours).
func sameValue(a, b any) bool {
	return reflect.DeepEqual(normalize(a), normalize(b))
}

func sameKey(a, b any, key string) (bool, error) {
	if key == "" {
		return sameValue(a, b), nil
	}
	am, ok1 := a.(map[string]any)
	bm, ok2 := b.(map[string]any)
	if !ok1 || !ok2 {
		return false, errSMP("expected a map, but received a %T", a)
	}
	av, ok1 := am[key]
	bv, ok2 := bm[key]
	if !ok1 {
		return false, errSMP("map: %v does not contain declared merge key: %s", am, key)
	}
	if !ok2 {
		return false, errSMP("map: %v does not contain declared merge key: %s", bm, key)
	}
	return sameValue(av, bv), nil
}

func deleteFromSlice(cur, del []any) []any {
	out := make([]any, 0, len(cur))
	for _, v := range cur {
		found := false
		for _, d := range del {
			found = found || sameValue(v, d)
		}
		if !found {
			out = append(out, v)
		}
	}
	return out
}

// dedupScalars is apimachinery's deduplicateScalars, whose swap with the
// last element decides the order the server stores.
func dedupScalars(s []any) []any {
	n := len(s) - 1
	for i := 0; i < n; i++ {
		for j := i + 1; j <= n; j++ {
			if sameValue(s[i], s[j]) {
				s[j] = s[n]
				s = s[:n]
				n--
				j--
			}
		}
	}
	return s
}

// partition splits merged into the elements the list by names and the
// others (partitionMapsByPresentInList, partitionPrimitivesByPresentInList).
func partition(merged, by []any, key string, isMap bool) ([]any, []any, error) {
	var in, out []any
	for _, v := range merged {
		var found bool
		if isMap {
			m, ok := v.(map[string]any)
			if !ok {
				return nil, nil, errSMP("expected a map, but received a %T", v)
			}
			kv, ok := m[key]
			if !ok {
				return nil, nil, errSMP("map: %v does not contain declared merge key: %s", m, key)
			}
			i, err := findByKey(by, key, kv)
			if err != nil {
				return nil, nil, err
			}
			found = i >= 0
		} else {
			found = indexOf(by, v, key, false) >= 0
		}
		if found {
			in = append(in, v)
		} else {
			out = append(out, v)
		}
	}
	return in, out, nil
}

// normalizeElementOrder sorts the patch's elements by patchOrder and the
// server-only ones by serverOrder, then interleaves them.
func normalizeElementOrder(patch, serverOnly, patchOrder, serverOrder []any, key string, isMap bool) ([]any, error) {
	patch, err := sortByOrder(patch, patchOrder, key, isMap)
	if err != nil {
		return nil, err
	}
	if serverOnly, err = sortByOrder(serverOnly, serverOrder, key, isMap); err != nil {
		return nil, err
	}
	return mergeSorted(serverOnly, patch, serverOrder, key, isMap), nil
}

// sortByOrder is normalizeSliceOrder, with its odd less function kept:
// elements the order does not list compare as less.
func sortByOrder(toSort, order []any, key string, isMap bool) ([]any, error) {
	var toDelete []any
	if isMap {
		for _, l := range [][]any{toSort, order} {
			for _, e := range l {
				m, ok := e.(map[string]any)
				if !ok {
					return nil, errSMP("expected a map, but received a %T", e)
				}
				if _, ok := m[key]; !ok {
					return nil, errSMP("map: %v does not contain declared merge key: %s", m, key)
				}
			}
		}
		var keep []any
		for _, e := range toSort {
			if e.(map[string]any)[smpDirective] == "delete" {
				toDelete = append(toDelete, e)
			} else {
				keep = append(keep, e)
			}
		}
		toSort = keep
	}
	sort.SliceStable(toSort, func(i, j int) bool {
		if ii := indexOf(order, toSort[i], key, isMap); ii >= 0 {
			if ij := indexOf(order, toSort[j], key, isMap); ij >= 0 {
				return ii < ij
			}
		}
		return true
	})
	return append(toSort, toDelete...), nil
}

// mergeSorted is mergeSortedSlice: each server-only element goes before
// the first patch element the server's order puts after it.
func mergeSorted(left, right, serverOrder []any, key string, isMap bool) []any {
	out := make([]any, 0, len(left)+len(right))
	i, j := 0, 0
	for i < len(left) || j < len(right) {
		switch {
		case i >= len(left):
			out, j = append(out, right[j]), j+1
		case j >= len(right):
			out, i = append(out, left[i]), i+1
		default:
			li, ri := indexOf(serverOrder, left[i], key, isMap), indexOf(serverOrder, right[j], key, isMap)
			if li >= 0 && ri >= 0 && li < ri {
				out, i = append(out, left[i]), i+1
			} else {
				out, j = append(out, right[j]), j+1
			}
		}
	}
	return out
}

// indexOf finds v in l by its merge key (objects) or value (scalars).
func indexOf(l []any, v any, key string, isMap bool) int {
	val := func(e any) any {
		if !isMap {
			return e
		}
		m, _ := e.(map[string]any)
		return m[key]
	}
	for i, e := range l {
		if sameValue(val(v), val(e)) {
			return i
		}
	}
	return -1
}
