package protodec

import (
	"fmt"
	"math"
	"reflect"
	"time"
	"unsafe"

	"github.com/zerokube/zerokube/internal/pbwire"
)

// wireWant is the wire type each schema kind travels as.
func wireWant(k kind) pbwire.Type { return pbwire.Type(k.WireType()) }

// value decodes one wire value (val, as it follows its tag) into loc, which
// holds a vp.typ (or a *vp.typ when vp.ptr).
func (s *state) value(vp *value, loc unsafe.Pointer, wt pbwire.Type, val []byte) error {
	if want := wireWant(vp.kind); wt != want {
		return errWireType(wt, want)
	}
	var u uint64
	var b []byte
	var n int
	switch wt {
	case pbwire.Varint:
		u, n = pbwire.ConsumeVarint(val)
	case pbwire.Fixed64:
		u, n = pbwire.ConsumeFixed64(val)
	default:
		b, n = pbwire.ConsumeBytes(val)
	}
	if n < 0 {
		return fmt.Errorf("a truncated value: %w", errWire)
	}
	switch vp.op {
	case opJSON:
		return s.jsonValue(vp, loc, wt, val)
	case opTime:
		return s.time(vp, loc, b)
	}
	if vp.ptr {
		loc = deref(vp.typ, loc)
	}
	switch vp.op {
	case opString:
		*(*string)(loc) = s.strs.get(b)
	case opBytes:
		*(*[]byte)(loc) = append([]byte{}, b...)
	case opBool:
		*(*bool)(loc) = u != 0
	case opInt:
		x, err := signed(vp.kind, u)
		if err != nil {
			return err
		}
		return setInt(vp.typ, loc, x)
	case opUint:
		x, err := signed(vp.kind, u)
		if vp.kind == kUint64 {
			return setUint(vp.typ, loc, u)
		}
		if err == nil && x < 0 {
			err = fmt.Errorf("%d does not fit %v", x, vp.typ)
		}
		if err != nil {
			return err
		}
		return setUint(vp.typ, loc, uint64(x))
	case opFloat:
		return s.float(vp, loc, u)
	case opQuantity:
		q, err := quantity(b)
		if err != nil {
			return err
		}
		if len(q) == 0 {
			q = zeroQuantity // a zero Quantity's JSON form
		}
		*(*string)(loc) = s.strs.get(q)
	case opIntOrString:
		return s.intOrString(vp, loc, b)
	case opStruct:
		if vp.sub.whole {
			return s.viaJSON(vp.msg, "", "", b, reflect.NewAt(vp.typ, loc).Interface())
		}
		return s.message(vp.sub, loc, b)
	default:
		return fmt.Errorf("protodec: no decoder for op %d", vp.op) // unreachable: plans make no other
	}
	return nil
}

// deref returns the value a pointer at loc points to, allocating a zero
// typ first when it is nil.
func deref(typ reflect.Type, loc unsafe.Pointer) unsafe.Pointer {
	p := (*unsafe.Pointer)(loc)
	if *p == nil {
		*p = reflect.New(typ).UnsafePointer()
	}
	return *p
}

// signed interprets varint u as schema kind k says.
func signed(k kind, u uint64) (int64, error) {
	switch k {
	case kInt32:
		return int64(int32(u)), nil
	case kUint32:
		return int64(uint32(u)), nil
	case kUint64:
		if u > math.MaxInt64 {
			return 0, fmt.Errorf("%d overflows int64", u)
		}
	}
	return int64(u), nil
}

func setInt(t reflect.Type, loc unsafe.Pointer, x int64) error {
	switch t.Kind() {
	case reflect.Int64:
		*(*int64)(loc) = x
	case reflect.Int32:
		if int64(int32(x)) != x {
			return fmt.Errorf("%d overflows %v", x, t)
		}
		*(*int32)(loc) = int32(x)
	default:
		v := reflect.NewAt(t, loc).Elem()
		if v.OverflowInt(x) {
			return fmt.Errorf("%d overflows %v", x, t)
		}
		v.SetInt(x)
	}
	return nil
}

func setUint(t reflect.Type, loc unsafe.Pointer, x uint64) error {
	v := reflect.NewAt(t, loc).Elem()
	if v.OverflowUint(x) {
		return fmt.Errorf("%d overflows %v", x, t)
	}
	v.SetUint(x)
	return nil
}

func (s *state) float(vp *value, loc unsafe.Pointer, u uint64) error {
	var f float64
	if vp.kind == kFloat64 {
		f = math.Float64frombits(u)
	} else {
		x, err := signed(vp.kind, u)
		if err != nil {
			return err
		}
		f = float64(x)
	}
	v := reflect.NewAt(vp.typ, loc).Elem()
	if v.OverflowFloat(f) {
		return fmt.Errorf("%g overflows %v", f, vp.typ)
	}
	v.SetFloat(f)
	return nil
}

// time decodes a metav1.Time or MicroTime {1 seconds, 2 nanos} as its JSON
// form would decode: UTC, to the second (Time) or microsecond (MicroTime);
// a zero time (an empty message, or the zero instant) is JSON's null, which
// leaves a pointer nil.
func (s *state) time(vp *value, loc unsafe.Pointer, b []byte) error {
	f, err := smallMessage(b)
	if err != nil {
		return err
	}
	sec, nsec := int64(f[0].u), int64(int32(f[1].u))
	empty := len(b) == 0 // what kube-apiserver writes for a zero time
	if vp.micro {
		nsec -= nsec % 1000
	} else {
		nsec = 0
	}
	t := time.Unix(sec, nsec).UTC()
	if empty || t.IsZero() {
		if !vp.ptr {
			*(*time.Time)(loc) = time.Time{}
		}
		return nil
	}
	if vp.ptr {
		loc = deref(timeType, loc)
	}
	*(*time.Time)(loc) = t
	return nil
}

// zeroQuantity is what resource.Quantity's JSON holds for a zero value.
var zeroQuantity = []byte("0")

// quantity returns the string of a resource.Quantity {1 string}.
func quantity(b []byte) ([]byte, error) {
	f, err := smallMessage(b)
	return f[0].b, err
}

// intOrString decodes an intstr.IntOrString {1 type, 2 intVal, 3 strVal}
// into a Go integer or string, failing where its JSON (a number for type
// 0, a string for type 1) would not fit.
func (s *state) intOrString(vp *value, loc unsafe.Pointer, b []byte) error {
	f, err := smallMessage(b)
	if err != nil {
		return err
	}
	typ, iv, sv := f[0].u, f[1].u, f[2].b
	isString := typ == 1
	if isString != (vp.typ.Kind() == reflect.String) {
		what := "number"
		if isString {
			what = "string"
		}
		return fmt.Errorf("an int-or-string holding a %s does not fit %v", what, vp.typ)
	}
	if isString {
		*(*string)(loc) = s.strs.get(sv)
		return nil
	}
	return setInt(vp.typ, loc, int64(int32(iv)))
}

// small is one field of a small message, as smallMessage read it.
type small struct {
	wt  pbwire.Type
	u   uint64 // a varint's value
	b   []byte // a length-delimited value's content
	raw []byte // the value as it follows its tag
	ok  bool
}

// smallMessage reads fields 1 to 3 of a small message (a special one, a
// map entry), the last occurrence of each winning as in protobuf; other
// fields are stepped over.
func smallMessage(b []byte) (f [3]small, err error) {
	for len(b) > 0 {
		num, wt, n := pbwire.ConsumeTag(b)
		if n < 0 {
			return f, errWire
		}
		b = b[n:]
		m := pbwire.ConsumeValue(wt, b)
		if m < 0 {
			return f, errWire
		}
		if num <= len(f) {
			v := small{wt: wt, raw: b[:m], ok: true}
			switch wt {
			case pbwire.Varint:
				v.u, _ = pbwire.ConsumeVarint(b)
			case pbwire.Bytes:
				v.b, _ = pbwire.ConsumeBytes(b)
			}
			f[num-1] = v
		}
		b = b[m:]
	}
	return f, nil
}
