package meta

import (
	"bytes"
	"fmt"

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
type Raw struct {
	TypeMeta
	ObjectMeta
	raw jsontext.Value
}

// skipManagedFields skips the only jsontext.Value in ObjectMeta, managedFields,
// instead of copying it: Raw already holds those bytes.
var skipManagedFields = json.WithUnmarshalers(json.UnmarshalFromFunc(
	func(dec *jsontext.Decoder, _ *jsontext.Value) error { return dec.SkipValue() }))

// rawHeader is the part of an object Raw decodes.
type rawHeader struct {
	TypeMeta
	Metadata *ObjectMeta `json:"metadata"`
}

// NewRaw decodes b as a JSON object into a Raw that keeps a copy of b.
func NewRaw(b []byte) (*Raw, error) {
	r := new(Raw)
	if err := r.set(bytes.Clone(b)); err != nil {
		return nil, err
	}
	return r, nil
}

// UnmarshalJSONFrom implements json.UnmarshalerFrom: it reads one value from
// dec and keeps a private copy of it, decoding the metadata once.
func (r *Raw) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	return r.set(bytes.Clone(v))
}

// set decodes b's metadata into r and keeps b (which r now owns).
func (r *Raw) set(b []byte) error {
	if k := jsontext.Value(b).Kind(); k != '{' {
		return fmt.Errorf("meta: raw object: want a JSON object, got %v", k)
	}
	*r = Raw{raw: b}
	h := rawHeader{Metadata: &r.ObjectMeta}
	if err := json.Unmarshal(b, &h, skipManagedFields); err != nil {
		return fmt.Errorf("meta: raw object: %w", err)
	}
	r.TypeMeta = h.TypeMeta
	return nil
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
