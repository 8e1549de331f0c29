package protodec

import (
	"reflect"
	"unsafe"

	"github.com/zerokube/zerokube/internal/pbwire"
	"github.com/zerokube/zerokube/kubeproto"
	"github.com/zerokube/zerokube/meta"
)

// meta.Raw under SkipManagedFields (an informer's default) keeps the
// object's JSON without metadata.managedFields and decodes its metadata.
// Transcoding the whole message and handing the JSON to Raw's own decoder
// did that at three times the cost it needs: managedFields (about 40% of a
// pod) were transcoded only to be cut out again, and the JSON the
// transcoder had just written was validated and scanned once more to find
// the metadata, which was then decoded from JSON. Instead the fast path
// below transcodes the message without managedFields and decodes the
// metadata straight from the protobuf, through the same plan (and Sharer)
// as any struct; the result is the same Raw, byte for byte
// (FuzzDecodesAsTheJSONPath compares them). managedFields are stepped over
// by their length, as a slim type steps over them: a fault inside them no
// longer fails the object, since nothing of them is kept.

// rawMeta is where the fast path decodes a Raw's metadata.
type rawMeta struct {
	Metadata meta.ObjectMeta `json:"metadata"`
}

var (
	rawType     = reflect.TypeFor[meta.Raw]()
	rawMetaType = reflect.TypeFor[rawMeta]()
)

// rawFields are the field numbers of metadata in a message and of
// managedFields in its ObjectMeta; zero when the message has none.
type rawFields struct{ metadata, managedFields int }

// rawFieldsOf finds m's metadata and the managedFields within it.
func rawFieldsOf(m kubeproto.Message) rawFields {
	f, ok := m.FieldByJSON("metadata")
	if !ok || f.Inline() || f.Repeated() || f.Kind() != kMessage {
		return rawFields{}
	}
	mf, ok := f.Message().FieldByJSON("managedFields")
	if !ok {
		return rawFields{}
	}
	return rawFields{f.Number(), mf.Number()}
}

// raw decodes message b into r as a Raw decoded from its JSON form under
// SkipManagedFields would hold it. ok is false when the message is not one
// the fast path reads (no metadata field, or malformed): the caller then
// takes the JSON path, which reports what is wrong.
func (s *state) raw(m kubeproto.Message, p *plan, rf rawFields, apiVersion, kind string, b []byte, r *meta.Raw) (bool, error) {
	stripped, ok := s.withoutField(b, rf.metadata, rf.managedFields)
	if !ok {
		return false, nil
	}
	j := s.json[:0]
	j = appendTypeMeta(j, kind, apiVersion)
	n := len(j) // where the object's own '{' goes
	j, err := kubeproto.AppendJSON(j, m, stripped)
	s.json = j
	if err != nil {
		return true, err
	}
	if len(j) < n+2 || j[n] != '{' {
		return false, nil // not an object: the JSON path says so
	}
	if n > 0 {
		// Splice, as viaJSON does: drop the object's own '{', or close an
		// empty one.
		if j[n+1] == '}' {
			j = append(j[:n-1], j[n+1:]...)
		} else {
			j = append(j[:n], j[n+1:]...)
		}
		s.json = j
	}
	var rm rawMeta
	if err := s.message(p, unsafe.Pointer(&rm), stripped); err != nil {
		return true, err
	}
	kept := make([]byte, len(j)) // exactly: a cache holds it
	copy(kept, j)
	r.SetDecoded(meta.TypeMeta{Kind: kind, APIVersion: apiVersion}, rm.Metadata, kept)
	return true, nil
}

// withoutField returns message b without field inner of its field outer
// (in every occurrence of outer), or b itself when no such field is there.
// ok is false when b is malformed.
func (s *state) withoutField(b []byte, outer, inner int) ([]byte, bool) {
	if !hasInner(b, outer, inner) {
		return b, true
	}
	// A scratch of its own: decoding the result gathers a map or list
	// split by other fields into s.key, which must not be where it reads.
	out := s.strip[:0]
	for i := 0; i < len(b); {
		num, wt, n := pbwire.ConsumeTag(b[i:])
		if n < 0 {
			return nil, false
		}
		m := pbwire.ConsumeValue(wt, b[i+n:])
		if m < 0 {
			return nil, false
		}
		if num != outer || wt != pbwire.Bytes {
			out = append(out, b[i:i+n+m]...)
			i += n + m
			continue
		}
		v, _ := pbwire.ConsumeBytes(b[i+n:])
		kept := 0
		for k := 0; k < len(v); {
			num2, wt2, n2 := pbwire.ConsumeTag(v[k:])
			if n2 < 0 {
				return nil, false
			}
			m2 := pbwire.ConsumeValue(wt2, v[k+n2:])
			if m2 < 0 {
				return nil, false
			}
			if num2 != inner {
				kept += n2 + m2
			}
			k += n2 + m2
		}
		out = append(out, b[i:i+n]...) // the tag
		out = pbwire.AppendVarint(out, uint64(kept))
		for k := 0; k < len(v); {
			num2, wt2, n2 := pbwire.ConsumeTag(v[k:])
			m2 := pbwire.ConsumeValue(wt2, v[k+n2:])
			if num2 != inner {
				out = append(out, v[k:k+n2+m2]...)
			}
			k += n2 + m2
		}
		i += n + m
	}
	s.strip = out
	return out, true
}

// hasInner reports whether field inner occurs in an occurrence of field
// outer of b, without copying anything; malformed input reports true, so
// that withoutField finds the fault.
func hasInner(b []byte, outer, inner int) bool {
	for i := 0; i < len(b); {
		num, wt, n := pbwire.ConsumeTag(b[i:])
		if n < 0 {
			return true
		}
		m := pbwire.ConsumeValue(wt, b[i+n:])
		if m < 0 {
			return true
		}
		if num == outer && wt == pbwire.Bytes {
			v, _ := pbwire.ConsumeBytes(b[i+n:])
			for k := 0; k < len(v); {
				num2, wt2, n2 := pbwire.ConsumeTag(v[k:])
				if n2 < 0 {
					return true
				}
				m2 := pbwire.ConsumeValue(wt2, v[k+n2:])
				if m2 < 0 || num2 == inner {
					return true
				}
				k += n2 + m2
			}
		}
		i += n + m
	}
	return false
}
