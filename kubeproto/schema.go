package kubeproto

import "sort"

// Field kinds: how a field's value travels on the wire and in JSON.
const (
	kString  uint8 = iota + 1 // wire: bytes; JSON: string
	kBytes                    // wire: bytes; JSON: base64 string
	kBool                     // wire: varint; JSON: true/false
	kInt32                    // wire: varint (negative: 10 bytes, sign-extended); JSON: number
	kInt64                    // wire: varint; JSON: number
	kUint32                   // wire: varint; JSON: number
	kUint64                   // wire: varint; JSON: number
	kFloat64                  // wire: fixed64; JSON: number
	kMessage                  // wire: bytes holding a message; JSON: per the message
)

// Field flags, from the Go field's type and its json tag.
const (
	fRepeated   uint8 = 1 << iota // a slice: the field occurs once per element
	fMap                          // a map: repeated entries of a key/value message
	fNullable                     // a pointer in Go: absent and zero differ
	fOmitEmpty                    // json:",omitempty"
	fOmitZero                     // json:",omitzero"
	fInline                       // json:",inline": JSON flattens the message into its parent
	fPacked                       // protobuf packed repeated scalars
	fEmptyArray                   // a list's items: JSON [] when empty, as kube-apiserver writes
)

// Special messages: their JSON form differs from their protobuf shape.
const (
	sTime         uint8 = iota + 1 // metav1.Time {1 seconds, 2 nanos}: RFC 3339 string, seconds
	sMicroTime                     // metav1.MicroTime: RFC 3339 string, microseconds
	sDuration                      // metav1.Duration {1 nanoseconds}: Go duration string
	sFieldsV1                      // metav1.FieldsV1 {1 raw JSON}: the JSON itself
	sQuantity                      // resource.Quantity {1 string}: the string
	sIntOrString                   // intstr.IntOrString {1 type, 2 int, 3 string}: number or string
	sRawExtension                  // runtime.RawExtension {1 raw}: the embedded object
	sUnknown                       // runtime.Unknown: the envelope
	sStringArray                   // a named []string wrapped in {1 repeated string}: an array
	sMapEntry                      // a map's {1 key, 2 value} entry
)

// message is one protobuf message of the table. Strings are references into
// names (offset<<8 | length); the table is constant data, laid out by the
// linker, so it costs no init time.
type message struct {
	name    uint32
	fields  uint16 // index of its first field in fields
	nfields uint8
	byNum   uint16 // offset of its number index in byNum
	maxNum  uint8
	special uint8
}

// field is one field of a message, in the Go struct's order (the order
// encoding/json writes).
type field struct {
	json  uint32 // JSON name (empty for inline fields)
	num   uint16
	typ   uint16 // message index, for kMessage
	kind  uint8
	flags uint8
}

// gvk maps an apiVersion and kind to its message.
type gvk struct {
	apiVersion, kind uint32
	msg              uint16
}

func str(ref uint32) string { return names[ref>>8 : ref>>8+ref&0xff] }

// Message is a handle on one message of the schema table. The zero Message
// is invalid (Valid reports false).
type Message struct{ i int32 }

// Field describes one field of a Message.
type Field struct {
	m, i int32
}

// MessageByName finds a message by its protobuf full name, e.g.
// "k8s.io.api.core.v1.Pod" or "k8s.io.apimachinery.pkg.apis.meta.v1.Status".
func MessageByName(name string) (Message, bool) {
	i := sort.Search(len(messages), func(i int) bool { return str(messages[i].name) >= name })
	if i < len(messages) && str(messages[i].name) == name {
		return Message{int32(i) + 1}, true
	}
	return Message{}, false
}

// MessageFor finds the message of a built-in kind, e.g. ("v1", "Pod"),
// ("apps/v1", "DeploymentList") or ("v1", "Status"). Custom resources and
// kinds without a protobuf form are not in the table.
func MessageFor(apiVersion, kind string) (Message, bool) {
	i := sort.Search(len(kinds), func(i int) bool {
		av := str(kinds[i].apiVersion)
		return av > apiVersion || av == apiVersion && str(kinds[i].kind) >= kind
	})
	if i < len(kinds) && str(kinds[i].apiVersion) == apiVersion && str(kinds[i].kind) == kind {
		return Message{int32(kinds[i].msg) + 1}, true
	}
	return Message{}, false
}

// Kinds calls yield for each apiVersion and kind in the table, in order.
func Kinds(yield func(apiVersion, kind string) bool) {
	for _, k := range kinds {
		if !yield(str(k.apiVersion), str(k.kind)) {
			return
		}
	}
}

func (m Message) msg() *message { return &messages[m.i-1] }

// Valid reports whether m is a message of the table.
func (m Message) Valid() bool { return m.i > 0 && int(m.i) <= len(messages) }

// Name is the protobuf full name.
func (m Message) Name() string { return str(m.msg().name) }

// NumFields is the number of fields, counting an inline field as one.
func (m Message) NumFields() int { return int(m.msg().nfields) }

// Field returns the i-th field in the Go struct's (and JSON's) order.
func (m Message) Field(i int) Field { return Field{m.i, int32(m.msg().fields) + int32(i)} }

// FieldByNumber finds a field by its protobuf number.
func (m Message) FieldByNumber(n int) (Field, bool) {
	p := m.msg()
	if n < 1 || n > int(p.maxNum) {
		return Field{}, false
	}
	pos := byNum[int(p.byNum)+n-1]
	if pos == 0 {
		return Field{}, false
	}
	return m.Field(int(pos) - 1), true
}

// FieldByJSON finds a field by its JSON name, looking into inline fields.
func (m Message) FieldByJSON(name string) (Field, bool) {
	p := m.msg()
	for i := range int(p.nfields) {
		f := &fields[int(p.fields)+i]
		if f.flags&fInline != 0 {
			if g, ok := (Message{int32(f.typ) + 1}).FieldByJSON(name); ok {
				return g, true
			}
			continue
		}
		if str(f.json) == name {
			return m.Field(i), true
		}
	}
	return Field{}, false
}

func (f Field) f() *field { return &fields[f.i] }

// Number is the protobuf field number.
func (f Field) Number() int { return int(f.f().num) }

// JSONName is the field's JSON name; empty for an inline field.
func (f Field) JSONName() string { return str(f.f().json) }

// Repeated reports a slice field (each element is one occurrence).
func (f Field) Repeated() bool { return f.f().flags&fRepeated != 0 }

// Map reports a map field (each entry is one occurrence of a {1 key, 2 value} message).
func (f Field) Map() bool { return f.f().flags&fMap != 0 }

// Inline reports a field whose message JSON flattens into its parent.
func (f Field) Inline() bool { return f.f().flags&fInline != 0 }

// Message is the field's message type (for a map, its entry), or the
// zero Message for scalars.
func (f Field) Message() Message {
	if f.f().kind != kMessage {
		return Message{}
	}
	return Message{int32(f.f().typ) + 1}
}
