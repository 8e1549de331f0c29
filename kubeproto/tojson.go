package kubeproto

import (
	"encoding/base64"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/zerokube/zerokube/internal/pbwire"
)

// AppendJSON appends the JSON form of msg, a protobuf message of type m
// (without Magic or Envelope), to dst: the JSON encoding/json would write
// for the Go struct kube-apiserver decodes from msg, members in the Go
// struct's order, omitempty honoured, absent pointers and slices null. A
// special message (metav1.Time, resource.Quantity, intstr.IntOrString…)
// is written in its own JSON form, as a field of its type would be.
func AppendJSON(dst []byte, m Message, msg []byte) ([]byte, error) {
	if !m.Valid() {
		return dst, fmt.Errorf("kubeproto: AppendJSON: invalid Message")
	}
	if len(msg) > math.MaxInt32 {
		return dst, errAt(m.Name(), 0, ErrTooLarge, "messages are limited to 2 GiB")
	}
	out, err := appendMessageValueJSON(dst, m.i-1, msg, 0)
	if err != nil {
		err.What = m.Name()
		return dst, err
	}
	return out, nil
}

// AppendObjectJSON appends the JSON of an enveloped object (Magic, then a
// runtime.Unknown, as a GET or a watch event's object carries it), with
// "kind" and "apiVersion" first as kube-apiserver writes them. A kind the
// table lacks is an error wrapping ErrUnknownKind.
func AppendObjectJSON(dst, b []byte) ([]byte, error) { return appendObjectJSON(dst, b, 0) }

// appendObjectJSON is AppendObjectJSON for an object embedded depth
// messages deep, in a RawExtension: its messages count on from there
// toward maxDepth. Counted afresh, objects nested in each other's
// RawExtensions (a ControllerRevision's data holding one, and so on) were
// bounded by nothing but the input's size, and 300,000 of them in 16.7 MB
// (one watch frame within DefaultMaxFrame) exhausted the stack: a fatal
// error, not one a caller can recover from.
func appendObjectJSON(dst, b []byte, depth int) ([]byte, error) {
	e, err := DecodeEnvelope(b)
	if err != nil {
		return dst, err
	}
	m, ok := MessageFor(e.APIVersion, e.Kind)
	if !ok {
		return dst, &DecodeError{What: "envelope", Err: ErrUnknownKind, Detail: e.APIVersion + " " + e.Kind}
	}
	start := len(dst)
	dst = append(dst, `{"kind":`...)
	dst = appendQuoted(dst, e.Kind)
	dst = append(dst, `,"apiVersion":`...)
	dst = appendQuoted(dst, e.APIVersion)
	body := len(dst)
	out, derr := appendMessageJSON(dst, m.i-1, e.Raw, depth)
	if derr != nil {
		derr.What = m.Name()
		derr.Offset += cap(b) - cap(e.Raw) // where raw starts in b
		return dst[:start], derr
	}
	if len(out) == body+2 { // "{}": no fields
		return append(out[:body], '}'), nil
	}
	out[body] = ',' // the message's '{' joins the kind and apiVersion
	return out, nil
}

// occ is one occurrence of a field in a message being read.
type occ struct {
	pos        uint8 // the field's position in its message
	typ        uint8 // wire type
	start, end int32 // the value (payload for wireBytes)
	x          uint64
}

func appendMessageJSON(dst []byte, mi int32, b []byte, depth int) ([]byte, *DecodeError) {
	if depth > maxDepth {
		return dst, errAt("", 0, ErrMalformed, "nested too deep")
	}
	dst = append(dst, '{')
	dst, _, err := appendFieldsJSON(dst, mi, b, depth, true)
	return append(dst, '}'), err
}

// appendFieldsJSON writes the members of message mi read from b, without
// braces (an inline field's members join their parent's). first says
// whether no member was written yet at this level.
func appendFieldsJSON(dst []byte, mi int32, b []byte, depth int, first bool) ([]byte, bool, *DecodeError) {
	m := &messages[mi]
	var stack [48]occ
	occs, derr := collect(stack[:0], m, b)
	if derr != nil {
		return dst, first, derr
	}
	for i, o := 0, 0; i < int(m.nfields); i++ {
		f := &fields[int(m.fields)+i]
		run := o
		for run < len(occs) && int(occs[run].pos) == i {
			run++
		}
		var err *DecodeError
		dst, first, err = appendFieldJSON(dst, f, b, occs[o:run], depth, first)
		if err != nil {
			if len(occs[o:run]) > 0 {
				err.prefix(str(f.json), 0)
			}
			return dst, first, err
		}
		o = run
	}
	return dst, first, nil
}

// collect reads every field of b, keeping the known ones in the Go
// struct's order (stable, so repeated fields keep their order).
func collect(occs []occ, m *message, b []byte) ([]occ, *DecodeError) {
	sorted := true
	for off := 0; off < len(b); {
		// The field is read here rather than by next, which builds a
		// pbwire.Field per field: this loop reads every field of every
		// message the transcoder writes, and the copy showed in its
		// profile.
		num, t, tn := pbwire.ConsumeTag(b[off:])
		if tn < 0 {
			return occs, errAt("", off, pbwire.Err(tn), "")
		}
		rest := b[off+tn:]
		var x uint64
		var skip, vl int // where the value starts in rest, and where it ends
		switch t {
		case pbwire.Varint:
			x, vl = pbwire.ConsumeVarint(rest)
		case pbwire.Bytes:
			var v []byte
			v, vl = pbwire.ConsumeBytes(rest)
			skip, x = vl-len(v), uint64(len(v))
		case pbwire.Fixed64:
			x, vl = pbwire.ConsumeFixed64(rest)
		case pbwire.Fixed32:
			var x32 uint32
			x32, vl = pbwire.ConsumeFixed32(rest)
			x = uint64(x32)
		default:
			_, vl = pbwire.Next(b[off:]) // its error for this wire type
		}
		if vl < 0 {
			return occs, errAt("", off, pbwire.Err(vl), "")
		}
		if num <= int(m.maxNum) {
			if pos := byNum[int(m.byNum)+num-1]; pos != 0 {
				start := off + tn + skip
				o := occ{pos: pos - 1, typ: uint8(t), start: int32(start), end: int32(off + tn + vl), x: x}
				if k := len(occs); k > 0 && occs[k-1].pos > o.pos {
					sorted = false
				}
				occs = append(occs, o)
			}
		}
		off += tn + vl
	}
	if !sorted {
		sortOccs(occs)
	}
	return occs, nil
}

// sortOccs sorts occurrences by position, stably: by insertion for the
// few fields of a message kube-apiserver writes in field-number order (a
// few out of place, each moved a few slots), by the library past that, so
// that hostile input cannot make it quadratic.
func sortOccs(occs []occ) {
	if len(occs) > 48 {
		slices.SortStableFunc(occs, func(a, b occ) int { return int(a.pos) - int(b.pos) })
		return
	}
	for i := 1; i < len(occs); i++ {
		o := occs[i]
		j := i
		for ; j > 0 && occs[j-1].pos > o.pos; j-- {
			occs[j] = occs[j-1]
		}
		occs[j] = o
	}
}

func (f *field) name(dst []byte, first bool) []byte {
	if !first {
		dst = append(dst, ',')
	}
	dst = append(dst, '"')
	dst = append(dst, str(f.json)...)
	return append(dst, '"', ':')
}

func appendFieldJSON(dst []byte, f *field, b []byte, run []occ, depth int, first bool) ([]byte, bool, *DecodeError) {
	if f.flags&fInline != 0 {
		var val []byte
		if len(run) > 0 {
			mb, last := merged(b, run)
			val = mb[last.start:last.end]
		}
		var err *DecodeError
		dst, first, err = appendFieldsJSON(dst, int32(f.typ), val, depth+1, first)
		if err != nil && len(run) > 0 {
			err.Offset += int(run[len(run)-1].start)
		}
		return dst, first, err
	}
	omit := f.flags&(fOmitEmpty|fOmitZero) != 0
	if f.flags&(fRepeated|fMap) != 0 {
		if len(run) == 0 {
			switch {
			case omit:
				return dst, first, nil
			case f.flags&fEmptyArray != 0:
				return append(f.name(dst, first), "[]"...), false, nil
			}
			return append(f.name(dst, first), "null"...), false, nil
		}
		dst = f.name(dst, first)
		if f.flags&fMap != 0 {
			dst, err := appendMapJSON(dst, f, b, run, depth)
			return dst, false, err
		}
		dst, err := appendArrayJSON(dst, f, b, run, depth)
		return dst, false, err
	}
	if len(run) == 0 {
		switch {
		case f.flags&fNullable != 0 && omit:
			return dst, first, nil
		case f.flags&fNullable != 0:
			return append(f.name(dst, first), "null"...), false, nil
		case f.kind == kMessage:
			if f.flags&fOmitZero != 0 {
				return dst, first, nil
			}
			dst, err := appendValueJSON(f.name(dst, first), f, nil, occ{typ: wireBytes}, depth)
			return dst, false, err
		case omit:
			return dst, first, nil
		}
		return appendZeroJSON(f.name(dst, first), f), false, nil
	}
	o := run[len(run)-1] // the last occurrence of a scalar wins, as in protobuf
	if f.kind == kMessage && len(run) > 1 {
		b, o = merged(b, run) // and a message's occurrences merge
	}
	if omit && f.flags&fNullable == 0 && isZeroScalar(f, b, o) {
		return dst, first, nil
	}
	dst, err := appendValueJSON(f.name(dst, first), f, b, o, depth)
	return dst, false, err
}

// merged returns the value of a message field's occurrences (run, in b)
// merged: protobuf merges the occurrences of a message field, which is
// what reading their concatenation does (the last of a scalar wins,
// repeated fields and maps gather every occurrence's). One occurrence, or
// one of another wire type (which fails as it is), is returned as is. An
// error inside a merged value gives its offset in the concatenation, which
// is no offset of the input: kube-apiserver never writes a message field
// twice, so this costs nothing on its answers.
func merged(b []byte, run []occ) ([]byte, occ) {
	if len(run) == 1 {
		return b, run[0]
	}
	var cat []byte
	for _, o := range run {
		if o.typ != wireBytes {
			return b, o
		}
		cat = append(cat, b[o.start:o.end]...)
	}
	return cat, occ{pos: run[0].pos, typ: wireBytes, end: int32(len(cat))}
}

// isZeroScalar reports whether omitempty (for scalars) or omitzero (for
// messages: only metav1.Time has it, on ObjectMeta.creationTimestamp)
// leaves the field out.
func isZeroScalar(f *field, b []byte, o occ) bool {
	switch f.kind {
	case kString, kBytes:
		return o.end == o.start
	case kMessage:
		if f.flags&fOmitZero == 0 {
			return false
		}
		if sp := messages[f.typ].special; sp == sTime || sp == sMicroTime {
			t, ok := timeOf(b[o.start:o.end])
			return !ok || t.IsZero()
		}
		return o.end == o.start
	case kFloat64:
		return false
	}
	return o.x == 0
}

func appendZeroJSON(dst []byte, f *field) []byte {
	switch f.kind {
	case kString:
		return append(dst, `""`...)
	case kBytes:
		return append(dst, "null"...)
	case kBool:
		return append(dst, "false"...)
	}
	return append(dst, '0')
}

func appendArrayJSON(dst []byte, f *field, b []byte, run []occ, depth int) ([]byte, *DecodeError) {
	dst = append(dst, '[')
	n := 0
	for _, o := range run {
		if o.typ == wireBytes && f.kind != kMessage && f.kind != kString && f.kind != kBytes {
			// packed scalars: a run of varints (or fixed64s) in one field
			var err *DecodeError
			dst, n, err = appendPackedJSON(dst, f, b[o.start:o.end], n)
			if err != nil {
				return dst, err.prefix("", int(o.start))
			}
			continue
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		var err *DecodeError
		dst, err = appendValueJSON(dst, f, b, o, depth)
		if err != nil {
			return dst, err.prefix("["+strconv.Itoa(n)+"]", 0)
		}
		n++
	}
	return append(dst, ']'), nil
}

func appendPackedJSON(dst []byte, f *field, b []byte, n int) ([]byte, int, *DecodeError) {
	for off := 0; off < len(b); n++ {
		var o occ
		if f.kind == kFloat64 {
			if len(b)-off < 8 {
				return dst, n, errAt("", off, ErrTruncated, "")
			}
			o = occ{typ: wireFixed64, start: int32(off), end: int32(off + 8)}
			off += 8
		} else {
			x, k := pbwire.ConsumeVarint(b[off:])
			if k < 0 {
				return dst, n, errAt("", off, pbwire.Err(k), "")
			}
			o = occ{typ: wireVarint, x: x}
			off += k
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		dst, _ = appendValueJSON(dst, f, b, o, 0)
	}
	return dst, n, nil
}

// wantWire is the wire type a field's kind travels as.
func wantWire(kind uint8) uint8 {
	switch kind {
	case kString, kBytes, kMessage:
		return wireBytes
	case kFloat64:
		return wireFixed64
	}
	return wireVarint
}

func appendValueJSON(dst []byte, f *field, b []byte, o occ, depth int) ([]byte, *DecodeError) {
	if o.typ != wantWire(f.kind) {
		return dst, errAt("", int(o.start), ErrMalformed, fmt.Sprintf("wire type %d, want %d", o.typ, wantWire(f.kind)))
	}
	val := b[o.start:o.end]
	switch f.kind {
	case kString:
		return appendQuoted(dst, val), nil
	case kBytes:
		dst = append(dst, '"')
		dst = base64.StdEncoding.AppendEncode(dst, val)
		return append(dst, '"'), nil
	case kBool:
		return strconv.AppendBool(dst, o.x != 0), nil
	case kInt32:
		return strconv.AppendInt(dst, int64(int32(o.x)), 10), nil
	case kInt64:
		return strconv.AppendInt(dst, int64(o.x), 10), nil
	case kUint32:
		return strconv.AppendUint(dst, uint64(uint32(o.x)), 10), nil
	case kUint64:
		return strconv.AppendUint(dst, o.x, 10), nil
	case kFloat64:
		return dst, errAt("", int(o.start), ErrMalformed, "float64 fields are not in the table")
	}
	dst, err := appendMessageValueJSON(dst, int32(f.typ), val, depth+1)
	if err != nil {
		err.Offset += int(o.start)
	}
	return dst, err
}
