package protodec

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/zerokube/zerokube/kubeproto"
)

// encode writes v (JSON-shaped: map[string]any, []any, string, float64 or
// int, bool) as message m, by the schema, for hand-written test fixtures.
func encode(m kubeproto.Message, v map[string]any) []byte {
	var b []byte
	names := make([]string, 0, len(v))
	for k := range v {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		f, ok := m.FieldByJSON(name)
		if !ok {
			panic(fmt.Sprintf("%s has no field %q", m.Name(), name))
		}
		b = encodeField(b, f, v[name])
	}
	return b
}

func encodeField(b []byte, f kubeproto.Field, v any) []byte {
	switch {
	case f.Map():
		keys := make([]string, 0)
		for k := range v.(map[string]any) {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		vf, _ := f.Message().FieldByNumber(2)
		for _, k := range keys {
			e := encodeValue(encodeValue(nil, 1, kubeproto.KindString, kubeproto.Message{}, k), 2, vf.Kind(), vf.Message(), v.(map[string]any)[k])
			b = appendTagged(b, f.Number(), 2)
			b = binary.AppendUvarint(b, uint64(len(e)))
			b = append(b, e...)
		}
		return b
	case f.Repeated():
		for _, e := range v.([]any) {
			b = encodeValue(b, f.Number(), f.Kind(), f.Message(), e)
		}
		return b
	}
	return encodeValue(b, f.Number(), f.Kind(), f.Message(), v)
}

func appendTagged(b []byte, num, wt int) []byte { return binary.AppendUvarint(b, uint64(num)<<3|uint64(wt)) }

func encodeValue(b []byte, num int, k kubeproto.Kind, m kubeproto.Message, v any) []byte {
	switch k {
	case kString:
		b = appendTagged(b, num, 2)
		b = binary.AppendUvarint(b, uint64(len(v.(string))))
		return append(b, v.(string)...)
	case kBool:
		x := uint64(0)
		if v.(bool) {
			x = 1
		}
		return binary.AppendUvarint(appendTagged(b, num, 0), x)
	case kInt32, kInt64, kUint32, kUint64:
		return binary.AppendUvarint(appendTagged(b, num, 0), uint64(int64(toFloat(v))))
	case kFloat64:
		return binary.LittleEndian.AppendUint64(appendTagged(b, num, 1), math.Float64bits(toFloat(v)))
	}
	var inner []byte
	switch m.Special() {
	case kubeproto.SpecialTime, kubeproto.SpecialMicroTime:
		t, err := time.Parse(time.RFC3339Nano, v.(string))
		if err != nil {
			panic(err)
		}
		inner = binary.AppendUvarint(appendTagged(nil, 1, 0), uint64(t.Unix()))
		if t.Nanosecond() != 0 {
			inner = binary.AppendUvarint(appendTagged(inner, 2, 0), uint64(t.Nanosecond()))
		}
	case kubeproto.SpecialQuantity:
		inner = encodeValue(nil, 1, kString, kubeproto.Message{}, v)
	default:
		inner = encode(m, v.(map[string]any))
	}
	b = appendTagged(b, num, 2)
	b = binary.AppendUvarint(b, uint64(len(inner)))
	return append(b, inner...)
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case int:
		return float64(x)
	}
	panic(fmt.Sprintf("not a number: %T", v))
}
