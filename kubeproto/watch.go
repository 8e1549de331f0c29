package kubeproto

import (
	"encoding/binary"
	"fmt"
	"io"
)

// WatchEvent is a metav1.WatchEvent as kube-apiserver writes it on a
// protobuf watch stream: bare (no Magic, no envelope), inside one frame.
//
//	message WatchEvent { string type = 1; RawExtension object = 2; }
//	message RawExtension { bytes raw = 1; }
type WatchEvent struct {
	// Type is ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.
	Type string
	// Object is the RawExtension's raw bytes: the object with its own
	// Magic and Envelope (an ERROR event's object is a Status). After
	// DecodeWatchEvent it aliases the input.
	Object []byte
}

// DecodeWatchEvent parses one frame's message.
func DecodeWatchEvent(b []byte) (WatchEvent, error) {
	var ev WatchEvent
	for off := 0; off < len(b); {
		num, typ, val, _, n, err := next(b[off:])
		if err != nil {
			return ev, errAt("watch event", off, err, "")
		}
		if num <= 2 && typ != wireBytes {
			return ev, errAt("watch event", off, ErrMalformed, fmt.Sprintf("field %d is not length-delimited", num))
		}
		switch num {
		case 1:
			ev.Type = string(val)
		case 2:
			raw, derr := decodeRawExtension(val)
			if derr != nil {
				return ev, derr.prefix("object", off+n-len(val))
			}
			ev.Object = raw
		}
		off += n
	}
	if ev.Type == "" {
		return ev, errAt("watch event", 0, ErrMalformed, "no type")
	}
	return ev, nil
}

func decodeRawExtension(b []byte) ([]byte, *DecodeError) {
	var raw []byte
	for off := 0; off < len(b); {
		num, typ, val, _, n, err := next(b[off:])
		if err != nil {
			return nil, errAt("watch event", off, err, "")
		}
		if num == 1 && typ == wireBytes {
			raw = val
		}
		off += n
	}
	return raw, nil
}

// AppendWatchEvent appends ev as a bare WatchEvent message (no frame
// length; see AppendFrame).
func AppendWatchEvent(dst []byte, ev WatchEvent) []byte {
	dst = appendStringField(dst, 1, ev.Type)
	dst = appendTag(dst, 2, wireBytes)
	dst = appendVarint(dst, uint64(len(ev.Object)+1+varintLen(uint64(len(ev.Object)))))
	return appendBytesField(dst, 1, ev.Object)
}

// AppendFrame appends msg with its 4-byte big-endian length, the framing of
// `application/vnd.kubernetes.protobuf;stream=watch`.
func AppendFrame(dst, msg []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(msg)))
	return append(dst, msg...)
}

// DefaultMaxFrame is FrameReader's limit when none is given: 16 MiB, far
// above etcd's default request limit of 1.5 MiB per object.
const DefaultMaxFrame = 16 << 20

// FrameReader splits a protobuf watch stream into frames. The buffer grows
// only as bytes arrive, so a hostile length costs no allocation up front.
// Not safe for concurrent use.
type FrameReader struct {
	r      io.Reader
	max    int
	buf    []byte
	offset int64 // stream offset of the next frame
	frames int
}

// NewFrameReader reads frames from r, refusing any longer than max bytes
// (DefaultMaxFrame when max <= 0).
func NewFrameReader(r io.Reader, max int) *FrameReader {
	if max <= 0 {
		max = DefaultMaxFrame
	}
	return &FrameReader{r: r, max: max}
}

// Next returns the next frame's message, valid until the next call. At a
// clean end of stream (between frames) it returns io.EOF; a stream that
// ends inside a frame gives a *DecodeError wrapping ErrTruncated; a read
// error is returned wrapped.
func (f *FrameReader) Next() ([]byte, error) {
	var hdr [4]byte
	if n, err := io.ReadFull(f.r, hdr[:]); err != nil {
		if err == io.EOF {
			return nil, io.EOF
		}
		return nil, f.fail(int64(n), err)
	}
	l := int(binary.BigEndian.Uint32(hdr[:]))
	if l > f.max {
		return nil, &DecodeError{What: "watch frame " + fmt.Sprint(f.frames+1), Offset: int(f.offset), Err: ErrTooLarge,
			Detail: fmt.Sprintf("length %d, limit %d", l, f.max)}
	}
	f.buf = f.buf[:0]
	for len(f.buf) < l {
		chunk := min(l-len(f.buf), 64<<10)
		if cap(f.buf)-len(f.buf) < chunk {
			f.buf = append(f.buf[:cap(f.buf)], make([]byte, chunk)...)[:len(f.buf)]
		}
		n, err := io.ReadFull(f.r, f.buf[len(f.buf):len(f.buf)+chunk])
		f.buf = f.buf[:len(f.buf)+n]
		if err != nil {
			return nil, f.fail(int64(4+len(f.buf)), err)
		}
	}
	f.offset += int64(4 + l)
	f.frames++
	return f.buf, nil
}

// errFrameCut is a frame the stream's end cut: truncated input, and also
// io.ErrUnexpectedEOF, as a JSON event cut by a dropped connection is, so
// that a reader tells a broken connection (re-watch) from a bad frame.
var errFrameCut = fmt.Errorf("%w (%w)", ErrTruncated, io.ErrUnexpectedEOF)

// Frames count from 1 and a frame is named by the byte it starts at, as
// watchstream names events: one way to count in one message.
func (f *FrameReader) fail(in int64, err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return &DecodeError{What: "watch frame " + fmt.Sprint(f.frames+1), Offset: int(f.offset),
			Err: errFrameCut, Detail: "the stream ended inside the frame"}
	}
	return fmt.Errorf("kubeproto: read watch frame %d at byte %d: %w", f.frames+1, f.offset, err)
}
