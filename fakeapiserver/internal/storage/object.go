package storage

import (
	"crypto/rand"
	"fmt"
	"strconv"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/zerokube/zerokube/meta"
)

// Object is one version of a stored object. It is immutable once built:
// lists, watches and history share it without copying.
type Object struct {
	raw *meta.Raw // full JSON with kind and apiVersion first; metadata decoded
	// prefix is the length of `{"kind":…,"apiVersion":…,`: list items are
	// the same bytes without it, as kube-apiserver sends them.
	prefix int
	rv     int64
	fields fields // the selectable fields' values (fields.go)
}

// Raw is the object with its metadata decoded. Callers must not modify it.
func (o *Object) Raw() *meta.Raw { return o.raw }

// RV is the object's resourceVersion.
func (o *Object) RV() int64 { return o.rv }

// Full returns the object with kind and apiVersion, as watch events carry it.
func (o *Object) Full() []byte { return o.raw.Bytes() }

// AppendItem appends the object without kind and apiVersion, as list items
// are sent.
func (o *Object) AppendItem(dst []byte) []byte {
	dst = append(dst, '{')
	return append(dst, o.raw.Bytes()[o.prefix:]...)
}

// ItemLen is the length AppendItem appends.
func (o *Object) ItemLen() int { return 1 + len(o.raw.Bytes()) - o.prefix }

// key is the etcd-like sort key of an object: "namespace/name" or "name".
func (o *Object) key() string { return meta.Key(&o.raw.ObjectMeta) }

// object is a decoded JSON object being edited by a write.
type object = map[string]any

// deterministic writes JSON as kube-apiserver's encoding/json does: map
// keys sorted, and <, >, &, U+2028 and U+2029 escaped (json v2 leaves
// them as they are by default; the bytes differ, not the value).
var deterministic = json.JoinOptions(json.Deterministic(true), jsontext.EscapeForHTML(true), jsontext.EscapeForJS(true))

// DecodeObject parses b as a JSON object.
func DecodeObject(b []byte) (object, error) {
	if k := jsontext.Value(b).Kind(); len(jsontext.Value(b)) > 0 && k != '{' {
		// Kind panics on no input; the length check keeps it for real bytes.
		return nil, fmt.Errorf("storage: want a JSON object, got %v", k)
	}
	var m object
	// Invalid UTF-8 in a string becomes U+FFFD, not an error: kube-apiserver
	// decodes JSON bodies with a fork of encoding/json, which does that.
	if err := json.Unmarshal(b, &m, jsontext.AllowInvalidUTF8(true)); err != nil {
		return nil, fmt.Errorf("storage: decode object: %w", err)
	}
	if m == nil {
		return nil, fmt.Errorf("storage: want a JSON object, got null")
	}
	return m, nil
}

// MetadataOf returns m's metadata map, creating it if needed.
func MetadataOf(m object) object {
	md, ok := m["metadata"].(map[string]any)
	if !ok {
		md = map[string]any{}
		m["metadata"] = md
	}
	return md
}

// Str returns the string at m[k], "" when absent or not a string.
func Str(m object, k string) string {
	s, _ := m[k].(string)
	return s
}

// build encodes m as an object of res at resourceVersion rv. It takes
// ownership of m (kind and apiVersion are removed and written first).
func build(res *Resource, m object, rv int64) (*Object, error) {
	delete(m, "kind")
	delete(m, "apiVersion")
	MetadataOf(m)["resourceVersion"] = strconv.FormatInt(rv, 10)
	body, err := json.Marshal(m, deterministic)
	if err != nil {
		return nil, fmt.Errorf("storage: encode %s: %w", res.Kind, err)
	}
	full := make([]byte, 0, len(body)+64)
	full = append(full, `{"kind":`...)
	full, _ = jsontext.AppendQuote(full, res.Kind)
	full = append(full, `,"apiVersion":`...)
	full, _ = jsontext.AppendQuote(full, res.APIVersion())
	prefix := len(full) + 1 // the comma after apiVersion
	if len(body) > 2 {
		full = append(full, ',')
		full = append(full, body[1:]...)
	} else {
		prefix = len(full)
		full = append(full, '}')
	}
	raw, err := meta.NewRaw(full)
	if err != nil {
		return nil, err
	}
	return &Object{raw: raw, prefix: prefix, rv: rv, fields: selectableFields(res, m)}, nil
}

// Decode returns a fresh editable copy of o.
func (o *Object) Decode() object {
	m, err := DecodeObject(o.raw.Bytes())
	if err != nil {
		// o was encoded by build from a valid map: this cannot fail.
		panic(fmt.Sprintf("storage: stored object does not decode: %v", err))
	}
	return m
}

// withRV returns a copy of o at another resourceVersion: a DELETED event and
// a selector transition carry the last state at the event's RV.
// WithObject is o with its content replaced by m, at o's resourceVersion:
// what a dry run answers with (m is changed).
func WithObject(res *Resource, o *Object, m object) (*Object, error) { return build(res, m, o.rv) }

func withRV(res *Resource, o *Object, rv int64) *Object {
	n, err := build(res, o.Decode(), rv)
	if err != nil {
		panic(fmt.Sprintf("storage: re-encode stored object: %v", err))
	}
	return n
}

// NewUID returns a random RFC 4122 version 4 UUID, like the uids
// kube-apiserver assigns.
func NewUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// RandomSuffix returns the 5 characters generateName appends; the alphabet
// is the one kube-apiserver uses (no vowels, no confusable characters).
func RandomSuffix() string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	var b [5]byte
	_, _ = rand.Read(b[:])
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b[:])
}

// LookupField returns the value at a dotted path of m as a string, for field
// selectors on fields other than metadata. An absent field is "" (ok); a
// field that holds an object or an array is not ok: it matches no selector.
// Values that are not what JSON decodes to (a write's own int64 or
// []string) are read as their JSON encoding decodes.
func LookupField(m object, path string) (string, bool) {
	var cur any = m
	start := 0
	for i := 0; i <= len(path); i++ {
		if i < len(path) && path[i] != '.' {
			continue
		}
		mm, ok := cur.(map[string]any)
		if !ok {
			if mm, ok = asJSON(cur).(map[string]any); !ok {
				return "", false
			}
		}
		cur, ok = mm[path[start:i]]
		if !ok {
			return "", true // absent fields compare as ""
		}
		start = i + 1
	}
	if s, ok, native := scalarString(cur); native {
		return s, ok
	}
	s, ok, _ := scalarString(asJSON(cur))
	return s, ok
}

// scalarString formats a decoded JSON value as a field selector compares
// it; native is false for a value of any other Go type.
func scalarString(v any) (s string, ok, native bool) {
	switch v := v.(type) {
	case string:
		return v, true, true
	case bool:
		return strconv.FormatBool(v), true, true
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64), true, true
	case nil:
		return "", true, true
	case map[string]any, []any:
		return "", false, true
	}
	return "", false, false
}
