package protodec

import (
	"fmt"
	"reflect"
	"sync"
	"unsafe"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/zerokube/zerokube/kubeproto"
	"github.com/zerokube/zerokube/meta"
)

// Options configure a Decoder. The zero value decodes every field the Go
// type declares, shares nothing, and keeps managedFields.
type Options struct {
	// Sharer, when set, decodes map<string,string> fields into
	// map[string]string values through it, so that objects share equal
	// maps (meta.Sharer, as the JSON path does). Nil: every object gets
	// maps of its own.
	Sharer *meta.Sharer
	// SkipManagedFields reads past metadata.managedFields when the Go type
	// keeps them (meta.ManagedFields), as meta.SkipManagedFields does for
	// JSON.
	SkipManagedFields bool
	// JSON holds the options of the JSON decoder for the values the fast
	// path leaves to it (types with their own unmarshal methods, and
	// pairings of wire and Go types it does not know). They should agree
	// with Sharer and SkipManagedFields: an informer passes the options its
	// JSON path uses. Nil: none.
	JSON json.Options
}

// A Decoder decodes protobuf messages of the built-in kinds into Go values.
// It builds a plan per Go type and message once, by reflection, and keeps
// it; it keeps the strings of recently decoded objects to share equal
// short strings between them, as the JSON decoder does. It is safe for
// concurrent use. Make one per informer (or per stream of one type): it
// holds no global state.
type Decoder struct {
	opts Options

	mu sync.Mutex // guards pl
	pl planner

	states sync.Pool // of *state
}

// New returns a Decoder configured by opts.
func New(opts Options) *Decoder {
	d := &Decoder{opts: opts}
	d.pl = planner{plans: map[planKey]*plan{}, skipManaged: opts.SkipManagedFields,
		fieldsOfStruct: map[reflect.Type]map[string]goField{}, rawFields: map[kubeproto.Message]rawFields{}}
	d.states.New = func() any { return &state{d: d} }
	return d
}

// Unmarshal decodes b, an encoded message m (without the k8s envelope),
// into v, a non-nil pointer to a struct. Fields are matched by their JSON
// names; fields v does not declare are stepped over by their length.
func (d *Decoder) Unmarshal(m kubeproto.Message, b []byte, v any) error {
	return d.UnmarshalTyped(m, "", "", b, v)
}

// UnmarshalTyped is Unmarshal for an object whose apiVersion and kind came
// beside it (in its envelope): v gets them as its JSON form would carry
// them, in its "apiVersion" and "kind" string fields (meta.TypeMeta's), or
// in the JSON a type that decodes itself (meta.Raw) reads. Empty ones are
// left out, as list items carry none.
func (d *Decoder) UnmarshalTyped(m kubeproto.Message, apiVersion, kind string, b []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("protodec: Unmarshal into %T: want a non-nil pointer", v)
	}
	if !m.Valid() {
		return fmt.Errorf("protodec: Unmarshal into %T: invalid message", v)
	}
	t := rv.Type().Elem()
	s := d.states.Get().(*state)
	defer d.states.Put(s)
	if t.Kind() != reflect.Struct {
		return s.viaJSON(m, apiVersion, kind, b, v)
	}
	if t == rawType && d.opts.SkipManagedFields {
		if rp, rf := d.rawPlanFor(m); rp != nil {
			if ok, err := s.raw(m, rp, rf, apiVersion, kind, b, (*meta.Raw)(rv.UnsafePointer())); ok {
				return err
			}
		}
	}
	p := d.planFor(t, m)
	if p.whole {
		return s.viaJSON(m, apiVersion, kind, b, v)
	}
	base := rv.UnsafePointer()
	if err := s.message(p, base, b); err != nil {
		return err
	}
	if p.kind >= 0 && kind != "" {
		*(*string)(at(base, uintptr(p.kind))) = kind
	}
	if p.apiVersion >= 0 && apiVersion != "" {
		*(*string)(at(base, uintptr(p.apiVersion))) = apiVersion
	}
	return nil
}

// planFor returns the cached plan of t for m, building it on first use.
func (d *Decoder) planFor(t reflect.Type, m kubeproto.Message) *plan {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.pl.planFor(t, m)
}

// rawPlanFor returns the plan of m's metadata for a meta.Raw, and where
// the metadata and its managedFields are; a nil plan when m has none.
func (d *Decoder) rawPlanFor(m kubeproto.Message) (*plan, rawFields) {
	d.mu.Lock()
	defer d.mu.Unlock()
	rf, ok := d.pl.rawFields[m]
	if !ok {
		rf = rawFieldsOf(m)
		d.pl.rawFields[m] = rf
	}
	if rf.metadata == 0 {
		return nil, rf
	}
	return d.pl.planFor(rawMetaType, m), rf
}

// appendTypeMeta opens a JSON object with kind and apiVersion, when
// either is given ('{' and the members, each with its comma): the object's
// own members follow, without their '{'.
func appendTypeMeta(j []byte, kind, apiVersion string) []byte {
	if kind == "" && apiVersion == "" {
		return j
	}
	j = append(j, '{')
	if kind != "" {
		j = append(j, `"kind":`...)
		j, _ = jsontext.AppendQuote(j, kind)
		j = append(j, ',')
	}
	if apiVersion != "" {
		j = append(j, `"apiVersion":`...)
		j, _ = jsontext.AppendQuote(j, apiVersion)
		j = append(j, ',')
	}
	return j
}

// viaJSON decodes message b by its JSON form, which starts with kind and
// apiVersion when they are given.
func (s *state) viaJSON(m kubeproto.Message, apiVersion, kind string, b []byte, v any) error {
	j := s.json[:0]
	j = appendTypeMeta(j, kind, apiVersion)
	n := len(j)
	j, err := kubeproto.AppendJSON(j, m, b)
	s.json = j
	if err != nil {
		return err
	}
	if n > 0 {
		// Splice: drop the object's own '{', or close an empty one.
		switch {
		case len(j) < n+2 || j[n] != '{':
			return fmt.Errorf("protodec: %s is not a JSON object", m.Name())
		case j[n+1] == '}':
			j = append(j[:n-1], j[n+1:]...)
		default:
			j = append(j[:n], j[n+1:]...)
		}
		s.json = j
	}
	return s.unmarshalJSON(j, v)
}

func (s *state) unmarshalJSON(j []byte, v any) error {
	if s.d.opts.JSON != nil {
		return json.Unmarshal(j, v, lenient, s.d.opts.JSON)
	}
	return json.Unmarshal(j, v, lenient)
}

// at returns the address off bytes into the struct at base.
func at(base unsafe.Pointer, off uintptr) unsafe.Pointer { return unsafe.Add(base, off) }
