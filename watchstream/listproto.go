package watchstream

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/zerokube/zerokube/internal/pbwire"
	"github.com/zerokube/zerokube/kubeproto"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/protodec"
)

// A protobuf list reply is one message, `k8s\x00` then a runtime.Unknown
// {1 typeMeta, 2 raw, 3 contentEncoding, 4 contentType} whose raw is the
// list {1 metadata, 2 items…}. decodeProtoList reads it as a stream, as
// decodeList reads JSON: each item is read into one reused buffer (at most
// MaxObjectSize), decoded into a fresh T and handed on before the next is
// read, so the page is never held in memory.

// listMetaMessage is metav1.ListMeta's message, for the list's metadata.
var listMetaMessage, _ = kubeproto.MessageByName("k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta")

// errMissingTypeMeta reports a list whose items come before the envelope
// says what they are.
var errMissingTypeMeta = errors.New("the envelope's raw list comes before its typeMeta")

// pbReader reads protobuf fields from a stream, counting bytes.
type pbReader struct {
	r   *bufio.Reader
	off int64 // bytes consumed
	max int64 // the largest length-delimited value read whole
	buf []byte
}

// readBufferSize is the size of the reads under the protobuf list reader:
// over HTTP/2 every read of a body sends a WINDOW_UPDATE frame, so few
// large reads cost less than many small ones.
const readBufferSize = 64 << 10

// varint reads one varint (pbwire.ReadVarint: io.EOF only when the
// stream ends before it).
func (p *pbReader) varint() (uint64, error) {
	v, n, err := pbwire.ReadVarint(p.r)
	p.off += int64(n)
	return v, err
}

// tag reads a field's tag: its number and wire type.
func (p *pbReader) tag() (num int, wt pbwire.Type, err error) {
	v, err := p.varint()
	if err != nil {
		return 0, 0, err
	}
	num, wt, n := pbwire.SplitTag(v)
	return num, wt, pbwire.Err(n)
}

// bytes reads a length-delimited value of at most max bytes into p.buf.
func (p *pbReader) bytes(max int64) ([]byte, error) {
	n, err := p.varint()
	if err != nil {
		return nil, noEOF(err)
	}
	if n > uint64(max) {
		return nil, fmt.Errorf("a value of %d bytes: %w", n, ErrTooLarge)
	}
	if uint64(cap(p.buf)) < n {
		p.buf = make([]byte, n)
	}
	p.buf = p.buf[:n]
	m, err := io.ReadFull(p.r, p.buf)
	p.off += int64(m)
	return p.buf, noEOF(err)
}

// skip reads past a value of wire type wt.
func (p *pbReader) skip(wt pbwire.Type) error {
	n := uint64(pbwire.FixedLen(wt))
	switch {
	case pbwire.FixedLen(wt) < 0:
		return fmt.Errorf("wire type %d: %w", wt, pbwire.Err(pbwire.FixedLen(wt)))
	case wt == pbwire.Varint:
		_, err := p.varint()
		return noEOF(err)
	case wt == pbwire.Bytes:
		var err error
		if n, err = p.varint(); err != nil {
			return noEOF(err)
		}
	}
	m, err := p.r.Discard(int(min(n, 1<<62)))
	p.off += int64(m)
	return noEOF(err)
}

// noEOF turns an end of stream inside a value into ErrUnexpectedEOF.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// decodeProtoList reads a protobuf list reply from r, streaming its items to each.
func decodeProtoList[T any, P meta.PtrObject[T]](l *listDecoder, r io.Reader, each func(P) error) (meta.ListMeta, error) {
	p := &pbReader{r: bufio.NewReaderSize(r, readBufferSize), max: l.max}
	var lm meta.ListMeta
	var magic [4]byte
	if n, err := io.ReadFull(p.r, magic[:]); err != nil || string(magic[:]) != kubeproto.Magic {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			err = fmt.Errorf("%w (read %q): %w", kubeproto.ErrNoMagic, magic[:n], io.ErrUnexpectedEOF)
		} else {
			err = fmt.Errorf("%w (read %q)", kubeproto.ErrNoMagic, magic[:n])
		}
		return lm, l.fail(0, err)
	}
	p.off = 4
	var env kubeproto.Envelope
	for {
		at := p.off
		num, wt, err := p.tag()
		if err == io.EOF {
			return lm, nil
		}
		if err != nil {
			return lm, l.fail(at, err)
		}
		switch {
		case num == 1 && wt == pbwire.Bytes:
			env, err = p.typeMeta()
		case num == 2 && wt == pbwire.Bytes:
			err = decodeProtoItems[T, P](l, p, env, &lm, each)
		default:
			err = p.skip(wt)
		}
		if err != nil {
			return lm, l.fail(at, fmt.Errorf("the envelope's field %d: %w", num, err))
		}
	}
}

// typeMeta reads the envelope's typeMeta, decoded by kubeproto.
func (p *pbReader) typeMeta() (kubeproto.Envelope, error) {
	b, err := p.bytes(64 << 10)
	if err != nil {
		return kubeproto.Envelope{}, err
	}
	hdr := append([]byte(kubeproto.Magic), 0x0a)
	hdr = pbwire.AppendVarint(hdr, uint64(len(b)))
	return kubeproto.DecodeEnvelope(append(hdr, b...))
}

// decodeProtoItems reads the list message (the envelope's raw) item by item.
func decodeProtoItems[T any, P meta.PtrObject[T]](l *listDecoder, p *pbReader, env kubeproto.Envelope,
	lm *meta.ListMeta, each func(P) error) error {
	if env.Kind == "" {
		return errMissingTypeMeta
	}
	list, ok := kubeproto.MessageFor(env.APIVersion, env.Kind)
	var items kubeproto.Field
	if ok {
		items, ok = list.FieldByNumber(2)
	}
	if !ok || !items.Message().Valid() {
		return fmt.Errorf("%s %s: %w", env.APIVersion, env.Kind, kubeproto.ErrUnknownKind)
	}
	tm := itemTypeMeta(meta.TypeMeta{Kind: env.Kind, APIVersion: env.APIVersion})
	size, err := p.varint()
	if err != nil {
		return noEOF(err)
	}
	end := p.off + int64(size)
	for i := 0; p.off < end; {
		at := p.off
		num, wt, err := p.tag()
		if err != nil {
			return noEOF(err)
		}
		switch {
		case num == 1 && wt == pbwire.Bytes:
			var b []byte
			if b, err = p.bytes(p.max); err == nil {
				err = l.opts.Protobuf.Unmarshal(listMetaMessage, b, lm)
			}
		case num == 2 && wt == pbwire.Bytes:
			err = decodeProtoItem[T, P](l, p, items.Message(), i, at, tm, each)
			i++
		default:
			err = p.skip(wt)
		}
		if err != nil {
			var ce *callbackError
			var de *DecodeError
			if errors.As(err, &ce) || errors.As(err, &de) {
				return err
			}
			return l.fail(at, fmt.Errorf("the list's field %d: %w", num, err))
		}
	}
	if p.off != end {
		return fmt.Errorf("the list's last field ends at byte %d, past its end at %d: %w", p.off, end, kubeproto.ErrMalformed)
	}
	return nil
}

// decodeProtoItem reads item i, which starts at byte at, and hands it to
// each, or reports it when it does not fit T.
func decodeProtoItem[T any, P meta.PtrObject[T]](l *listDecoder, p *pbReader, m kubeproto.Message, i int, at int64,
	tm meta.TypeMeta, each func(P) error) error {
	b, err := p.bytes(p.max)
	if err != nil {
		return l.fail(at, err, i)
	}
	d := l.opts.Protobuf
	obj := P(new(T))
	if err := d.Unmarshal(m, b, obj); err != nil {
		de := newDecodeError(BodyList, at, i, err)
		if de.Problem != Undecodable {
			return l.fail(at, err, i)
		}
		de.Path = protodec.Path(err)
		var n struct {
			meta.SlimMeta `json:"metadata"`
		}
		_ = d.Unmarshal(m, b, &n)
		de.Object = meta.Key(&n)
		return l.undecodable(de)
	}
	fillTypeMeta(obj, tm)
	if err := l.handOver(func() error { return each(obj) }); err != nil {
		return &callbackError{err}
	}
	return nil
}
