package snapshot

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/go-json-experiment/json"
)

// Writer writes one snapshot in the format described at [FormatVersion]:
// [NewWriter] writes the header, Record writes one object's JSON, Close
// writes the trailer. It does not buffer: give it a buffered writer.
type Writer struct {
	w    io.Writer
	crc  uint32
	left int64 // records the header announced and Record has not written yet
	err  error // sticky: the first write error
}

// NewWriter writes the header h and returns a Writer for h.Count records.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	if h.Count < 0 {
		return nil, fmt.Errorf("snapshot: negative record count %d", h.Count)
	}
	hdr, err := json.Marshal(h)
	if err != nil {
		return nil, fmt.Errorf("snapshot: encoding the header: %w", err)
	}
	if len(hdr) > MaxHeader {
		return nil, fmt.Errorf("snapshot: header of %d bytes exceeds %d", len(hdr), MaxHeader)
	}
	sw := &Writer{w: w, left: h.Count}
	prefix := make([]byte, 0, prefixLen)
	prefix = append(prefix, Magic...)
	prefix = binary.BigEndian.AppendUint32(prefix, FormatVersion)
	prefix = binary.BigEndian.AppendUint32(prefix, uint32(len(hdr)))
	sw.write(prefix)
	sw.write(hdr)
	sw.writeCRC()
	return sw, sw.err
}

func (w *Writer) write(b []byte) {
	if w.err != nil {
		return
	}
	w.crc = crc32.Update(w.crc, castagnoli, b)
	_, w.err = w.w.Write(b)
}

// writeCRC writes the checksum of everything so far; it is itself covered
// by the next checksum.
func (w *Writer) writeCRC() {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], w.crc)
	w.write(b[:])
}

// Record writes one object's JSON. It fails once the header's count is
// reached, and for an empty record.
func (w *Writer) Record(b []byte) error {
	switch {
	case w.err != nil:
		return w.err
	case w.left == 0:
		return errors.New("snapshot: more records than the header's count")
	case len(b) == 0:
		return errors.New("snapshot: empty record")
	case len(b) > 1<<31:
		return fmt.Errorf("snapshot: record of %d bytes is too large", len(b))
	}
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(b)))
	w.write(n[:])
	w.write(b)
	w.left--
	return w.err
}

// Close writes the trailer. It fails if fewer records than the header
// announced were written: such a file would read as truncated.
func (w *Writer) Close() error {
	if w.err != nil {
		return w.err
	}
	if w.left != 0 {
		return fmt.Errorf("snapshot: %d records announced in the header were not written", w.left)
	}
	w.writeCRC()
	return w.err
}

// Encode writes a whole snapshot of items to w: h with Count set to
// len(items), then each item as JSON (json.Marshal of the item, so its
// MarshalJSONTo or struct tags decide), then the trailer. It checks ctx
// between records, so a long encoding can be abandoned.
func Encode[T any](ctx context.Context, w io.Writer, h Header, items []T) error {
	h.Count = int64(len(items))
	sw, err := NewWriter(w, h)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	for i, item := range items {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("snapshot: encoding: %w", err)
			}
		}
		buf.Reset()
		if err := json.MarshalWrite(&buf, item); err != nil {
			return fmt.Errorf("snapshot: encoding object %d: %w", i, err)
		}
		if err := sw.Record(buf.Bytes()); err != nil {
			return err
		}
	}
	return sw.Close()
}
