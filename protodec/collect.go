package protodec

import (
	"encoding/base64"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/zerokube/zerokube/internal/pbwire"
	"github.com/zerokube/zerokube/kubeproto"
)

// occurrence is one occurrence of a collected field: its wire type and its
// raw value as it follows the tag.
type occurrence struct {
	wt  pbwire.Type
	val []byte
}

// gather finds every occurrence of field num in b, which starts at the
// first one. It returns them in s.occ, and the bytes that determine them:
// the occurrences, tags included, in order. That is the span from the
// first to the last when nothing else lies between, as with every encoder
// kube-apiserver uses; else a copy of them, so that a map split by other
// fields has the key the same map has whole (and is shared with it).
func (s *state) gather(num int, b []byte) ([]occurrence, []byte, error) {
	occ := s.occs[:0]
	end, contiguous := 0, true
	for i := 0; i < len(b); {
		n2, wt, n := pbwire.ConsumeTag(b[i:])
		if n < 0 {
			return nil, nil, errWire
		}
		m := pbwire.ConsumeValue(wt, b[i+n:])
		if m < 0 {
			return nil, nil, errWire
		}
		if n2 == num {
			if contiguous && end != i {
				contiguous = false
				s.key = append(s.key[:0], b[:end]...)
			}
			if contiguous {
				end = i + n + m
			} else {
				s.key = append(s.key, b[i:i+n+m]...)
			}
			occ = append(occ, occurrence{wt, b[i+n : i+n+m]})
		}
		i += n + m
	}
	s.occs = occ
	if contiguous {
		return occ, b[:end], nil
	}
	return occ, s.key, nil
}

// collected decodes every occurrence of a map field, or of a field decoded
// as one JSON array, at once.
func (s *state) collected(fp *fieldPlan, loc unsafe.Pointer, num int, b []byte) error {
	occ, key, err := s.gather(num, b)
	if err != nil {
		return err
	}
	if fp.field.Map() {
		for _, o := range occ { // each entry is a message
			if o.wt != pbwire.Bytes {
				return errWireType(o.wt, pbwire.Bytes)
			}
		}
	}
	switch fp.op {
	case opMapString:
		return s.mapString(loc, occ, key)
	case opMap:
		return s.mapOf(fp, loc, occ)
	}
	// JSON: an object for a map, an array otherwise.
	j := s.json[:0]
	if fp.field.Map() {
		j, err = s.appendMapJSON(j, fp.msg, occ)
	} else {
		j, err = s.appendArrayJSON(j, fp.kind, fp.msg, occ)
	}
	s.json = j
	if err != nil {
		return err
	}
	return s.unmarshalJSON(j, reflect.NewAt(fp.typ, loc).Interface())
}

// entry splits a map entry {1 key, 2 value} into its key and its value's
// raw occurrence; a missing value is its zero (ok reports it present).
func entry(b []byte) (key []byte, val occurrence, ok bool, err error) {
	e, n := pbwire.ConsumeBytes(b)
	if n < 0 {
		return nil, val, false, errWire
	}
	f, err := smallMessage(e)
	if err != nil {
		return nil, val, false, err
	}
	if f[0].ok && f[0].wt != pbwire.Bytes {
		return nil, val, false, errWireType(f[0].wt, pbwire.Bytes)
	}
	return f[0].b, occurrence{f[1].wt, f[1].raw}, f[1].ok, nil
}

// mapOf builds a map[string]Y from entries whose values decode by fp.elem.
func (s *state) mapOf(fp *fieldPlan, loc unsafe.Pointer, occ []occurrence) error {
	mv := reflect.MakeMapWithSize(fp.typ, len(occ))
	et := fp.typ.Elem()
	for _, o := range occ {
		k, v, ok, err := entry(o.val)
		if err != nil {
			return err
		}
		ev := reflect.New(et)
		if !ok {
			v = zeroOccurrence(fp.elem.kind) // decoded as the JSON form's zero value is
		}
		if err := s.value(fp.elem, ev.UnsafePointer(), v.wt, v.val); err != nil {
			return &elemError{seg: string(k), err: fmt.Errorf("map value %q: %w", k, err)}
		}
		mv.SetMapIndex(reflect.ValueOf(s.strs.get(k)).Convert(fp.typ.Key()), ev.Elem())
	}
	reflect.NewAt(fp.typ, loc).Elem().Set(mv)
	return nil
}

// jsonValue decodes one value by its JSON form into loc, which holds a
// vp.typ.
func (s *state) jsonValue(vp *value, loc unsafe.Pointer, wt pbwire.Type, val []byte) error {
	j, err := s.appendValueJSON(s.json[:0], vp.kind, vp.msg, occurrence{wt, val})
	s.json = j
	if err != nil {
		return err
	}
	return s.unmarshalJSON(j, reflect.NewAt(vp.typ, loc).Interface())
}

func (s *state) appendArrayJSON(j []byte, k kind, m kubeproto.Message, occ []occurrence) ([]byte, error) {
	j = append(j, '[')
	open := len(j)
	for _, o := range occ {
		var err error
		if o.wt == pbwire.Bytes && wireWant(k) != pbwire.Bytes {
			j, err = appendPackedJSON(j, open, k, o.val) // a run of any length, none included
		} else {
			if len(j) > open {
				j = append(j, ',')
			}
			j, err = s.appendValueJSON(j, k, m, o)
		}
		if err != nil {
			return j, err
		}
	}
	return append(j, ']'), nil
}

// appendPackedJSON appends the values of a packed run to the array whose
// elements start at j[open:].
func appendPackedJSON(j []byte, open int, k kind, val []byte) ([]byte, error) {
	v, n := pbwire.ConsumeBytes(val)
	if n < 0 {
		return j, errWire
	}
	wt := wireWant(k)
	for len(v) > 0 {
		m := pbwire.ConsumeValue(wt, v)
		if m < 0 {
			return j, errWire
		}
		if len(j) > open {
			j = append(j, ',')
		}
		var err error
		if j, err = appendScalarJSON(j, k, occurrence{wt, v[:m]}); err != nil {
			return j, err
		}
		v = v[m:]
	}
	return j, nil
}

func (s *state) appendMapJSON(j []byte, entryMsg kubeproto.Message, occ []occurrence) ([]byte, error) {
	vf, _ := entryMsg.FieldByNumber(2)
	j = append(j, '{')
	for i, o := range occ {
		k, v, ok, err := entry(o.val)
		if err != nil {
			return j, err
		}
		if i > 0 {
			j = append(j, ',')
		}
		j, _ = jsontext.AppendQuote(j, k) // invalid UTF-8 as U+FFFD, as in appendScalarJSON
		j = append(j, ':')
		if !ok {
			v = zeroOccurrence(vf.Kind())
		}
		if j, err = s.appendValueJSON(j, vf.Kind(), vf.Message(), v); err != nil {
			return j, err
		}
	}
	return append(j, '}'), nil
}

// zeroOccurrence is the raw encoding of kind k's zero value.
func zeroOccurrence(k kind) occurrence {
	switch wt := wireWant(k); wt {
	case pbwire.Fixed64:
		return occurrence{wt, make([]byte, 8)}
	default:
		return occurrence{wt, []byte{0}}
	}
}

// appendValueJSON appends the JSON form of one value of kind k.
func (s *state) appendValueJSON(j []byte, k kind, m kubeproto.Message, o occurrence) ([]byte, error) {
	if want := wireWant(k); o.wt != want {
		return j, errWireType(o.wt, want)
	}
	if k != kMessage {
		return appendScalarJSON(j, k, o)
	}
	b, n := pbwire.ConsumeBytes(o.val)
	if n < 0 {
		return j, errWire
	}
	return kubeproto.AppendJSON(j, m, b)
}

// appendScalarJSON appends a scalar as encoding/json writes it.
func appendScalarJSON(j []byte, k kind, o occurrence) ([]byte, error) {
	switch k {
	case kString, kBytes:
		b, n := pbwire.ConsumeBytes(o.val)
		if n < 0 {
			return j, errWire
		}
		if k == kBytes {
			j = append(j, '"')
			j = base64.StdEncoding.AppendEncode(j, b)
			return append(j, '"'), nil
		}
		// Invalid UTF-8 is written as U+FFFD, byte by byte, as
		// kube-apiserver's JSON has it; the error only says it happened.
		j, _ = jsontext.AppendQuote(j, b)
		return j, nil
	case kFloat64:
		u, n := pbwire.ConsumeFixed64(o.val)
		if n < 0 {
			return j, errWire
		}
		f := math.Float64frombits(u)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return j, fmt.Errorf("%v has no JSON form", f)
		}
		return strconv.AppendFloat(j, f, 'g', -1, 64), nil
	}
	u, n := pbwire.ConsumeVarint(o.val)
	if n < 0 {
		return j, errWire
	}
	switch k {
	case kBool:
		return strconv.AppendBool(j, u != 0), nil
	case kUint64:
		return strconv.AppendUint(j, u, 10), nil
	}
	x, _ := signed(k, u)
	return strconv.AppendInt(j, x, 10), nil
}
