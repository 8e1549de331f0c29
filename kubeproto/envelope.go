package kubeproto

import "strconv"

// Magic is the 4-byte prefix of every protobuf object kube-apiserver sends
// or accepts (except inside watch frames, whose WatchEvent is bare).
const Magic = "k8s\x00"

// Content types of kube-apiserver's protobuf encoding.
const (
	ContentType      = "application/vnd.kubernetes.protobuf"
	WatchContentType = "application/vnd.kubernetes.protobuf;stream=watch"
)

// Envelope is a runtime.Unknown: the wrapper around every top-level object
// (a GET's object, a LIST's list, a watch event's object, a Status).
//
//	message Unknown { TypeMeta typeMeta = 1; bytes raw = 2;
//	                  string contentEncoding = 3; string contentType = 4; }
//	message TypeMeta { string apiVersion = 1; string kind = 2; }
type Envelope struct {
	APIVersion string
	Kind       string
	// Raw is the object's own message (e.g. a Pod, a PodList, a Status),
	// without apiVersion and kind. After DecodeEnvelope it aliases the input.
	Raw             []byte
	ContentEncoding string // empty in what kube-apiserver sends
	ContentType     string // empty in what kube-apiserver sends
}

// DecodeEnvelope parses Magic and the runtime.Unknown after it. Raw aliases
// b. Unknown fields are skipped, as protobuf decoders do.
func DecodeEnvelope(b []byte) (Envelope, error) {
	if len(b) < len(Magic) || string(b[:len(Magic)]) != Magic {
		return Envelope{}, errAt("envelope", 0, ErrNoMagic, "")
	}
	e, err := decodeUnknown(b[len(Magic):])
	if err != nil {
		return Envelope{}, err.prefix("", len(Magic))
	}
	return e, nil
}

func decodeUnknown(b []byte) (Envelope, *DecodeError) {
	var e Envelope
	for off := 0; off < len(b); {
		num, typ, val, _, n, err := next(b[off:])
		if err != nil {
			return e, errAt("envelope", off, err, "")
		}
		if typ != wireBytes && num <= 4 {
			return e, errAt("envelope", off, ErrMalformed, "field "+strconv.Itoa(num)+" is not length-delimited")
		}
		switch num {
		case 1:
			if derr := decodeTypeMeta(val, &e); derr != nil {
				return e, derr.prefix("typeMeta", off+n-len(val))
			}
		case 2:
			e.Raw = val
		case 3:
			e.ContentEncoding = string(val)
		case 4:
			e.ContentType = string(val)
		}
		off += n
	}
	return e, nil
}

func decodeTypeMeta(b []byte, e *Envelope) *DecodeError {
	for off := 0; off < len(b); {
		num, typ, val, _, n, err := next(b[off:])
		if err != nil {
			return errAt("envelope", off, err, "")
		}
		if typ == wireBytes {
			switch num {
			case 1:
				e.APIVersion = string(val)
			case 2:
				e.Kind = string(val)
			}
		}
		off += n
	}
	return nil
}

// AppendEnvelope appends Magic and e as a runtime.Unknown to dst, the way
// kube-apiserver writes it (typeMeta, raw, and the two content fields, even
// when empty).
func AppendEnvelope(dst []byte, e Envelope) []byte {
	dst = append(dst, Magic...)
	tm := len(e.APIVersion) + len(e.Kind) + 2 + varintLen(uint64(len(e.APIVersion))) + varintLen(uint64(len(e.Kind)))
	dst = appendTag(dst, 1, wireBytes)
	dst = appendVarint(dst, uint64(tm))
	dst = appendStringField(dst, 1, e.APIVersion)
	dst = appendStringField(dst, 2, e.Kind)
	dst = appendBytesField(dst, 2, e.Raw)
	dst = appendStringField(dst, 3, e.ContentEncoding)
	return appendStringField(dst, 4, e.ContentType)
}
