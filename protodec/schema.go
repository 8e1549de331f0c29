package protodec

import "github.com/zerokube/zerokube/kubeproto"

// The few facts of kubeproto's table the decoder reads, in one place.

// Schema kinds of a field's values, as the table gives them.
const (
	kString  = kubeproto.KindString
	kBytes   = kubeproto.KindBytes
	kBool    = kubeproto.KindBool
	kInt32   = kubeproto.KindInt32
	kInt64   = kubeproto.KindInt64
	kUint32  = kubeproto.KindUint32
	kUint64  = kubeproto.KindUint64
	kFloat64 = kubeproto.KindFloat64
	kMessage = kubeproto.KindMessage
)

// Special messages whose JSON form is not their protobuf shape.
const (
	sTime        = kubeproto.SpecialTime
	sMicroTime   = kubeproto.SpecialMicroTime
	sQuantity    = kubeproto.SpecialQuantity
	sIntOrString = kubeproto.SpecialIntOrString
)

type kind = kubeproto.Kind
