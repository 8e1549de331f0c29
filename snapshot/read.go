package snapshot

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/go-json-experiment/json"
)

// ReadOptions bound what a Reader allocates, and say what Decode cannot
// check. The zero value means defaults.
type ReadOptions struct {
	// ClusterUnknown: the reader could not learn the cluster's id (its
	// server unreachable), so Decode takes the snapshot's Identity.Cluster
	// for want's, and the reader checks the Header's against the cluster
	// once it can.
	ClusterUnknown bool
	// MaxRecord is the largest record accepted; default DefaultMaxRecord.
	MaxRecord int
	// Size, when positive, is the size of the snapshot in bytes (a file's):
	// a length that points past it is rejected before anything is
	// allocated for it.
	Size int64
}

// chunk is how much a record's buffer grows at a time while it is read: a
// damaged length can make a reader allocate no more than about twice what
// the file really holds.
const chunk = 64 << 10

// Reader reads a snapshot record by record, verifying as it goes. Its
// memory is a 64 KiB read buffer plus one buffer as large as the largest
// record, reused.
type Reader struct {
	br   *bufio.Reader
	crc  uint32
	off  int64
	opts ReadOptions
	hdr  Header
	left int64  // records not read yet
	buf  []byte // the last record, reused
	done bool   // the trailer was verified
}

// NewReader reads and verifies the header: magic, header checksum, then
// format version. Every error is an *Error.
func NewReader(r io.Reader, opts ReadOptions) (*Reader, error) {
	if opts.MaxRecord <= 0 {
		opts.MaxRecord = DefaultMaxRecord
	}
	sr := &Reader{br: bufio.NewReaderSize(r, chunk), opts: opts}
	prefix, err := sr.read(make([]byte, prefixLen))
	if err != nil {
		return nil, err
	}
	if string(prefix[:len(Magic)]) != Magic {
		return nil, &Error{Reason: ReasonCorrupt, Err: errors.New("not a snapshot (bad magic)")}
	}
	version := binary.BigEndian.Uint32(prefix[len(Magic):])
	n := binary.BigEndian.Uint32(prefix[len(Magic)+4:])
	switch {
	case n == 0 || n > MaxHeader:
		return nil, sr.fail(ReasonCorrupt, fmt.Errorf("header length %d out of range", n))
	case sr.pastEnd(int64(n) + 4):
		return nil, sr.fail(ReasonTruncated, fmt.Errorf("header of %d bytes runs past the end of the file", n))
	}
	hdr, err := sr.read(make([]byte, n))
	if err != nil {
		return nil, err
	}
	if err := sr.checkCRC("header"); err != nil {
		return nil, err
	}
	if version != FormatVersion {
		return nil, &Error{Reason: ReasonVersion, Offset: int64(len(Magic)), Field: "version",
			Want: fmt.Sprint(FormatVersion), Got: fmt.Sprint(version)}
	}
	if err := json.Unmarshal(hdr, &sr.hdr); err != nil {
		return nil, &Error{Reason: ReasonCorrupt, Offset: prefixLen, Err: fmt.Errorf("header: %w", err)}
	}
	if sr.hdr.Count < 0 {
		return nil, &Error{Reason: ReasonCorrupt, Offset: prefixLen, Err: fmt.Errorf("negative count %d", sr.hdr.Count)}
	}
	sr.left = sr.hdr.Count
	return sr, nil
}

// Header returns the verified header.
func (r *Reader) Header() Header { return r.hdr }

// Next returns the next record's JSON, valid until the next call. After the
// last record it verifies the trailer and returns io.EOF. Until that io.EOF
// nothing read is known to be sound: a caller keeps records aside and
// uses them only then. Every other error is an *Error.
func (r *Reader) Next() ([]byte, error) {
	if r.done {
		return nil, io.EOF
	}
	if r.left == 0 {
		return nil, r.finish()
	}
	start := r.off
	var nb [4]byte
	if _, err := r.read(nb[:]); err != nil {
		return nil, err
	}
	n := int64(binary.BigEndian.Uint32(nb[:]))
	switch {
	case n == 0:
		return nil, &Error{Reason: ReasonCorrupt, Offset: start, Err: errors.New("empty record")}
	case n > int64(r.opts.MaxRecord):
		return nil, &Error{Reason: ReasonCorrupt, Offset: start,
			Err: fmt.Errorf("record of %d bytes exceeds the limit of %d", n, r.opts.MaxRecord)}
	case r.pastEnd(n):
		return nil, &Error{Reason: ReasonTruncated, Offset: start,
			Err: fmt.Errorf("record of %d bytes runs past the end of the file", n)}
	}
	r.buf = r.buf[:0]
	for int64(len(r.buf)) < n {
		// Grow with the data actually read, never by the length alone.
		step := min(int(n)-len(r.buf), max(len(r.buf), chunk))
		have := len(r.buf)
		r.buf = append(r.buf, make([]byte, step)...)
		if _, err := r.read(r.buf[have:]); err != nil {
			return nil, err
		}
	}
	r.left--
	return r.buf, nil
}

// finish verifies the trailer and that nothing follows it.
func (r *Reader) finish() error {
	if err := r.checkCRC("trailer"); err != nil {
		return err
	}
	if _, err := r.br.ReadByte(); err != io.EOF {
		if err != nil {
			return &Error{Reason: ReasonCorrupt, Offset: r.off, Err: err}
		}
		return &Error{Reason: ReasonCorrupt, Offset: r.off, Err: errors.New("bytes after the trailer")}
	}
	r.done = true
	return io.EOF
}

// read fills b, adding it to the running checksum.
func (r *Reader) read(b []byte) ([]byte, error) {
	n, err := io.ReadFull(r.br, b)
	r.crc = crc32.Update(r.crc, castagnoli, b[:n])
	r.off += int64(n)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, &Error{Reason: ReasonTruncated, Offset: r.off, Err: io.ErrUnexpectedEOF}
		}
		return nil, &Error{Reason: ReasonCorrupt, Offset: r.off, Err: err}
	}
	return b, nil
}

// checkCRC reads a stored checksum and compares it with the running one.
func (r *Reader) checkCRC(what string) error {
	want := r.crc
	var b [4]byte
	if _, err := r.read(b[:]); err != nil {
		return err
	}
	if got := binary.BigEndian.Uint32(b[:]); got != want {
		return &Error{Reason: ReasonCorrupt, Offset: r.off - 4,
			Err: fmt.Errorf("%s checksum %08x, computed %08x", what, got, want)}
	}
	return nil
}

// pastEnd reports whether n more bytes, plus the trailer, would run past a
// known size.
func (r *Reader) pastEnd(n int64) bool {
	return r.opts.Size > 0 && r.off+n+4 > r.opts.Size
}

func (r *Reader) fail(reason Reason, err error) *Error {
	return &Error{Reason: reason, Offset: r.off, Err: err}
}

// Decode reads a whole snapshot of objects of type T, checking that it is a
// snapshot of want. It returns every object or none: on any error the
// objects decoded so far are dropped. Its memory is the objects it returns
// plus the Reader's buffers; it checks ctx between records.
func Decode[T any](ctx context.Context, r io.Reader, want Identity, opts ReadOptions) (Header, []*T, error) {
	sr, err := NewReader(r, opts)
	if err != nil {
		return Header{}, nil, err
	}
	h := sr.Header()
	if opts.ClusterUnknown {
		want.Cluster = h.Cluster
	}
	if field, w, g := want.mismatch(h.Identity); field != "" {
		return h, nil, &Error{Reason: ReasonIdentity, Offset: prefixLen, Field: field, Want: w, Got: g}
	}
	// The count is checksummed, but a crafted file can still claim any:
	// reserve room only for what the bytes could hold.
	room := min(h.Count, 1<<16)
	if opts.Size > 0 {
		room = min(room, opts.Size/6)
	}
	items := make([]*T, 0, room)
	var decodeErr *Error
	for i := 0; ; i++ {
		if i%1024 == 0 && ctx.Err() != nil {
			return h, nil, fmt.Errorf("snapshot: decoding: %w", ctx.Err())
		}
		rec, err := sr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return h, nil, err
		}
		if decodeErr != nil {
			continue // read on: a bad checksum would say the record is damaged, not the type
		}
		obj := new(T)
		if err := json.Unmarshal(rec, obj); err != nil {
			decodeErr = &Error{Reason: ReasonDecode, Offset: sr.off - int64(len(rec)),
				Err: fmt.Errorf("record %d into %T: %w", i, obj, err)}
			items = nil
			continue
		}
		items = append(items, obj)
	}
	if decodeErr != nil {
		return h, nil, decodeErr
	}
	return h, items, nil
}
