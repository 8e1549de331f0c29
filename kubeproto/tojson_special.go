package kubeproto

import (
	"slices"
	"strconv"
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

// The JSON forms of special messages (Time, Quantity, IntOrString,
// RawExtension, ...) and of maps.

// appendMessageValueJSON writes a message-typed value: special messages in
// their JSON form, the others as objects.
func appendMessageValueJSON(dst []byte, mi int32, val []byte, depth int) ([]byte, *DecodeError) {
	sp := messages[mi].special
	if sp == 0 || sp == sUnknown || sp == sMapEntry {
		return appendMessageJSON(dst, mi, val, depth)
	}
	var v [3]occ // fields 1..3 of the special message
	var seen [3]bool
	for off := 0; off < len(val); {
		num, typ, fv, x, n, err := next(val[off:])
		if err != nil {
			return dst, errAt("", off, err, "")
		}
		if num >= 1 && num <= 3 {
			start := off + n - len(fv)
			if sp == sStringArray && num == 1 {
				// repeated: handled below by a second walk
			} else {
				v[num-1] = occ{typ: uint8(typ), start: int32(start), end: int32(start + len(fv)), x: x}
				seen[num-1] = true
			}
		}
		off += n
	}
	return appendSpecialJSON(dst, sp, val, v, seen, depth)
}

func appendSpecialJSON(dst []byte, sp uint8, val []byte, v [3]occ, seen [3]bool, depth int) ([]byte, *DecodeError) {
	bytesOf := func(i int) []byte {
		if !seen[i] || v[i].typ != wireBytes {
			return nil
		}
		return val[v[i].start:v[i].end]
	}
	switch sp {
	case sTime, sMicroTime:
		t, ok := timeOf(val)
		if !ok || t.IsZero() {
			return append(dst, "null"...), nil
		}
		layout := time.RFC3339
		if sp == sMicroTime {
			layout = "2006-01-02T15:04:05.000000Z07:00"
		}
		dst = append(dst, '"')
		dst = t.AppendFormat(dst, layout)
		return append(dst, '"'), nil
	case sDuration:
		return appendQuoted(dst, time.Duration(int64(v[0].x)).String()), nil
	case sQuantity:
		s := bytesOf(0)
		if len(s) == 0 {
			return append(dst, `"0"`...), nil
		}
		return appendQuoted(dst, s), nil
	case sIntOrString:
		if v[0].x == 1 {
			return appendQuoted(dst, bytesOf(2)), nil
		}
		return strconv.AppendInt(dst, int64(int32(v[1].x)), 10), nil
	case sRawExtension, sFieldsV1:
		return appendRawJSON(dst, bytesOf(0), seen[0], depth)
	case sStringArray:
		return appendStringArrayJSON(dst, val)
	}
	return dst, errAt("", 0, ErrMalformed, "unknown special message")
}

// appendRawJSON embeds a RawExtension's or FieldsV1's raw bytes, depth
// messages deep: JSON as is (compacted, as encoding/json does), an
// enveloped protobuf object as its JSON, one level deeper.
func appendRawJSON(dst, raw []byte, present bool, depth int) ([]byte, *DecodeError) {
	if !present {
		return append(dst, "null"...), nil
	}
	if len(raw) >= len(Magic) && string(raw[:len(Magic)]) == Magic {
		out, err := appendObjectJSON(dst, raw, depth+1)
		if err != nil {
			if de, ok := err.(*DecodeError); ok {
				return dst, de
			}
			return dst, errAt("", 0, ErrMalformed, err.Error())
		}
		return out, nil
	}
	if len(raw) == 0 {
		return append(dst, "null"...), nil
	}
	start := len(dst)
	dst = append(dst, raw...)
	v := jsontext.Value(dst[start:])
	if err := v.Compact(jsontext.AllowInvalidUTF8(false)); err != nil {
		return dst[:start], errAt("", 0, ErrMalformed, "raw bytes are neither JSON nor an enveloped object")
	}
	return dst[:start+len(v)], nil
}

func appendStringArrayJSON(dst, val []byte) ([]byte, *DecodeError) {
	n := 0
	for off := 0; off < len(val); {
		num, typ, fv, _, k, _ := next(val[off:]) // val was walked without error
		if num == 1 && typ == wireBytes {
			if n == 0 {
				dst = append(dst, '[')
			} else {
				dst = append(dst, ',')
			}
			dst = appendQuoted(dst, fv)
			n++
		}
		off += k
	}
	if n == 0 {
		return append(dst, "null"...), nil
	}
	return append(dst, ']'), nil
}

// mapEntry is one decoded entry of a map field.
type mapEntry struct {
	key   []byte
	value occ
	has   bool
}

func appendMapJSON(dst []byte, f *field, b []byte, run []occ, depth int) ([]byte, *DecodeError) {
	entry := &messages[f.typ]
	vf := &fields[int(entry.fields)+1] // {1 key, 2 value}
	var stack [16]mapEntry
	ents := stack[:0]
	sorted := true
	for i, o := range run {
		if o.typ != wireBytes {
			return dst, errAt("", int(o.start), ErrMalformed, "map entry is not length-delimited")
		}
		e, err := readEntry(b, o)
		if err != nil {
			return dst, err.prefix("["+strconv.Itoa(i)+"]", 0)
		}
		if k := len(ents); k > 0 && string(ents[k-1].key) >= string(e.key) {
			sorted = false
		}
		ents = append(ents, e)
	}
	if !sorted { // encoding/json sorts map keys; a duplicate key keeps its last value
		slices.SortStableFunc(ents, func(a, b mapEntry) int { return compareBytes(a.key, b.key) })
		ents = slices.CompactFunc(reverse(ents), func(a, b mapEntry) bool { return string(a.key) == string(b.key) })
		reverse(ents)
	}
	dst = append(dst, '{')
	for i, e := range ents {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendQuoted(dst, e.key)
		dst = append(dst, ':')
		var err *DecodeError
		if e.has {
			dst, err = appendValueJSON(dst, vf, b, e.value, depth)
		} else if vf.kind == kMessage {
			dst, err = appendMessageValueJSON(dst, int32(vf.typ), nil, depth+1)
		} else {
			dst = appendZeroJSON(dst, vf)
		}
		if err != nil {
			return dst, err.prefix("["+strconv.Quote(string(e.key))+"]", 0)
		}
	}
	return append(dst, '}'), nil
}

func readEntry(b []byte, o occ) (mapEntry, *DecodeError) {
	var e mapEntry
	val := b[o.start:o.end]
	for off := 0; off < len(val); {
		num, typ, fv, x, n, err := next(val[off:])
		if err != nil {
			return e, errAt("", int(o.start)+off, err, "")
		}
		start := int(o.start) + off + n - len(fv)
		switch {
		case num == 1 && typ == wireBytes:
			e.key = fv
		case num == 2:
			e.value = occ{typ: uint8(typ), start: int32(start), end: int32(start + len(fv)), x: x}
			e.has = true
		}
		off += n
	}
	return e, nil
}

func compareBytes(a, b []byte) int {
	switch {
	case string(a) < string(b):
		return -1
	case string(a) > string(b):
		return 1
	}
	return 0
}

func reverse[S ~[]E, E any](s S) S {
	slices.Reverse(s)
	return s
}

// timeOf reads a metav1.Time or MicroTime message {1 seconds, 2 nanos};
// ok is false for the empty message (the zero time). Malformed bytes read
// as far as they go: callers validated them already.
func timeOf(val []byte) (t time.Time, ok bool) {
	if len(val) == 0 {
		return time.Time{}, false
	}
	var sec, nsec int64
	for off := 0; off < len(val); {
		num, typ, _, x, n, err := next(val[off:])
		if err != nil {
			break
		}
		if typ == wireVarint && num == 1 {
			sec = int64(x)
		} else if typ == wireVarint && num == 2 {
			nsec = int64(int32(x))
		}
		off += n
	}
	return time.Unix(sec, nsec).UTC(), true
}
