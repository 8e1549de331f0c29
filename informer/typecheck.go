package informer

import (
	"encoding"
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
// protobuf LIST of whole pods, and far less than JSON (PROTOCOL.md).
//
// The rule errs towards whole objects, since a wrong "yes" loses data
// silently and a wrong "no" only costs bandwidth. A type that decodes
// itself, itself or any struct it inlines, in any form the decoders of
// this project call (json v2's UnmarshalJSONFrom, UnmarshalJSON, which
// encoding/json v1 calls too, and UnmarshalText, which both call for a
// string), may read anything: not metadata-only. Neither is a type with
// unexported fields beyond its metadata: no decoder fills them, so
// something else does, from what only the type knows (meta.Raw keeps the
// whole object that way). The protobuf path (protodec) decodes into the
// type's fields by reflection and leaves a type with any of these methods
// to the JSON decoder: it defines no unmarshal interface of its own.
func metadataOnly[T any]() bool {
	t := reflect.TypeFor[T]()
	seen := map[string]bool{}
	return t.Kind() == reflect.Struct && jsonMembers(t, seen) && seen["metadata"]
}

var (
	// selfDecoders are the methods by which a type takes its decoding
	// over from the JSON decoder.
	selfDecoders = []reflect.Type{
		reflect.TypeFor[json.UnmarshalerFrom](),
		reflect.TypeFor[json.Unmarshaler](),
		reflect.TypeFor[encoding.TextUnmarshaler](),
	}
	metadataMembers = map[string]bool{"metadata": true, "kind": true, "apiVersion": true}
)

// decodesItself reports whether t or *t has one of selfDecoders' methods.
func decodesItself(t reflect.Type) bool {
	for _, m := range selfDecoders {
		if t.Implements(m) || reflect.PointerTo(t).Implements(m) {
			return true
		}
	}
	return false
}

// jsonMembers adds t's JSON member names to seen (embedded structs without
// a name are inlined, as encoding/json and json v2 inline them) and
// reports whether all of them are metadata members, with no decoder of
// t's own and no unexported field that could hold anything else.
func jsonMembers(t reflect.Type, seen map[string]bool) bool {
	if decodesItself(t) {
		return false
	}
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		switch {
		case f.Name == "_":
			continue // a blank field holds nothing
		case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
			// Inlined by both decoders, exported or not (v2 fills an
			// unexported embedded struct's exported fields too); its own
			// unexported fields are checked in turn.
			if !jsonMembers(f.Type, seen) {
				return false
			}
			continue
		case !f.IsExported():
			return false
		case name == "-" && tag == "-":
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
