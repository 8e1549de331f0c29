package fakeapiserver

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/zerokube/zerokube/meta"
)

// A strategic merge patch, as kube-apiserver applies one: apimachinery's
// strategicpatch.StrategicMergeMapPatch (patch.go: mergeMap, mergeSlice,
// mergePatchIntoOriginal, normalizeElementOrder), ported over the schema of
// strategic_schema.go instead of Go struct tags. The directives:
//
//   - "$patch": "replace" in an object replaces it with the rest of the
//     patch's object; "delete" makes it {}; in a list element, "delete"
//     removes the elements with that merge key and "replace" makes the list
//     the patch's other elements. "merge" is an error there, as anything
//     else (kube-apiserver answers 500, an error that is no Status).
//   - "$setElementOrder/<field>" orders the merged list: the patch's
//     elements as listed, the server's others kept where they were.
//   - "$deleteFromPrimitiveList/<field>" removes values from a list of
//     scalars, with the merge strategy (finalizers) or without (a
//     container's args); a list the object does not have stays absent.
//   - "$retainKeys": the object keeps only the keys listed (a Deployment's
//     strategy, a volume's source); a patch key missing from the list is a
//     400.
//
// A directive is never stored: one this file does not know, or one inside
// a list the patch replaces whole, is refused with a 400 that names it.

const (
	smpDirective       = "$patch"
	smpRetainKeys      = "$retainKeys"
	smpSetOrderPrefix  = "$setElementOrder/"
	smpDeleteFromPrefx = "$deleteFromPrimitiveList/"
)

// The errors of apimachinery's mergepatch package that kube-apiserver
// turns into a 400 (interpretStrategicMergePatchError); every other merge
// error reaches the client as a 500 whose reason is empty (ErrorToAPIStatus
// of an error that is no Status).
var (
	errSMPPrimitiveList = storageBadRequest("invalid patch format of primitive list")
	errSMPRetainKeys    = storageBadRequest("invalid patch format of retainKeys")
	errSMPSetOrder      = storageBadRequest("invalid patch format of setElementOrder list")
)

func storageBadRequest(msg string) *meta.StatusError { return errBadRequest("%s", msg) }

func errSMP(format string, args ...any) *meta.StatusError {
	return meta.NewStatusError(500, "", fmt.Sprintf(format, args...))
}

// errStoredDirective refuses a directive the merge would otherwise store.
func errStoredDirective(key, where string) *meta.StatusError {
	return errBadRequest("strategic merge patch: %s is not a directive this server applies %s; it is refused rather than stored", key, where)
}

// strategicMerge applies patch to orig (both are modified) over schema.
func strategicMerge(orig, patch map[string]any, schema smpSchema) (map[string]any, error) {
	if d, ok := patch[smpDirective]; ok {
		switch d {
		case "replace":
			delete(patch, smpDirective)
			return strategicMerge(map[string]any{}, patch, schema) // a directive inside is still applied, not stored
		case "delete":
			return map[string]any{}, nil
		}
		return nil, errSMP("unknown patch type: %v in map: %v", d, patch)
	}
	if orig == nil {
		orig = map[string]any{}
	}
	if err := retainKeys(orig, patch); err != nil {
		return nil, err
	}
	if err := setElementOrders(orig, patch, schema); err != nil {
		return nil, err
	}
	for k, pv := range patch {
		deleteList := false
		if rest, ok := strings.CutPrefix(k, smpDeleteFromPrefx); ok {
			if rest == "" {
				return nil, errSMPPrimitiveList
			}
			k, deleteList = rest, true
		} else if strings.HasPrefix(k, "$") {
			return nil, errStoredDirective(k, "in an object")
		}
		if pv == nil {
			delete(orig, k)
			continue
		}
		f := schema.field(k)
		ov, ok := orig[k]
		if !ok || reflect.TypeOf(ov) != reflect.TypeOf(pv) {
			if deleteList {
				// Nothing to delete from: apimachinery (mergeMap) skips
				// it, rather than adding the values it was to delete.
				continue
			}
			// apimachinery takes the patch's value as it is: clean it of
			// directives, never store them.
			v, err := smpValue(pv, f)
			if err != nil {
				return nil, err
			}
			orig[k] = v
			continue
		}
		var err error
		switch ot := ov.(type) {
		case map[string]any:
			orig[k], err = strategicMerge(ot, pv.(map[string]any), f.elem)
		case []any:
			orig[k], err = mergeListField(ot, pv.([]any), f, deleteList)
		default:
			orig[k] = pv
		}
		if err != nil {
			return nil, err
		}
	}
	return orig, nil
}

// smpValue is a patch value taken whole, with its directives applied to
// nothing.
func smpValue(v any, f *smpField) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		return strategicMerge(nil, x, f.elem)
	case []any:
		return mergeListField(nil, x, f, false)
	}
	return v, nil
}

// mergeListField is apimachinery's mergeSliceHandler: a list with the
// merge strategy merges, any other is the patch's; deleting from a list
// ("$deleteFromPrimitiveList/<field>") deletes whatever its strategy.
func mergeListField(orig, patch []any, f *smpField, deleteList bool) ([]any, error) {
	if f.merge || deleteList {
		return mergeSlice(orig, patch, f, deleteList)
	}
	if err := refuseDirectives(patch, "inside a list the patch replaces whole"); err != nil {
		return nil, err
	}
	return patch, nil
}

// refuseDirectives refuses any "$" key anywhere in v.
func refuseDirectives(v any, where string) error {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if strings.HasPrefix(k, "$") {
				return errStoredDirective(k, where)
			}
			if err := refuseDirectives(e, where); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range x {
			if err := refuseDirectives(e, where); err != nil {
				return err
			}
		}
	}
	return nil
}

// retainKeys applies "$retainKeys": orig keeps only the listed keys, and
// every key the patch sets must be listed (apimachinery's
// applyRetainKeysDirective).
func retainKeys(orig, patch map[string]any) error {
	v, ok := patch[smpRetainKeys]
	if !ok {
		return nil
	}
	delete(patch, smpRetainKeys)
	list, ok := v.([]any)
	if !ok {
		return errSMPRetainKeys
	}
	keep := map[any]bool{}
	for _, k := range list {
		keep[k] = true
	}
	for k, pv := range patch {
		if pv == nil || strings.HasPrefix(k, smpDeleteFromPrefx) || strings.HasPrefix(k, smpSetOrderPrefix) {
			continue
		}
		if !keep[k] {
			return errSMPRetainKeys
		}
	}
	for k := range orig {
		if !keep[k] {
			delete(orig, k)
		}
	}
	return nil
}

// setElementOrders merges each list that has a "$setElementOrder/<field>"
// and orders it (apimachinery's mergePatchIntoOriginal).
func setElementOrders(orig, patch map[string]any, schema smpSchema) error {
	for key, order := range patch {
		field, ok := strings.CutPrefix(key, smpSetOrderPrefix)
		if !ok {
			continue
		}
		delete(patch, key)
		orderList, ok := order.([]any)
		switch {
		case field == "":
			return errSMPSetOrder
		case !ok:
			// Observed on kube-apiserver v1.37.2 (conformance
			// patch/strategic-errors): a 500 with no reason, not the 400
			// of a badly formed order list.
			return errSMP("invalid type for %s%s: expected a list, got %T", smpSetOrderPrefix, field, order)
		}
		ov, foundOrig := orig[field]
		pv, foundPatch := patch[field]
		origList, ok1 := ov.([]any)
		patchList, ok2 := pv.([]any)
		if (foundOrig && !ok1) || (foundPatch && !ok2) {
			return errSMP("expected a slice, but received a %s", kindOf(ov, pv, ok1))
		}
		f := schema.field(field)
		if err := checkOrder(patchList, orderList, f.key); err != nil {
			return err
		}
		var merged []any
		switch {
		case foundOrig && !foundPatch:
			merged = origList
		case !foundOrig && foundPatch:
			merged = patchList
		case foundOrig && foundPatch:
			var err error
			if merged, err = mergeListField(origList, patchList, f, false); err != nil {
				return err
			}
		default:
			continue
		}
		isMap, err := elementsAreMaps(origList, patchList)
		if err != nil {
			return err
		}
		inPatch, serverOnly, err := partition(merged, orderList, f.key, isMap)
		if err != nil {
			return err
		}
		both, err := normalizeElementOrder(inPatch, serverOnly, orderList, origList, f.key, isMap)
		if err != nil {
			return err
		}
		if err := refuseDirectives(both, "in a list"); err != nil {
			return err
		}
		orig[field] = both
		delete(patch, field)
	}
	return nil
}

func kindOf(ov, pv any, origOK bool) string {
	if !origOK {
		return reflect.TypeOf(ov).Kind().String()
	}
	return reflect.TypeOf(pv).Kind().String()
}

// checkOrder is validatePatchWithSetOrderList: the patch's elements appear
// in the order list, in its order.
func checkOrder(patchList, orderList []any, key string) error {
	if len(orderList) == 0 || len(patchList) == 0 {
		return nil
	}
	var nonDelete []any
	for _, e := range patchList {
		if m, ok := e.(map[string]any); key != "" && ok && m[smpDirective] == "delete" {
			continue
		}
		nonDelete = append(nonDelete, e)
	}
	p, o := 0, 0
	for p < len(nonDelete) && o < len(orderList) {
		if m, ok := nonDelete[p].(map[string]any); ok && m[smpDirective] != nil {
			p++
			continue
		}
		eq, err := sameKey(nonDelete[p], orderList[o], key)
		if err != nil {
			return err
		}
		if eq {
			p++
		}
		o++
	}
	if p < len(nonDelete) {
		return errSMP("The order in patch list:\n%v\n doesn't match $setElementOrder list:\n%v\n", patchList, orderList)
	}
	return nil
}
