package protodec

import (
	"encoding"
	"reflect"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/zerokube/zerokube/meta"
)

// goField is one JSON member a Go struct type decodes: where it lives and
// its type.
type goField struct {
	off uintptr // from the start of the outer struct, through inlined structs
	typ reflect.Type
}

// The types whose decoding the fast path knows by identity.
var (
	timeType            = reflect.TypeFor[time.Time]()
	ignoredType         = reflect.TypeFor[meta.Ignored]()
	managedFieldsType   = reflect.TypeFor[meta.ManagedFields]()
	jsontextValueType   = reflect.TypeFor[jsontext.Value]()
	unmarshalerFromType = reflect.TypeFor[json.UnmarshalerFrom]()
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// custom reports whether t decodes itself (any unmarshal method, on t or
// *t) or is a type the JSON decoder treats specially: the fast path leaves
// such a value to the JSON decoder.
func custom(t reflect.Type) bool {
	if t == jsontextValueType {
		return true
	}
	pt := reflect.PointerTo(t)
	for _, m := range []reflect.Type{unmarshalerFromType, unmarshalerType, textUnmarshalerType} {
		if t.Implements(m) || pt.Implements(m) {
			return true
		}
	}
	return false
}

// structFields resolves the JSON member names of struct type t as
// go-json-experiment does in the ordinary cases: `json` tag names (else the
// Go name), `-` to ignore, untagged embedded structs and `inline` structs
// inlined, a shallower field hiding a deeper one of the same name. ok is
// false when t uses anything else (tag options beyond omitempty and
// omitzero, embedded pointers, maps or custom types, equal names at one
// depth): the whole struct is then left to the JSON decoder, so that the
// fast path never decides differently from it.
func structFields(t reflect.Type) (fields map[string]goField, ok bool) {
	fields = map[string]goField{}
	type level struct {
		t   reflect.Type
		off uintptr
	}
	queue := []level{{t, 0}}
	for len(queue) > 0 {
		var next []level
		seen := map[string]bool{} // names found at this depth
		for _, l := range queue {
			for i := range l.t.NumField() {
				sf := l.t.Field(i)
				name, opts, ignored := parseTag(sf)
				if ignored {
					continue
				}
				if !validOptions(opts) {
					return nil, false
				}
				inline := strings.Contains(","+opts+",", ",inline,") || (sf.Anonymous && name == "")
				if inline {
					if sf.Type.Kind() != reflect.Struct || custom(sf.Type) {
						return nil, false
					}
					next = append(next, level{sf.Type, l.off + sf.Offset})
					continue
				}
				if !sf.IsExported() {
					continue
				}
				if name == "" {
					name = sf.Name
				}
				if _, hidden := fields[name]; hidden && !seen[name] {
					continue // a shallower field of that name wins
				}
				if seen[name] {
					return nil, false // ambiguous at one depth
				}
				seen[name] = true
				fields[name] = goField{off: l.off + sf.Offset, typ: sf.Type}
			}
		}
		queue = next
	}
	return fields, true
}

// parseTag splits a field's json tag into its name and options.
func parseTag(sf reflect.StructField) (name, opts string, ignored bool) {
	tag, has := sf.Tag.Lookup("json")
	if !has {
		return "", "", false
	}
	if tag == "-" {
		return "", "", true
	}
	name, opts, _ = strings.Cut(tag, ",")
	return name, opts, false
}

// validOptions reports whether a tag's options are ones the fast path
// mirrors: omitempty and omitzero change only encoding, and inline is
// handled by structFields. A quoted name (starting with a quote) is refused
// too, as its parsing is the JSON package's business.
func validOptions(opts string) bool {
	if opts == "" {
		return true
	}
	for o := range strings.SplitSeq(opts, ",") {
		switch o {
		case "omitempty", "omitzero", "inline", "":
		default:
			return false
		}
	}
	return true
}
