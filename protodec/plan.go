package protodec

import (
	"reflect"

	"github.com/zerokube/zerokube/kubeproto"
)

// op says how one protobuf value lands in a Go location.
type op uint8

const (
	opSkip        op = iota // read past it: the Go type does not declare it
	opString                // string → a Go string kind
	opBytes                 // bytes → []byte
	opBool                  // varint → bool
	opInt                   // varint → a Go signed integer kind
	opUint                  // varint → a Go unsigned integer kind
	opFloat                 // varint or fixed64 → a Go float kind
	opTime                  // metav1.Time or MicroTime → time.Time
	opQuantity              // resource.Quantity → a Go string kind
	opIntOrString           // intstr.IntOrString → a Go integer or string kind, as its JSON would
	opStruct                // message → Go struct, by its own plan
	opInline                // inline message → the same Go struct, by a plan of its own
	opMapString             // map<string,string> → map[string]string, shared through the Sharer
	opMap                   // map<string,X> → map[string]Y, Y by elem
	opJSON                  // transcoded to JSON and decoded by the JSON decoder
)

// value is how one wire value is decoded into a Go location.
type value struct {
	op    op
	kind  kind         // the schema kind of the wire value
	typ   reflect.Type // the Go type at the location, after ptr
	ptr   bool         // the location holds a *typ, allocated on first use
	micro bool         // opTime: MicroTime (microseconds), else Time (seconds)
	sub   *plan        // opStruct, opInline: the message's plan
	elem  *value       // opMap: the map's values
	msg   kubeproto.Message
}

// fieldPlan is how one field number of a message is decoded.
type fieldPlan struct {
	value
	off       uintptr
	name      string       // JSON name, for errors
	repeated  bool         // each occurrence appends to a slice of typ (or *typ)
	slice     reflect.Type // the slice type when repeated
	omitEmpty bool         // JSON leaves a zero scalar out: so does the decoder
	collect   bool         // every occurrence is gathered before decoding (maps, JSON arrays)
	field     kubeproto.Field
	goTyp     reflect.Type // the Go type of the whole field, for opJSON
}

// plan decodes one message into one Go struct type.
type plan struct {
	msg    kubeproto.Message
	typ    reflect.Type
	whole  bool         // the struct is decoded from its JSON form
	fields []*fieldPlan // by field number - 1; nil: skipped
	// kind and apiVersion: the offsets of string fields of those JSON
	// names, which a typed decode fills from the envelope; -1: none.
	kind, apiVersion int
}

type planKey struct {
	typ reflect.Type
	msg kubeproto.Message
}

// planner builds plans, sharing one per (type, message) so that recursive
// types terminate and each pair is analysed once.
type planner struct {
	plans          map[planKey]*plan
	skipManaged    bool
	shareMaps      bool
	fieldsOfStruct map[reflect.Type]map[string]goField
	rawFields      map[kubeproto.Message]rawFields // by message, for meta.Raw (raw.go)
}

// planFor returns the plan of struct type t for message m.
func (pl *planner) planFor(t reflect.Type, m kubeproto.Message) *plan {
	k := planKey{t, m}
	if p, ok := pl.plans[k]; ok {
		return p
	}
	p := &plan{msg: m, typ: t, kind: -1, apiVersion: -1}
	pl.plans[k] = p
	gf, ok := pl.goFields(t)
	if !ok || custom(t) {
		p.whole = true
		return p
	}
	if g, ok := gf["kind"]; ok && g.typ.Kind() == reflect.String {
		p.kind = int(g.off)
	}
	if g, ok := gf["apiVersion"]; ok && g.typ.Kind() == reflect.String {
		p.apiVersion = int(g.off)
	}
	for i := range m.NumFields() {
		f := m.Field(i)
		fp := pl.fieldPlan(f, t, gf)
		if fp == nil {
			continue
		}
		n := f.Number()
		for len(p.fields) < n {
			p.fields = append(p.fields, nil)
		}
		p.fields[n-1] = fp
	}
	return p
}

func (pl *planner) goFields(t reflect.Type) (map[string]goField, bool) {
	if gf, ok := pl.fieldsOfStruct[t]; ok {
		return gf, gf != nil
	}
	gf, ok := structFields(t)
	if !ok {
		gf = nil
	}
	pl.fieldsOfStruct[t] = gf
	return gf, ok
}

// fieldPlan decides how field f lands in struct t, whose JSON members are
// gf; nil when the struct does not declare it.
func (pl *planner) fieldPlan(f kubeproto.Field, t reflect.Type, gf map[string]goField) *fieldPlan {
	if f.Inline() {
		// The inline message's members are the struct's own: decode it
		// into the same struct, with a plan of its own.
		return &fieldPlan{value: value{op: opInline, sub: pl.planFor(t, f.Message()), msg: f.Message()},
			field: f, name: f.Message().Name()}
	}
	g, ok := gf[f.JSONName()]
	if !ok {
		return nil
	}
	fp := &fieldPlan{off: g.off, name: f.JSONName(), field: f, goTyp: g.typ, omitEmpty: f.OmitEmpty() && !f.Nullable()}
	switch {
	case g.typ == ignoredType, g.typ == managedFieldsType && pl.skipManaged:
		return nil // read past, kept nowhere
	case f.Map():
		fp.value = pl.mapValue(f, g.typ)
		fp.collect = true
	case f.Repeated():
		if g.typ.Kind() != reflect.Slice || custom(g.typ) || g.typ.Elem().Kind() == reflect.Uint8 {
			fp.value = value{op: opJSON, msg: f.Message(), kind: f.Kind()}
			fp.collect = true
			break
		}
		fp.repeated, fp.slice = true, g.typ
		fp.value = pl.value(f.Kind(), f.Message(), g.typ.Elem())
		if fp.op == opJSON {
			fp.repeated, fp.collect = false, true
		}
	default:
		fp.value = pl.value(f.Kind(), f.Message(), g.typ)
	}
	if fp.op == opJSON {
		fp.typ = g.typ
	}
	return fp
}

// value decides how one value of schema kind k (message m) lands in Go type t.
func (pl *planner) value(k kind, m kubeproto.Message, t reflect.Type) value {
	orig := t
	v := value{kind: k, typ: t, msg: m}
	if t.Kind() == reflect.Pointer {
		v.ptr, v.typ = true, t.Elem()
		t = v.typ
		if t.Kind() == reflect.Pointer {
			return value{op: opJSON, kind: k, msg: m, typ: orig}
		}
	}
	v.op = pl.scalarOp(k, m, t)
	if v.op == opStruct {
		v.sub = pl.planFor(t, m)
	}
	if v.op == opTime {
		v.micro = m.Special() == sMicroTime
	}
	if v.op == opJSON {
		v.ptr, v.typ = false, orig
	}
	return v
}

// scalarOp picks the op for kind k into Go type t (not a pointer).
func (pl *planner) scalarOp(k kind, m kubeproto.Message, t reflect.Type) op {
	if t == timeType {
		if k == kMessage && (m.Special() == sTime || m.Special() == sMicroTime) {
			return opTime
		}
		return opJSON
	}
	if custom(t) {
		return opJSON
	}
	gk := t.Kind()
	switch k {
	case kString:
		if gk == reflect.String {
			return opString
		}
	case kBytes:
		if gk == reflect.Slice && t.Elem().Kind() == reflect.Uint8 && !custom(t.Elem()) {
			return opBytes
		}
	case kBool:
		if gk == reflect.Bool {
			return opBool
		}
	case kInt32, kInt64, kUint32, kUint64, kFloat64:
		switch gk {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			if k != kFloat64 {
				return opInt
			}
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			if k != kFloat64 {
				return opUint
			}
		case reflect.Float32, reflect.Float64:
			return opFloat
		}
	case kMessage:
		switch {
		case m.Special() == sQuantity && gk == reflect.String:
			return opQuantity
		case m.Special() == sIntOrString && (gk == reflect.String || intKind(gk)):
			return opIntOrString
		case m.Special() == 0 && gk == reflect.Struct:
			return opStruct
		}
	}
	return opJSON
}

// mapValue plans a map field: its entries' values land in Go type t, which
// must be a map with string keys for the fast path.
func (pl *planner) mapValue(f kubeproto.Field, t reflect.Type) value {
	entry := f.Message()
	kf, _ := entry.FieldByNumber(1)
	vf, _ := entry.FieldByNumber(2)
	if t.Kind() != reflect.Map || custom(t) || t.Key().Kind() != reflect.String || custom(t.Key()) ||
		kf.Kind() != kString {
		return value{op: opJSON, msg: entry}
	}
	if t.Key() == reflect.TypeFor[string]() && t.Elem() == reflect.TypeFor[string]() && vf.Kind() == kString {
		return value{op: opMapString, typ: t, msg: entry}
	}
	ev := pl.value(vf.Kind(), vf.Message(), t.Elem())
	if ev.op == opJSON {
		return value{op: opJSON, msg: entry}
	}
	return value{op: opMap, typ: t, msg: entry, elem: &ev}
}

func intKind(k reflect.Kind) bool {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return true
	}
	return false
}
