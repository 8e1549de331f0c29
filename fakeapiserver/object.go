package fakeapiserver

import (
	"crypto/rand"
	"fmt"
	"strconv"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/zerokube/zerokube/meta"
)

// stored is one version of an object. It is immutable once built: lists,
// watches and history share it without copying.
type stored struct {
	raw *meta.Raw // full JSON with kind and apiVersion first; metadata decoded
	// prefix is the length of `{"kind":…,"apiVersion":…,`: list items are
	// the same bytes without it, as kube-apiserver sends them.
	prefix int
	rv     int64
}

// full returns the object with kind and apiVersion, as watch events carry it.
func (o *stored) full() []byte { return o.raw.Bytes() }

// appendItem appends the object without kind and apiVersion, as list items
// are sent.
func (o *stored) appendItem(dst []byte) []byte {
	dst = append(dst, '{')
	return append(dst, o.raw.Bytes()[o.prefix:]...)
}

// itemLen is the length appendItem appends.
func (o *stored) itemLen() int { return 1 + len(o.raw.Bytes()) - o.prefix }

// key is the etcd-like sort key of an object: "namespace/name" or "name".
func (o *stored) key() string { return meta.Key(&o.raw.ObjectMeta) }

// object is a decoded JSON object being edited by a write.
type object = map[string]any

var deterministic = json.Deterministic(true)

// decodeObject parses b as a JSON object.
func decodeObject(b []byte) (object, error) {
	if k := jsontext.Value(b).Kind(); len(jsontext.Value(b)) > 0 && k != '{' {
		// Kind panics on no input; the length check keeps it for real bytes.
		return nil, fmt.Errorf("fakeapiserver: want a JSON object, got %v", k)
	}
	var m object
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("fakeapiserver: decode object: %w", err)
	}
	if m == nil {
		return nil, fmt.Errorf("fakeapiserver: want a JSON object, got null")
	}
	return m, nil
}

// metadataOf returns m's metadata map, creating it if needed.
func metadataOf(m object) object {
	md, ok := m["metadata"].(map[string]any)
	if !ok {
		md = map[string]any{}
		m["metadata"] = md
	}
	return md
}

func str(m object, k string) string {
	s, _ := m[k].(string)
	return s
}

// build encodes m as an object of res at resourceVersion rv. It takes
// ownership of m (kind and apiVersion are removed and written first).
func build(res *Resource, m object, rv int64) (*stored, error) {
	delete(m, "kind")
	delete(m, "apiVersion")
	metadataOf(m)["resourceVersion"] = strconv.FormatInt(rv, 10)
	body, err := json.Marshal(m, deterministic)
	if err != nil {
		return nil, fmt.Errorf("fakeapiserver: encode %s: %w", res.Kind, err)
	}
	full := make([]byte, 0, len(body)+64)
	full = append(full, `{"kind":`...)
	full, _ = jsontext.AppendQuote(full, res.Kind)
	full = append(full, `,"apiVersion":`...)
	full, _ = jsontext.AppendQuote(full, res.apiVersion())
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
	return &stored{raw: raw, prefix: prefix, rv: rv}, nil
}

// decode returns a fresh editable copy of o.
func (o *stored) decode() object {
	m, err := decodeObject(o.raw.Bytes())
	if err != nil {
		// o was encoded by build from a valid map: this cannot fail.
		panic(fmt.Sprintf("fakeapiserver: stored object does not decode: %v", err))
	}
	return m
}

// withRV returns a copy of o at another resourceVersion: a DELETED event and
// a selector transition carry the last state at the event's RV.
func withRV(res *Resource, o *stored, rv int64) *stored {
	n, err := build(res, o.decode(), rv)
	if err != nil {
		panic(fmt.Sprintf("fakeapiserver: re-encode stored object: %v", err))
	}
	return n
}

// newUID returns a random RFC 4122 version 4 UUID, like the uids
// kube-apiserver assigns.
func newUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// randomSuffix returns the 5 characters generateName appends; the alphabet
// is the one kube-apiserver uses (no vowels, no confusable characters).
func randomSuffix() string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	var b [5]byte
	_, _ = rand.Read(b[:])
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b[:])
}

// lookupField returns the value at a dotted path of m as a string, for field
// selectors on fields other than metadata.
func lookupField(m object, path string) (string, bool) {
	var cur any = m
	start := 0
	for i := 0; i <= len(path); i++ {
		if i < len(path) && path[i] != '.' {
			continue
		}
		mm, ok := cur.(map[string]any)
		if !ok {
			return "", false
		}
		cur, ok = mm[path[start:i]]
		if !ok {
			return "", true // absent fields compare as ""
		}
		start = i + 1
	}
	switch v := cur.(type) {
	case string:
		return v, true
	case bool:
		return strconv.FormatBool(v), true
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64), true
	case nil:
		return "", true
	}
	return "", false
}
