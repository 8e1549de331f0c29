package kubeproto

// Exported views of a field's kind and flags and of a message's special
// form, for decoders outside this package (protodec decodes into a
// caller's Go struct by them).

// Kind is how a field's values travel on the wire and in JSON.
type Kind uint8

// The kinds of the table.
const (
	KindString  = Kind(kString)  // wire: bytes; JSON: string
	KindBytes   = Kind(kBytes)   // wire: bytes; JSON: base64 string
	KindBool    = Kind(kBool)    // wire: varint; JSON: true/false
	KindInt32   = Kind(kInt32)   // wire: varint, negative ones sign-extended; JSON: number
	KindInt64   = Kind(kInt64)   // wire: varint; JSON: number
	KindUint32  = Kind(kUint32)  // wire: varint; JSON: number
	KindUint64  = Kind(kUint64)  // wire: varint; JSON: number
	KindFloat64 = Kind(kFloat64) // wire: fixed64; JSON: number
	KindMessage = Kind(kMessage) // wire: bytes holding a message; JSON: per the message
)

// WireType is the protobuf wire type k's values travel as: 0 (varint),
// 1 (fixed64) or 2 (length-delimited).
func (k Kind) WireType() uint8 { return wantWire(uint8(k)) }

// Special names a message whose JSON form is not its protobuf shape; 0 for
// an ordinary message.
type Special uint8

// The special messages of the table.
const (
	SpecialTime         = Special(sTime)         // metav1.Time: RFC 3339, seconds
	SpecialMicroTime    = Special(sMicroTime)    // metav1.MicroTime: RFC 3339, microseconds
	SpecialDuration     = Special(sDuration)     // metav1.Duration: a Go duration string
	SpecialFieldsV1     = Special(sFieldsV1)     // metav1.FieldsV1: the JSON it holds
	SpecialQuantity     = Special(sQuantity)     // resource.Quantity: its string
	SpecialIntOrString  = Special(sIntOrString)  // intstr.IntOrString: a number or a string
	SpecialRawExtension = Special(sRawExtension) // runtime.RawExtension: the embedded object
	SpecialUnknown      = Special(sUnknown)      // runtime.Unknown: the envelope
	SpecialStringArray  = Special(sStringArray)  // a named []string in {1 repeated string}: an array
	SpecialMapEntry     = Special(sMapEntry)     // a map's {1 key, 2 value} entry
)

// Kind is the kind of the field's values (of each element, for a slice).
func (f Field) Kind() Kind { return Kind(f.f().kind) }

// OmitEmpty reports a field JSON leaves out when it is empty (the Go
// field's json tag says omitempty): a zero scalar, a nil pointer, slice
// or map.
func (f Field) OmitEmpty() bool { return f.f().flags&fOmitEmpty != 0 }

// Nullable reports a field that is a pointer in Go: absent and zero differ.
func (f Field) Nullable() bool { return f.f().flags&fNullable != 0 }

// Special is the message's special form, or 0.
func (m Message) Special() Special { return Special(m.msg().special) }
