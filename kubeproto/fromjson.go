package kubeproto

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// AppendProto appends the protobuf message of type m encoded from js, a
// JSON object, to dst. Members the message does not declare (such as
// "kind" and "apiVersion", which travel in the Envelope) are skipped; null
// means absent. Fields are written in field-number order.
//
// Not reproduced: kube-apiserver's canonical forms. A resource.Quantity is
// copied as written ("1000m" stays "1000m"), and a RawExtension or FieldsV1
// keeps its JSON bytes.
func AppendProto(dst []byte, m Message, js []byte) ([]byte, error) {
	return appendProto(dst, m, js, false)
}

func appendProto(dst []byte, m Message, js []byte, loose bool) ([]byte, error) {
	if !m.Valid() {
		return dst, fmt.Errorf("kubeproto: AppendProto: invalid Message")
	}
	e, i, err := newEncoder(js, loose, m.Name()+" (JSON)")
	if err != nil {
		return dst, err
	}
	return e.encode(dst, m, i)
}

// newEncoder validates js in one pass, recording where each object and
// array ends (the encoder then steps over nested values by lookup), and
// returns where the top-level value starts.
func newEncoder(js []byte, loose bool, what string) (*encoder, int, error) {
	e := &encoder{js: js, loose: loose}
	i := skipSpace(js, 0)
	end, serr := scanIndexed(js, i, 0, &e.comp)
	if serr != nil || skipSpace(js, end) != len(js) {
		detail := "trailing data after the value"
		if serr != nil {
			detail = serr.Error()
		}
		return nil, 0, &DecodeError{What: what, Offset: end, Err: ErrMalformed, Detail: detail}
	}
	return e, i, nil
}

func (e *encoder) encode(dst []byte, m Message, i int) ([]byte, error) {
	out, err := e.message(dst, m.i-1, i, 0)
	if err != nil {
		err.What = m.Name() + " (JSON)"
		return dst, err
	}
	return out, nil
}

// AppendObjectProto appends the enveloped protobuf form (Magic, then a
// runtime.Unknown) of js, a JSON object whose "apiVersion" and "kind" name
// a kind of the table; otherwise the error wraps ErrUnknownKind.
func AppendObjectProto(dst, js []byte) ([]byte, error) { return appendObjectProto(dst, js, false) }

// AppendObjectProtoLoose is AppendObjectProto for a server that holds
// objects kube-apiserver would have refused (a fake server's fault
// injection): a member whose JSON value does not fit its field is written
// with a wire type no field of the table uses (fixed32), so that a
// protobuf client refuses that object alone, as a JSON client refuses
// the member, and the rest of a list still decodes.
func AppendObjectProtoLoose(dst, js []byte) ([]byte, error) { return appendObjectProto(dst, js, true) }

func appendObjectProto(dst, js []byte, loose bool) ([]byte, error) {
	e, i, err := newEncoder(js, loose, "object (JSON)")
	if err != nil {
		return dst, err
	}
	apiVersion, kind, err := typeMeta(js, i, e.skip)
	if err != nil {
		return dst, err
	}
	m, ok := MessageFor(apiVersion, kind)
	if !ok {
		return dst, &DecodeError{What: "object (JSON)", Err: ErrUnknownKind, Detail: apiVersion + " " + kind}
	}
	start := len(dst)
	dst = AppendEnvelope(dst, Envelope{APIVersion: apiVersion, Kind: kind})
	dst = dst[:len(dst)-6] // drop the empty raw, contentEncoding and contentType
	dst, raw := beginLen(dst, 2)
	dst, err = e.encode(dst, m, i)
	if err != nil {
		return dst[:start], err
	}
	dst = endLen(dst, raw)
	dst = appendStringField(dst, 3, "")
	return appendStringField(dst, 4, ""), nil
}

// typeMeta finds the top-level "apiVersion" and "kind" of a JSON object.
func typeMeta(js []byte, i int, skip skipFunc) (apiVersion, kind string, err error) {
	_, serr := members(js, i, 0, skip, func(m member) error {
		name := string(m.Name)
		if name != "apiVersion" && name != "kind" || js[m.Start] != '"' {
			return nil
		}
		v, err := appendUnquote(nil, js[m.Start:m.End])
		if name == "kind" {
			kind = string(v)
		} else {
			apiVersion = string(v)
		}
		return err
	})
	if serr != nil {
		return "", "", &DecodeError{What: "object (JSON)", Err: ErrMalformed, Detail: serr.Error()}
	}
	return apiVersion, kind, nil
}

type encoder struct {
	js    []byte
	loose bool       // poison a field whose value does not fit (AppendObjectProtoLoose)
	comp  composites // every object and array of js, validated
}

// skip steps over the value at b[i] (b is e.js): a composite by lookup,
// a scalar by scanning it.
func (e *encoder) skip(b []byte, i, depth int) (int, error) {
	if c := b[i]; c == '{' || c == '[' {
		if end := e.comp.end(i); end >= 0 {
			return end, nil
		}
	}
	return scanValue(b, i, depth)
}

type span struct{ start, end int32 }

func (e *encoder) fail(off int, detail string) *DecodeError {
	return &DecodeError{Offset: off, Err: ErrMalformed, Detail: detail}
}

// message encodes the object at js[i] as message mi (no tag, no length).
func (e *encoder) message(dst []byte, mi int32, i, depth int) ([]byte, *DecodeError) {
	if depth > maxDepth {
		return dst, e.fail(i, "nested too deep")
	}
	m := &messages[mi]
	var stack [64]span
	vals := stack[:0]
	if int(m.nfields) > len(stack) {
		vals = make([]span, m.nfields)
	} else {
		vals = stack[:m.nfields]
	}
	if i < 0 { // absent: every field zero
		return e.zeroFields(dst, m, depth), nil
	}
	if i < len(e.js) && e.js[i] == 'n' { // null: the empty message
		if _, err := scanLiteral(e.js, i, "null"); err != nil {
			return dst, e.fail(i, "want an object")
		}
		return e.zeroFields(dst, m, depth), nil
	}
	_, err := members(e.js, i, depth, e.skip, func(mb member) error {
		name := mb.Name
		if mb.NameEscaped {
			name, _ = appendUnquote(nil, e.js[mb.NameAt:mb.NameAt+len(mb.Name)+2])
		}
		for k := range int(m.nfields) {
			f := &fields[int(m.fields)+k]
			if f.flags&fInline == 0 && str(f.json) == string(name) {
				vals[k] = span{int32(mb.Start), int32(mb.End)}
				break
			}
		}
		return nil
	})
	if err != nil {
		var de *DecodeError
		if errors.As(err, &de) {
			return dst, de
		}
		return dst, e.fail(i, err.Error())
	}
	for n := 1; n <= int(m.maxNum); n++ {
		pos := byNum[int(m.byNum)+n-1]
		if pos == 0 {
			continue
		}
		f := &fields[int(m.fields)+int(pos)-1]
		var derr *DecodeError
		if f.flags&fInline != 0 {
			var start int
			dst, start = beginLen(dst, n)
			dst, derr = e.message(dst, int32(f.typ), i, depth+1)
			dst = endLen(dst, start)
		} else if v := vals[pos-1]; v.end > 0 && !e.isNull(int(v.start)) {
			before := len(dst)
			dst, derr = e.field(dst, f, int(v.start), depth)
			if derr != nil && e.loose {
				dst = append(appendTag(dst[:before], n, wireFixed32), 0, 0, 0, 0)
				derr = nil
			}
		} else if f.flags&(fNullable|fRepeated|fMap) == 0 {
			dst = e.zero(dst, f, depth)
		}
		if derr != nil {
			return dst, derr.prefix(str(f.json), 0)
		}
	}
	return dst, nil
}

// zero writes what Kubernetes' generated marshallers write for a field
// the JSON left out: a non-pointer field is always written (an empty
// string, a 0, a message of zero fields), except a nil []byte.
func (e *encoder) zero(dst []byte, f *field, depth int) []byte {
	switch f.kind {
	case kString:
		return appendStringField(dst, int(f.num), "")
	case kBytes:
		return dst
	case kMessage:
		dst, start := beginLen(dst, int(f.num))
		switch messages[f.typ].special {
		case sQuantity:
			dst = appendStringField(dst, 1, "0")
		case sIntOrString:
			dst = append(dst, 0x08, 0, 0x10, 0, 0x1a, 0) // type 0, intVal 0, strVal ""
		case sDuration:
			dst = append(dst, 0x08, 0)
		case sTime, sMicroTime, sRawExtension, sFieldsV1, sStringArray:
		default:
			if depth < maxDepth {
				dst = e.zeroFields(dst, &messages[f.typ], depth+1)
			}
		}
		return endLen(dst, start)
	}
	return append(appendTag(dst, int(f.num), wireVarint), 0)
}

func (e *encoder) zeroFields(dst []byte, m *message, depth int) []byte {
	for n := 1; n <= int(m.maxNum); n++ {
		if pos := byNum[int(m.byNum)+n-1]; pos != 0 {
			if f := &fields[int(m.fields)+int(pos)-1]; f.flags&(fNullable|fRepeated|fMap) == 0 {
				dst = e.zero(dst, f, depth)
			}
		}
	}
	return dst
}

func (e *encoder) isNull(i int) bool { return e.js[i] == 'n' }

// field encodes a member's value at js[i] as field f (tags included).
func (e *encoder) field(dst []byte, f *field, i, depth int) ([]byte, *DecodeError) {
	if e.isNull(i) {
		return dst, nil
	}
	switch {
	case f.flags&fMap != 0:
		return e.mapField(dst, f, i, depth)
	case f.flags&fRepeated != 0:
		n := 0
		err := elements(e.js, i, depth, e.skip, func(start, _ int) error {
			var derr *DecodeError
			dst, derr = e.value(dst, int(f.num), f.kind, f.typ, start, depth)
			if derr != nil {
				return derr.prefix("["+strconv.Itoa(n)+"]", 0)
			}
			n++
			return nil
		})
		return dst, e.asDecodeError(err, i)
	}
	return e.value(dst, int(f.num), f.kind, f.typ, i, depth)
}

func (e *encoder) asDecodeError(err error, i int) *DecodeError {
	if err == nil {
		return nil
	}
	var de *DecodeError
	if errors.As(err, &de) {
		return de
	}
	return e.fail(i, err.Error())
}

func (e *encoder) mapField(dst []byte, f *field, i, depth int) ([]byte, *DecodeError) {
	entry := &messages[f.typ]
	vf := &fields[int(entry.fields)+1]
	_, err := members(e.js, i, depth, e.skip, func(mb member) error {
		var start int
		dst, start = beginLen(dst, int(f.num))
		var ks int
		dst, ks = beginLen(dst, 1)
		var uerr error
		if dst, uerr = appendUnquote(dst, e.js[mb.NameAt:mb.NameAt+len(mb.Name)+2]); uerr != nil {
			return e.fail(mb.NameAt, uerr.Error())
		}
		dst = endLen(dst, ks)
		if !e.isNull(mb.Start) {
			var derr *DecodeError
			if dst, derr = e.value(dst, 2, vf.kind, vf.typ, mb.Start, depth); derr != nil {
				return derr.prefix("["+strconv.Quote(string(mb.Name))+"]", 0)
			}
		}
		dst = endLen(dst, start)
		return nil
	})
	return dst, e.asDecodeError(err, i)
}

// value encodes one value at js[i] as field number num of the given kind.
func (e *encoder) value(dst []byte, num int, kind uint8, typ uint16, i, depth int) ([]byte, *DecodeError) {
	switch kind {
	case kString, kBytes:
		if e.isNull(i) {
			return appendStringField(dst, num, ""), nil
		}
		s, err := e.stringAt(i)
		if err != nil {
			return dst, err
		}
		if kind == kString {
			return appendBytesField(dst, num, s), nil
		}
		dst, start := beginLen(dst, num)
		var derr error
		if dst, derr = base64.StdEncoding.AppendDecode(dst, s); derr != nil {
			return dst, e.fail(i, "bytes field: "+derr.Error())
		}
		return endLen(dst, start), nil
	case kBool:
		switch e.js[i] {
		case 't':
			return append(appendTag(dst, num, wireVarint), 1), nil
		case 'f', 'n':
			return append(appendTag(dst, num, wireVarint), 0), nil
		}
		return dst, e.fail(i, "want true or false")
	case kInt32, kInt64, kUint32, kUint64:
		x, err := e.intAt(i, kind)
		if err != nil {
			return dst, err
		}
		return appendVarint(appendTag(dst, num, wireVarint), x), nil
	case kMessage:
		dst, start := beginLen(dst, num)
		var err *DecodeError
		if sp := messages[typ].special; sp != 0 && sp != sUnknown && sp != sMapEntry {
			dst, err = e.special(dst, sp, i, depth)
		} else {
			dst, err = e.message(dst, int32(typ), i, depth+1)
		}
		return endLen(dst, start), err
	}
	return dst, e.fail(i, "float64 fields are not in the table")
}

// stringAt returns the unquoted JSON string at js[i] (aliasing js when it
// holds no escapes and is valid UTF-8).
func (e *encoder) stringAt(i int) ([]byte, *DecodeError) {
	if e.js[i] != '"' {
		return nil, e.fail(i, "want a string")
	}
	end, esc, _ := scanString(e.js, i) // the object scan validated it
	if !esc && utf8.Valid(e.js[i+1:end-1]) {
		return e.js[i+1 : end-1], nil
	}
	s, err := appendUnquote(nil, e.js[i:end])
	if err != nil {
		return nil, e.fail(i, err.Error())
	}
	return s, nil
}

func (e *encoder) intAt(i int, kind uint8) (uint64, *DecodeError) {
	end, _ := scanValue(e.js, i, 0)
	lit := string(e.js[i:end])
	v, err := strconv.ParseInt(lit, 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(lit, 64)
		if ferr != nil || f != math.Trunc(f) || f < math.MinInt64 || f > math.MaxInt64 {
			return 0, e.fail(i, "want an integer, got "+strconv.Quote(lit))
		}
		v = int64(f)
	}
	if kind == kInt32 && (v < math.MinInt32 || v > math.MaxInt32) ||
		kind == kUint32 && (v < 0 || v > math.MaxUint32) || kind == kUint64 && v < 0 {
		return 0, e.fail(i, "integer "+lit+" out of range")
	}
	return uint64(v), nil
}

// special encodes the JSON form of a special message as its protobuf
// fields (the caller wrote the tag and length).
func (e *encoder) special(dst []byte, sp uint8, i, depth int) ([]byte, *DecodeError) {
	if e.isNull(i) && sp != sRawExtension && sp != sFieldsV1 {
		return dst, nil
	}
	switch sp {
	case sTime, sMicroTime:
		s, err := e.stringAt(i)
		if err != nil {
			return dst, err
		}
		t, perr := time.Parse(time.RFC3339, string(s))
		if perr != nil {
			return dst, e.fail(i, "time: "+perr.Error())
		}
		if t.IsZero() {
			return dst, nil
		}
		dst = appendVarint(appendTag(dst, 1, wireVarint), uint64(t.Unix()))
		return appendVarint(appendTag(dst, 2, wireVarint), uint64(int64(t.Nanosecond()))), nil
	case sDuration:
		s, err := e.stringAt(i)
		if err != nil {
			return dst, err
		}
		d, perr := time.ParseDuration(string(s))
		if perr != nil {
			return dst, e.fail(i, "duration: "+perr.Error())
		}
		return appendVarint(appendTag(dst, 1, wireVarint), uint64(d)), nil
	case sQuantity:
		if e.js[i] == '"' {
			s, err := e.stringAt(i)
			if err != nil {
				return dst, err
			}
			return appendBytesField(dst, 1, s), nil
		}
		end, _ := scanValue(e.js, i, 0)
		if _, err := strconv.ParseFloat(string(e.js[i:end]), 64); err != nil {
			return dst, e.fail(i, "quantity: want a string or a number")
		}
		return appendBytesField(dst, 1, e.js[i:end]), nil
	case sIntOrString:
		if e.js[i] == '"' {
			s, err := e.stringAt(i)
			if err != nil {
				return dst, err
			}
			dst = append(appendTag(dst, 1, wireVarint), 1)
			dst = append(appendTag(dst, 2, wireVarint), 0)
			return appendBytesField(dst, 3, s), nil
		}
		x, err := e.intAt(i, kInt32)
		if err != nil {
			return dst, err
		}
		dst = append(appendTag(dst, 1, wireVarint), 0)
		dst = appendVarint(appendTag(dst, 2, wireVarint), x)
		return appendStringField(dst, 3, ""), nil
	case sRawExtension, sFieldsV1:
		// Compacted, as encoding/json writes a RawMessage: the same bytes
		// whether the JSON came indented or not.
		end, _ := e.skip(e.js, i, depth)
		dst, start := beginLen(dst, 1)
		dst = append(dst, e.js[i:end]...)
		v := jsontext.Value(dst[start:])
		if err := v.Compact(jsontext.AllowInvalidUTF8(false)); err != nil {
			return dst[:start], e.fail(i, "invalid JSON: "+err.Error())
		}
		return endLen(dst[:start+len(v)], start), nil
	case sStringArray:
		err := elements(e.js, i, depth, e.skip, func(start, _ int) error {
			s, derr := e.stringAt(start)
			if derr != nil {
				return derr
			}
			dst = appendBytesField(dst, 1, s)
			return nil
		})
		return dst, e.asDecodeError(err, i)
	}
	return dst, e.fail(i, "unknown special message")
}
