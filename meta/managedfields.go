package meta

import (
	"bytes"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// ManagedFields is metadata.managedFields kept as the JSON that arrived: the
// field-ownership records of server-side apply. It is often the largest part
// of an object's metadata (kilobytes on a pod) and almost no client reads it,
// so it is never decoded into Go values.
type ManagedFields []byte

// MarshalJSONTo writes the kept JSON, or null when there is none (which
// omitempty then leaves out).
func (m ManagedFields) MarshalJSONTo(enc *jsontext.Encoder) error {
	if len(m) == 0 {
		return enc.WriteToken(jsontext.Null)
	}
	return enc.WriteValue(jsontext.Value(m))
}

// UnmarshalJSONFrom keeps a copy of the next value of dec.
func (m *ManagedFields) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	if v.Kind() == 'n' {
		*m = nil
		return nil
	}
	*m = bytes.Clone(v)
	return nil
}

// skipManagedFields reads the value with ReadValue rather than SkipValue:
// both validate it, but SkipValue walks it token by token through the
// decoder's state machine while ReadValue scans it in one tight loop, about
// three times faster on the kilobytes of managedFields a pod carries.
var (
	skipUnmarshalers = json.UnmarshalFromFunc(func(dec *jsontext.Decoder, _ *ManagedFields) error {
		_, err := dec.ReadValue()
		return err
	})
	skipManagedFields = json.WithUnmarshalers(skipUnmarshalers)
)

// SkipManagedFields returns decode options under which metadata.managedFields
// is skipped instead of copied, and a [Raw] keeps its bytes without it. Pass it where a decoder takes extra options
// (apiclient.ListOptions.Unmarshal, watchstream.Options.Unmarshal): an
// informer that drops managedFields anyway then never allocates them.
func SkipManagedFields() json.Options { return skipManagedFields }

// SkipManagedFieldsUnmarshalers returns the unmarshalers behind
// [SkipManagedFields], to join with others (json.JoinUnmarshalers, as an
// informer joins them with a [Sharer]'s): decode options holding them, alone
// or joined, skip managedFields, and a [Raw] decoded under them drops them.
func SkipManagedFieldsUnmarshalers() *json.Unmarshalers { return skipUnmarshalers }

// Ignored is a field type that reads past a JSON value and keeps nothing.
//
// An unknown member costs more to skip than a known one: the decoder walks
// it token by token, while Ignored lets it scan the value in one validating
// pass (ReadValue). Declare a field of this type for a large member a type
// never reads, as [SlimMeta] does for managedFields. It takes no memory and,
// tagged omitzero, is never encoded.
type Ignored struct{}

// UnmarshalJSONFrom reads the next value of dec and drops it.
func (Ignored) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	_, err := dec.ReadValue()
	return err
}

// MarshalJSONTo writes null: there is nothing to write back.
func (Ignored) MarshalJSONTo(enc *jsontext.Encoder) error {
	return enc.WriteToken(jsontext.Null)
}
