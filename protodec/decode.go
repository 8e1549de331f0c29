package protodec

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unsafe"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/zerokube/zerokube/internal/pbwire"
	"github.com/zerokube/zerokube/kubeproto"
)

// lenient accepts duplicate member names, as the list and watch decoders do.
var lenient = jsontext.AllowDuplicateNames(true)

// maxDepth bounds the nesting of messages, so that hostile input cannot
// exhaust the stack: kube-apiserver's own limit for protobuf is 100.
const maxDepth = 100

// state is one decoding goroutine's scratch: borrowed from its Decoder for
// one Unmarshal and returned after.
type state struct {
	d     *Decoder
	depth int
	json  []byte       // a transcoded value
	occs  []occurrence // the occurrences of a collected field
	key   []byte       // a collected map's wire bytes, when not contiguous
	strip []byte       // a message without a field (raw.go's withoutField)
	strs  stringMemo   // recent short strings
	ms    mapSource
}

// errWire is wrapped by every error about malformed protobuf.
var errWire = errors.New("malformed protobuf")

// errWireMismatch is wrapped by the error of a known field that came in
// another wire type than its schema's (labels sent as a number): well-formed
// protobuf whose value does not fit the type, as the same value in JSON
// ("labels": 7) does not. Both are one Problem, on both wires: the object
// can be stepped over (its bytes are delimited) and named.
var errWireMismatch = errors.New("a value of another type than the schema's")

// FieldError says which field of which message did not decode, and where
// it sits in the object.
type FieldError struct {
	Message string // protobuf full name of the innermost message
	Field   string // JSON name of the innermost field
	Number  int
	// Path is the JSON pointer of the field from the decoded object, such
	// as "/spec/containers/0/ports/1": list indices and map keys included,
	// as the JSON decoder names them. Within a value decoded by its JSON
	// form, Path stops at the field: Path(err) adds the rest.
	Path string
	Err  error
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("protodec: %s at %s (field %d of %s): %v", e.Field, e.Path, e.Number, e.Message, e.Err)
}

func (e *FieldError) Unwrap() error { return e.Err }

// message decodes the fields of message b into the struct at base.
func (s *state) message(p *plan, base unsafe.Pointer, b []byte) error {
	if s.depth++; s.depth > maxDepth {
		return fmt.Errorf("protodec: %s: messages nested deeper than %d: %w", p.msg.Name(), maxDepth, errWire)
	}
	defer func() { s.depth-- }()
	var done []int32 // collected fields, and message fields merged, already decoded
	var seen uint64  // message fields 1 to 64 met
	for i := 0; i < len(b); {
		num, wt, n := pbwire.ConsumeTag(b[i:])
		if n < 0 {
			return fmt.Errorf("protodec: %s: a bad tag at byte %d: %w", p.msg.Name(), i, errWire)
		}
		start := i
		i += n
		m := pbwire.ConsumeValue(wt, b[i:])
		if m < 0 {
			return fmt.Errorf("protodec: %s: field %d at byte %d (wire type %d) is truncated or malformed: %w",
				p.msg.Name(), num, i, wt, errWire)
		}
		val := b[i : i+m]
		i += m
		var fp *fieldPlan
		if num <= len(p.fields) {
			fp = p.fields[num-1]
		}
		if fp == nil {
			continue // not declared: stepped over by its length
		}
		single := fp.kind == kMessage && !fp.repeated && fp.op != opInline
		if (fp.collect || single) && contains(done, int32(num)) {
			continue // decoded with its first occurrence, or merged with the earlier ones
		}
		var err error
		switch {
		case fp.collect:
			done = append(done, int32(num))
			err = s.collected(fp, at(base, fp.off), num, b[start:])
		case fp.op == opInline:
			err = s.inline(fp, base, wt, val)
		case single && wt == pbwire.Bytes && again(&seen, num, b[:start]):
			done = append(done, int32(num))
			err = s.merge(fp, at(base, fp.off), num, b)
		default:
			err = s.field(fp, at(base, fp.off), wt, val)
		}
		if err != nil {
			seg := ""
			if fp.repeated && !fp.collect && !isPacked(fp, wt) {
				seg = strconv.Itoa(occurrences(b[:start], num)) // the element's index, as JSON names it
			}
			return fieldError(p, fp, num, seg, err)
		}
	}
	return nil
}

// again marks message field num met, reporting whether it was met
// before: in seen for fields 1 to 64, else by looking in before, the
// message up to this occurrence (no Kubernetes message has a message
// field past 64 on a hot path).
func again(seen *uint64, num int, before []byte) bool {
	if num > 64 {
		return occurrences(before, num) > 0
	}
	bit := uint64(1) << (num - 1)
	met := *seen&bit != 0
	*seen |= bit
	return met
}

// merge decodes the occurrences of message field num in b as one, anew:
// protobuf merges them, which is what decoding their concatenation does
// (the last of a scalar wins, repeated fields and maps gather every
// occurrence's). Decoding them one after another into the same struct
// would not: a map, or a list decoded by its JSON form, would hold the
// last occurrence's only. kube-apiserver never writes a message field
// twice; other encoders may.
func (s *state) merge(fp *fieldPlan, loc unsafe.Pointer, num int, b []byte) error {
	var cat []byte
	for i := 0; i < len(b); {
		n2, wt, n := pbwire.ConsumeTag(b[i:])
		if n < 0 {
			return errWire
		}
		m := pbwire.ConsumeValue(wt, b[i+n:])
		if m < 0 {
			return errWire
		}
		if n2 == num {
			if wt != pbwire.Bytes {
				return errWireType(wt, pbwire.Bytes)
			}
			v, _ := pbwire.ConsumeBytes(b[i+n:])
			cat = append(cat, v...)
		}
		i += n + m
	}
	reflect.NewAt(fp.goTyp, loc).Elem().SetZero()
	val := pbwire.AppendVarint(make([]byte, 0, pbwire.MaxVarintLen+len(cat)), uint64(len(cat)))
	return s.field(fp, loc, pbwire.Bytes, append(val, cat...))
}

// occurrences counts the occurrences of field num in b, well-formed fields
// already stepped over once: the index of the one that follows them.
func occurrences(b []byte, num int) int {
	c := 0
	for i := 0; i < len(b); {
		n2, wt, n := pbwire.ConsumeTag(b[i:])
		if n < 0 {
			break
		}
		m := pbwire.ConsumeValue(wt, b[i+n:])
		if m < 0 {
			break
		}
		if n2 == num {
			c++
		}
		i += n + m
	}
	return c
}

// inline decodes an inline message's fields into the struct at base.
func (s *state) inline(fp *fieldPlan, base unsafe.Pointer, wt pbwire.Type, val []byte) error {
	if wt != pbwire.Bytes {
		return errWireType(wt, pbwire.Bytes)
	}
	v, _ := pbwire.ConsumeBytes(val)
	return s.message(fp.sub, base, v)
}

// elemError carries the key of the map entry an error came from, so that
// the path names it as the JSON decoder's pointer does.
type elemError struct {
	seg string
	err error
}

func (e *elemError) Error() string { return e.err.Error() }
func (e *elemError) Unwrap() error { return e.err }

// fieldError wraps err from field num of p, or extends the path of the
// *FieldError an inner field returned. seg, or the key of an *elemError,
// is the list index or map key within the field.
func fieldError(p *plan, fp *fieldPlan, num int, seg string, err error) error {
	if ee, ok := err.(*elemError); ok {
		seg, err = ee.seg, ee.err
	}
	prefix := ""
	if fp.op != opInline {
		prefix = "/" + fp.name
	}
	if seg != "" {
		prefix += "/" + pointerToken(seg)
	}
	var fe *FieldError
	if errors.As(err, &fe) {
		fe.Path = prefix + fe.Path
		return err
	}
	return &FieldError{Message: p.msg.Name(), Field: fp.name, Number: num, Path: prefix, Err: err}
}

// pointerToken escapes s as one token of a JSON pointer (RFC 6901).
func pointerToken(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// IsContentError reports whether err is about a value that does not fit
// its Go type, rather than about a malformed encoding: an object with such
// a value may be skipped and the rest of its list read on.
func IsContentError(err error) bool {
	var fe *FieldError
	var se *json.SemanticError
	return (errors.As(err, &fe) || errors.As(err, &se)) && !errors.Is(err, errWire) &&
		!errors.Is(err, kubeproto.ErrMalformed) && !errors.Is(err, kubeproto.ErrTruncated)
}

// Path returns the JSON pointer of the value err is about, from the
// decoded object, or "": the same pointer the JSON decoder reports for the
// object's JSON form, with list indices and map keys. A value decoded by
// its JSON form adds the pointer the JSON decoder gave within it.
func Path(err error) string {
	p := ""
	var fe *FieldError
	if errors.As(err, &fe) {
		p, err = fe.Path, fe.Err
	}
	var se *json.SemanticError
	if errors.As(err, &se) {
		p += string(se.JSONPointer)
	}
	return p
}

func contains(s []int32, n int32) bool {
	for _, x := range s {
		if x == n {
			return true
		}
	}
	return false
}

func errWireType(got, want pbwire.Type) error {
	return fmt.Errorf("wire type %d, want %d: %w", got, want, errWireMismatch)
}

// field decodes one occurrence of a field, whose raw value (as it follows
// the tag) is val, into loc.
func (s *state) field(fp *fieldPlan, loc unsafe.Pointer, wt pbwire.Type, val []byte) error {
	if !fp.repeated {
		if fp.omitEmpty && zeroScalar(fp.kind, wt, val) {
			return nil // JSON leaves it out: a pointer stays nil
		}
		return s.value(&fp.value, loc, wt, val)
	}
	if isPacked(fp, wt) {
		return s.packed(fp, loc, val)
	}
	return s.value(&fp.value, s.appendElem(fp.slice, loc), wt, val)
}

// isPacked reports an occurrence of repeated field fp that is a packed run
// of scalars.
func isPacked(fp *fieldPlan, wt pbwire.Type) bool {
	return wt == pbwire.Bytes && fp.kind != kString && fp.kind != kBytes && fp.kind != kMessage
}

// zeroScalar reports an empty string, a zero number or false, by value:
// a conforming encoder may write a zero length or number in more bytes
// than one (0x80 0x00), which is as empty as 0x00 (the transcoder leaves
// both out of the JSON).
func zeroScalar(k kind, wt pbwire.Type, val []byte) bool {
	switch k {
	case kString, kBytes:
		b, n := pbwire.ConsumeBytes(val)
		return wt == pbwire.Bytes && n > 0 && len(b) == 0
	case kMessage:
		return false
	}
	switch wt {
	case pbwire.Varint:
		u, n := pbwire.ConsumeVarint(val)
		return n > 0 && u == 0
	case pbwire.Fixed64:
		u, n := pbwire.ConsumeFixed64(val)
		return n == 8 && math.Float64frombits(u) == 0
	}
	return false
}

// packed decodes a packed run of scalars, each appended to the slice at loc.
func (s *state) packed(fp *fieldPlan, loc unsafe.Pointer, val []byte) error {
	v, n := pbwire.ConsumeBytes(val)
	if n < 0 {
		return errWire
	}
	wt := pbwire.Varint
	if fp.kind == kFloat64 {
		wt = pbwire.Fixed64
	}
	for len(v) > 0 {
		m := pbwire.ConsumeValue(wt, v)
		if m < 0 {
			return fmt.Errorf("packed values: %w", errWire)
		}
		if err := s.value(&fp.value, s.appendElem(fp.slice, loc), wt, v[:m]); err != nil {
			return err
		}
		v = v[m:]
	}
	return nil
}

// appendElem grows the slice at loc by one zero element and returns the
// element's address. Capacity doubles from one, as the JSON decoder's
// does: a cached object keeps its slices, and most hold one element (an
// owner reference, a container), where a first capacity of four kept
// three empty OwnerReferences (240 bytes) on every pod.
func (s *state) appendElem(t reflect.Type, loc unsafe.Pointer) unsafe.Pointer {
	sv := reflect.NewAt(t, loc).Elem()
	n := sv.Len()
	if n == sv.Cap() {
		sv.Grow(max(1, n))
	}
	sv.SetLen(n + 1)
	return sv.Index(n).Addr().UnsafePointer()
}
