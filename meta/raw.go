package meta

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Raw is an object of any kind: its TypeMeta and ObjectMeta are decoded, and
// the whole object is kept as the JSON bytes that arrived, so it encodes back
// byte for byte.
//
// The decoded metadata is a read-only view of those bytes. Changing a field of
// the embedded ObjectMeta does not change what [Raw.MarshalJSONTo] writes; build
// a new object with [NewRaw] instead. ManagedFields is left nil (the field stays
// in the bytes) so a cache of Raw objects does not hold it twice.
//
// Decoded under [SkipManagedFields] (an informer's default, unless its
// KeepManagedFields option is set), Raw drops metadata.managedFields from
// the bytes it keeps too: on a typical pod they are 40% of its JSON, and a
// cache of Raw objects held them only to encode them back. Such a Raw no
// longer encodes back byte for byte: it writes the object as it arrived
// minus that one member. [NewRaw] and decoding without that option keep
// every byte.
type Raw struct {
	TypeMeta
	ObjectMeta
	raw jsontext.Value
}

// lenient accepts duplicate member names, the last one winning, as
// kube-apiserver and the list and watch decoders do.
var lenient = jsontext.AllowDuplicateNames(true)

// NewRaw decodes b as a JSON object into a Raw that keeps a copy of b.
func NewRaw(b []byte) (*Raw, error) {
	if !jsontext.Value(b).IsValid(lenient) {
		return nil, fmt.Errorf("meta: raw object: %w", json.Unmarshal(b, new(jsontext.Value)))
	}
	r := new(Raw)
	if err := r.set(bytes.Clone(b), false, nil); err != nil {
		return nil, err
	}
	return r, nil
}

// UnmarshalJSONFrom implements json.UnmarshalerFrom: it reads one value from
// dec (which validates it) and keeps a private copy of it.
func (r *Raw) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	opts := dec.Options()
	if dropsManagedFields(opts) {
		return r.set(v, true, opts)
	}
	return r.set(bytes.Clone(v), false, opts)
}

// dropsManagedFields reports whether opts hold SkipManagedFields' decoder
// for ManagedFields, alone or joined with others.
func dropsManagedFields(opts json.Options) bool {
	u, ok := json.GetOption(opts, json.WithUnmarshalers)
	if !ok || u == nil {
		return false
	}
	if u == skipUnmarshalers {
		return true
	}
	// Joined with the caller's own unmarshalers: ask them what they do
	// with a ManagedFields value.
	var m ManagedFields
	return json.Unmarshal([]byte("[]"), &m, json.WithUnmarshalers(u)) == nil && m == nil
}

// set decodes the metadata of b, which must be valid JSON, into r, with the
// caller's decode options opts (nil: none; a [Sharer]'s unmarshalers among
// them then share r's labels and annotations), and keeps
// b (which r now owns), or, with drop, a copy of b without
// metadata.managedFields (b is then not kept). It decodes only the kind,
// apiVersion and metadata members and stops scanning once it has all three:
// the rest of the object was already validated, and parsing it again only
// to skip it doubled the cost of a Raw decode.
func (r *Raw) set(b []byte, drop bool, opts json.Options) error {
	if k := jsontext.Value(b).Kind(); k != '{' {
		return fmt.Errorf("meta: raw object: want a JSON object, got %v", k)
	}
	*r = Raw{raw: b}
	buf := metaScratch.Get().(*[]byte)
	defer metaScratch.Put(buf)
	var err error
	var seen uint8
	metaAt, metaEnd := -1, -1
	_, scanErr := eachMember(b, 0, func(_ int, name []byte, at int) (int, bool) {
		var end int
		switch string(canonicalName(name)) { // no allocation: the conversion is in the switch
		case `"kind"`:
			seen |= 1
			end, err = unmarshalMember(b, at, &r.Kind)
		case `"apiVersion"`:
			seen |= 2
			end, err = unmarshalMember(b, at, &r.APIVersion)
		case `"metadata"`:
			seen |= 4
			end, err = r.setMeta(b, at, buf, opts)
			metaAt, metaEnd = at, end
		default:
			end, _ = skipMember(b, at)
		}
		return end, err == nil && seen != 7
	})
	if err == nil {
		err = scanErr
	}
	if err != nil {
		return fmt.Errorf("meta: raw object: %w", err)
	}
	switch {
	case !drop:
	case metaAt >= 0 && b[metaAt] == '{':
		// *buf holds the metadata as setMeta decoded it: without
		// managedFields.
		kept := make([]byte, 0, metaAt+len(*buf)+len(b)-metaEnd)
		r.raw = append(append(append(kept, b[:metaAt]...), *buf...), b[metaEnd:]...)
	default:
		r.raw = bytes.Clone(b)
	}
	return nil
}

// metaScratch holds the buffers setMeta copies metadata into; the decoder
// copies every string it keeps, so a buffer is free again once it returns.
var metaScratch = sync.Pool{New: func() any { return new([]byte) }}

// setMeta decodes the metadata object at b[at] into r.ObjectMeta, leaving
// out managedFields, which Raw keeps only in its bytes (if at all), and
// returns the index just past it; *buf is left holding the metadata without
// managedFields. Copying the rest of the metadata aside (about a kilobyte
// on a pod) costs less than letting the decoder tokenize managedFields only
// to skip them (several kilobytes); the copy is made by the same scan that
// finds where the metadata ends.
func (r *Raw) setMeta(b []byte, at int, buf *[]byte, opts json.Options) (int, error) {
	if b[at] != '{' { // null, or a type error to report
		return unmarshalMember(b, at, &r.ObjectMeta)
	}
	if opts == nil {
		opts = lenient
	}
	stripped, end, err := appendWithout((*buf)[:0], b, at, `"managedFields"`)
	*buf = stripped
	if err != nil {
		return -1, err
	}
	return end, json.Unmarshal(stripped, &r.ObjectMeta, opts, lenient)
}

// unmarshalMember decodes the value at b[at] into v and returns the index
// just past it.
func unmarshalMember(b []byte, at int, v any) (int, error) {
	end, ok := valueEnd(b, at)
	if !ok {
		return -1, errScan
	}
	return end, json.Unmarshal(b[at:end], v, lenient)
}

// canonicalName returns a quoted member name with its escapes resolved, so
// "meta\u0064ata" is found too. Names without a backslash, all real ones,
// are returned as they are.
func canonicalName(quoted []byte) []byte {
	if bytes.IndexByte(quoted, '\\') < 0 {
		return quoted
	}
	u, err := jsontext.AppendUnquote(nil, quoted)
	if err != nil {
		return nil
	}
	return append(append([]byte{'"'}, u...), '"')
}

// MarshalJSONTo implements json.MarshalerTo: it writes the bytes Raw was
// decoded from.
func (r *Raw) MarshalJSONTo(enc *jsontext.Encoder) error {
	if r.raw == nil {
		return enc.WriteToken(jsontext.Null)
	}
	return enc.WriteValue(r.raw)
}

// Bytes returns the object's JSON as it arrived. The caller must not modify it.
func (r *Raw) Bytes() []byte { return r.raw }

// DecodeInto decodes the whole object into v, for callers that want a typed
// view of a Raw object.
func (r *Raw) DecodeInto(v any) error { return json.Unmarshal(r.raw, v) }

// SetDecoded makes r the object of type tm and metadata om whose JSON is b,
// for a decoder that wrote b itself and decoded om from the same source
// (package protodec, which transcodes protobuf to JSON): nothing is
// validated or decoded again. b must be a JSON object holding tm and om,
// without metadata.managedFields when om was decoded without them; r now
// owns b. om's ManagedFields are left out, as every Raw leaves them.
func (r *Raw) SetDecoded(tm TypeMeta, om ObjectMeta, b []byte) {
	om.ManagedFields = nil
	*r = Raw{TypeMeta: tm, ObjectMeta: om, raw: b}
}
