package fieldsv1

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/zerokube/zerokube/internal/jsonscan"
)

// FromJSON builds the set of a whole object straight from its JSON (the
// benchmark workload builds 50,000 pods' managedFields with it: going
// through generic maps was most of its generation time). obj must be
// json.Marshal's output (compact, no duplicate names), which lets it read
// obj with internal/jsonscan's Skip half, the one for JSON already valid;
// internal/workload's TestFieldSetMatchesGenericMaps checks it against the
// map-based construction.
//
// It is the set of every field obj sets, as server-side apply records
// ownership: objects become "f:name" members, list items with a name,
// type, ip, key or containerPort become "k:{…}" members, other list items
// "i:{…}", leaves {}. Member names are in the order json.Deterministic
// writes map keys (these keys are ASCII, where its UTF-16 order is the
// byte order). Members named in atomic hold lists that are owned whole,
// {}, as kube-apiserver records lists without merge keys.
func FromJSON(obj []byte, atomic map[string]bool) jsontext.Value {
	return setBuilder{atomic}.appendObjectSet(nil, obj, false)
}

// setBuilder builds field sets; atomic names the members recorded whole.
type setBuilder struct{ atomic map[string]bool }

// member is one name and value of a JSON object, both as raw JSON.
type member struct{ name, value []byte }

// appendObjectSet appends the set of object obj: "." first when withDot
// (a nested object owns itself too), then "f:<name>" per member, sorted.
func (sb setBuilder) appendObjectSet(dst, obj []byte, withDot bool) []byte {
	members := objectMembers(obj)
	// By the names inside the quotes: a closing quote must not sort
	// before a longer name's next byte (`"a"` after `"a!"`).
	slices.SortFunc(members, func(a, b member) int {
		return bytes.Compare(a.name[1:len(a.name)-1], b.name[1:len(b.name)-1])
	})
	dst = append(dst, '{')
	if withDot {
		dst = append(dst, `".":{}`...)
	}
	for i, m := range members {
		if i > 0 || withDot {
			dst = append(dst, ',')
		}
		name := unquote(m.name)
		dst, _ = jsontext.AppendQuote(dst, "f:"+name)
		dst = append(dst, ':')
		if sb.atomic[name] && m.value[0] == '[' {
			dst = append(dst, "{}"...)
			continue
		}
		dst = sb.appendValueSet(dst, m.value)
	}
	return append(dst, '}')
}

// appendValueSet appends the set of one member's value.
func (sb setBuilder) appendValueSet(dst, v []byte) []byte {
	switch v[0] {
	case '{':
		return sb.appendObjectSet(dst, v, true)
	case '[':
		return sb.appendListSet(dst, v)
	}
	return append(dst, "{}"...)
}

// appendListSet appends the set of a list: one member per item, keyed by
// itemKey, sorted, the last item winning a duplicate key (as a map
// assignment would). A list holding anything but objects is owned as a
// whole: {}.
func (sb setBuilder) appendListSet(dst, list []byte) []byte {
	type keyed struct {
		key  string
		item []byte
	}
	var items []keyed
	for _, it := range arrayItems(list) {
		if it[0] != '{' {
			return append(dst, "{}"...)
		}
		items = append(items, keyed{itemKey(it), it})
	}
	slices.SortStableFunc(items, func(a, b keyed) int { return strings.Compare(a.key, b.key) })
	dst = append(dst, '{')
	n := 0
	for i, it := range items {
		if i+1 < len(items) && items[i+1].key == it.key {
			continue // a later item has the same key
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		dst, _ = jsontext.AppendQuote(dst, it.key)
		dst = append(dst, ':')
		dst = sb.appendObjectSet(dst, it.item, true)
	}
	return append(dst, '}')
}

// ItemKey names a list item (its compact JSON) as a FieldsV1 member:
// "k:{…}" by the first of its identifying fields, "i:{…}" by its whole JSON
// when it has none, encoded as a map[string]any would be.
func ItemKey(item []byte) string { return itemKey(item) }

// itemKey names a list item by the first of its identifying fields, or by
// its whole JSON when it has none, encoded as a map[string]any would be.
func itemKey(item []byte) string {
	members := objectMembers(item)
	for _, k := range []string{"name", "type", "ip", "key", "containerPort"} {
		for _, m := range members {
			if unquote(m.name) != k {
				continue
			}
			if c := m.value[0]; c != '{' && c != '[' {
				// A scalar from json.Marshal re-encodes to the same bytes.
				return `k:{"` + k + `":` + string(m.value) + "}"
			}
			return "k:" + string(mustMarshal(map[string]any{k: generic(m.value)}))
		}
	}
	return "i:" + string(mustMarshal(generic(item))) // sorted members, as a map marshals
}

// generic decodes JSON the way the map-based construction held it.
func generic(v []byte) any {
	var out any
	if err := json.Unmarshal(v, &out); err != nil {
		panic(fmt.Sprintf("fieldsv1: decode %s: %v", v, err))
	}
	return out
}

// unquote returns the string a JSON string token holds.
func unquote(tok []byte) string {
	if bytes.IndexByte(tok, '\\') < 0 {
		return string(tok[1 : len(tok)-1])
	}
	s, err := jsonscan.AppendUnquote(make([]byte, 0, len(tok)), tok) // one allocation: unquoted is rarely longer
	if err != nil {
		panic(fmt.Sprintf("fieldsv1: unquote %s: %v", tok, err))
	}
	return string(s)
}

// objectMembers splits a compact JSON object into its members.
func objectMembers(obj []byte) []member {
	var out []member
	_, ok := jsonscan.EachMember(obj, 0, func(start int, name []byte, at int) (int, bool) {
		end := valueEnd(obj, at)
		out = append(out, member{name, obj[at:end]})
		return end, true
	})
	if !ok {
		panic(fmt.Sprintf("fieldsv1: malformed JSON object %s", obj))
	}
	return out
}

// arrayItems splits a compact JSON array into its items.
func arrayItems(list []byte) [][]byte {
	var out [][]byte
	i := 1 // past '['
	for list[i] != ']' {
		n := valueEnd(list, i)
		out = append(out, list[i:n])
		i = n
		if list[i] == ',' {
			i++
		}
	}
	return out
}

// valueEnd returns the index just past the value at b[i]; b is
// json.Marshal's output, so malformed input is a bug of the caller.
func valueEnd(b []byte, i int) int {
	end, ok := jsonscan.ValueEnd(b, i)
	if !ok || end >= len(b) {
		panic(fmt.Sprintf("fieldsv1: malformed JSON at offset %d of %s", i, b))
	}
	return end
}

func mustMarshal(v any) []byte {
	b, err := json.Marshal(v, json.Deterministic(true))
	if err != nil {
		panic(fmt.Sprintf("fieldsv1: marshal: %v", err))
	}
	return b
}
