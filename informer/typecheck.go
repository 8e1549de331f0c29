package informer

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/zerokube/zerokube/meta"
)

// probeObject is what checkType decodes: just enough metadata to tell
// whether a type reads it.
const probeObject = `{"apiVersion":"v1","kind":"Probe","metadata":{"name":"zerokube-probe","namespace":"zerokube-probe-ns"}}`

// checkType reports whether T decodes an object's metadata, by decoding a
// probe object into it and checking that its name and namespace come back.
// A struct that embeds meta.ObjectMeta or meta.SlimMeta without the tag
// json:"metadata" compiles, but its embedded fields are then read from the
// top level of the object, where the server never puts them: every object
// would be cached under the key "". New runs this check; an informer of
// such a type fails Run and WaitForSync with this error instead of syncing.
func checkType[T any, P meta.PtrObject[T]]() error {
	var obj T
	if err := json.Unmarshal([]byte(probeObject), &obj); err != nil {
		return fmt.Errorf("informer: type %v cannot decode a Kubernetes object: %w", reflect.TypeFor[T](), err)
	}
	p := P(&obj)
	if p.GetName() != "zerokube-probe" || p.GetNamespace() != "zerokube-probe-ns" {
		return fmt.Errorf("informer: type %v does not decode an object's metadata (a probe's name and namespace came back %q and %q): "+
			"embed meta.ObjectMeta or meta.SlimMeta with the tag `json:\"metadata\"`",
			reflect.TypeFor[T](), p.GetName(), p.GetNamespace())
	}
	return nil
}

// metadataOnly reports whether T reads nothing of an object beyond its
// metadata (and its kind and apiVersion): meta.SlimMeta or meta.ObjectMeta
// under "metadata", or any struct whose JSON members are "metadata",
// "kind" and "apiVersion" alone. Such a type can be fed from a
// PartialObjectMetadata(List), which costs the server about half of a
// protobuf LIST of whole pods, and far less than JSON (PROTOCOL.md). A type
// with its own UnmarshalJSON may read anything: not metadata-only.
func metadataOnly[T any]() bool {
	t := reflect.TypeFor[T]()
	seen := map[string]bool{}
	return t.Kind() == reflect.Struct && jsonMembers(t, seen) && seen["metadata"]
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	metadataMembers = map[string]bool{"metadata": true, "kind": true, "apiVersion": true}
)

// jsonMembers adds t's JSON member names to seen (embedded structs without
// a name are inlined, as encoding/json and json v2 inline them) and
// reports whether all of them are metadata members.
func jsonMembers(t reflect.Type, seen map[string]bool) bool {
	if reflect.PointerTo(t).Implements(jsonUnmarshaler) || t.Implements(jsonUnmarshaler) {
		return false
	}
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		switch {
		case name == "-" && tag == "-", !f.IsExported() && !f.Anonymous:
			continue
		case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
			if !jsonMembers(f.Type, seen) {
				return false
			}
			continue
		case name == "":
			name = f.Name
		}
		if !metadataMembers[name] {
			return false
		}
		seen[name] = true
	}
	return true
}
