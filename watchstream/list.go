package watchstream

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/zerokube/zerokube/kubeproto"
	"github.com/zerokube/zerokube/meta"
)

// DecodeList reads a LIST reply's body, JSON or protobuf as
// opts.ContentType says, and hands each item to each as soon as it is
// decoded: the page is never held in memory, only the item being decoded.
// Items that arrive without kind/apiVersion (built-in types do) get them
// from the list: kind "PodList" gives "Pod". An error from each stops the
// list and is returned as it is; every other failure is a *DecodeError.
//
// It returns the page's ListMeta: its resourceVersion and, when more pages
// follow, the continue token. Read: ContentType, Protobuf, Unmarshal,
// MaxEventSize (the cap of one item), SkipUndecodable, StallTimeout and
// Clock. A stall ends the page with a *DecodeError of Problem Stalled:
// the watchdog closes r when it is an io.Closer (an HTTP body), which
// unblocks a read waiting on a silent server; any other r is checked when
// its read returns.
func DecodeList[T any, P meta.PtrObject[T]](r io.Reader, opts Options, each func(P) error) (meta.ListMeta, error) {
	l := &listDecoder{opts: opts, max: opts.maxEventSize(), wire: &wireReader{r: r}}
	if opts.StallTimeout > 0 {
		l.dog = newWatchdog(opts.clock(), func() {
			if c, ok := r.(io.Closer); ok {
				_ = c.Close()
			}
		})
		defer l.dog.stop()
		l.bound = opts.firstItemTimeout()
		l.dog.arm(l.bound)
	}
	var lm meta.ListMeta
	var err error
	switch {
	case opts.ContentType == kubeproto.ContentType && opts.Protobuf == nil:
		err = l.fail(0, errNoProtobufDecoder)
	case opts.ContentType == kubeproto.ContentType:
		lm, err = decodeProtoList[T, P](l, l.wire, each)
	default:
		lm, err = decodeJSONList[T, P](l, l.wire, each)
	}
	if l.dog != nil && l.dog.fired.Load() {
		// Whatever the read under the closed body said, the server stopped.
		return lm, newDecodeError(BodyList, l.wire.n, l.items, &stallError{what: "item", d: l.bound})
	}
	var ce *callbackError
	if errors.As(err, &ce) {
		return lm, ce.err
	}
	return lm, err
}

// DecodeObject reads a reply that holds one JSON object (a GET, or what a
// write returns) into a fresh P, reading at most opts.MaxEventSize bytes.
func DecodeObject[T any, P meta.PtrObject[T]](r io.Reader, opts Options) (P, error) {
	lim := &limitReader{r: r}
	lim.allow(opts.maxEventSize())
	p := P(new(T))
	var err error
	if opts.Unmarshal != nil {
		err = json.UnmarshalRead(lim, p, decoderOptions, opts.Unmarshal)
	} else {
		err = json.UnmarshalRead(lim, p, decoderOptions)
	}
	if err != nil {
		if errors.Is(err, errEventTooLarge) {
			err = fmt.Errorf("an object larger than %d bytes: %w", opts.maxEventSize(), ErrTooLarge)
		}
		return nil, newDecodeError(BodyObject, 0, -1, err)
	}
	return p, nil
}

// listDecoder is what both list decoders share: the options and how they
// report a failure.
type listDecoder struct {
	opts Options
	max  int64
	wire *wireReader // the body, as read
	// dog is the page's progress watchdog (nil without StallTimeout);
	// bound the wait it times now; items the items read so far.
	dog   *watchdog
	bound time.Duration
	items int
}

// handOver runs f, the caller's time with an item (each, or
// SkipUndecodable), with the watchdog stopped: an item came, and the
// server is not waited on while the caller works. The next item may then
// take StallTimeout.
func (l *listDecoder) handOver(f func() error) error {
	l.items++
	if l.dog == nil {
		return f()
	}
	l.dog.disarm()
	err := f()
	l.bound = l.opts.StallTimeout
	l.dog.arm(l.bound)
	return err
}

// fail builds the *DecodeError of a list at offset; item is the index of
// the item being read, -1 outside the items.
func (l *listDecoder) fail(offset int64, err error, item ...int) error {
	var ce *callbackError
	if errors.As(err, &ce) {
		return err
	}
	if terr := l.wire.transportError("list body"); terr != nil {
		return terr
	}
	var de *DecodeError
	if errors.As(err, &de) {
		return err
	}
	i := -1
	if len(item) > 0 {
		i = item[0]
	}
	return newDecodeError(BodyList, offset, i, err)
}

// undecodable reports item i, which fitted the wire but not the type: to
// SkipUndecodable, which steps over it (nil is returned), or as the error
// that fails the page.
func (l *listDecoder) undecodable(de *DecodeError) error {
	if l.opts.SkipUndecodable == nil {
		return de
	}
	return l.handOver(func() error { l.opts.SkipUndecodable(de); return nil })
}

// errTrailing reports bytes after the list object.
var errTrailing = errors.New("unexpected data after the list object")

// decodeJSONList reads a JSON list object from r, streaming its items to each.
func decodeJSONList[T any, P meta.PtrObject[T]](l *listDecoder, r io.Reader, each func(P) error) (meta.ListMeta, error) {
	lim := &limitReader{r: r}
	lim.allow(l.max)
	dec := jsontext.NewDecoder(lim, decoderOptions)
	var lm meta.ListMeta
	var tm meta.TypeMeta
	if tok, err := dec.ReadToken(); err != nil {
		return lm, l.fail(0, l.tooLarge(err))
	} else if tok.Kind() != '{' {
		return lm, l.fail(0, fmt.Errorf("want a JSON object, got %v", tok.Kind()))
	}
	for lim.allow(l.max); dec.PeekKind() != '}'; lim.allow(l.max) {
		at := dec.InputOffset()
		tok, err := dec.ReadToken()
		if err != nil {
			return lm, l.fail(at, l.tooLarge(err))
		}
		name := tok.String() // copied: the token is voided by the next read
		switch name {
		case "kind":
			err = json.UnmarshalDecode(dec, &tm.Kind)
		case "apiVersion":
			err = json.UnmarshalDecode(dec, &tm.APIVersion)
		case "metadata":
			err = json.UnmarshalDecode(dec, &lm)
		case "items":
			err = decodeItems(l, dec, lim, itemTypeMeta(tm), each)
		default:
			err = dec.SkipValue()
		}
		if err != nil {
			var de *DecodeError
			var ce *callbackError
			if !errors.As(err, &de) && !errors.As(err, &ce) {
				err = fmt.Errorf("the list's %q: %w", name, l.tooLarge(err))
			}
			return lm, l.fail(dec.InputOffset(), err)
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return lm, l.fail(dec.InputOffset(), err)
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return lm, l.fail(dec.InputOffset(), errTrailing)
	}
	return lm, nil
}

// tooLarge names the size limit when the limit reader stopped the decoder.
func (l *listDecoder) tooLarge(err error) error {
	if errors.Is(err, errEventTooLarge) {
		return fmt.Errorf("a value larger than %d bytes: %w", l.max, ErrTooLarge)
	}
	return err
}

// callbackError marks an error returned by the caller's callback, which is
// passed through unchanged.
type callbackError struct{ err error }

func (e *callbackError) Error() string { return e.err.Error() }
func (e *callbackError) Unwrap() error { return e.err }

// itemTypeMeta derives the items' TypeMeta from the list's: "PodList" gives
// "Pod". kube-apiserver writes kind and apiVersion before items; if a server
// does not, items keep whatever they carry.
func itemTypeMeta(list meta.TypeMeta) meta.TypeMeta {
	return meta.TypeMeta{Kind: strings.TrimSuffix(list.Kind, "List"), APIVersion: list.APIVersion}
}

// decodeItems reads the items array (or null) one item at a time.
func decodeItems[T any, P meta.PtrObject[T]](l *listDecoder, dec *jsontext.Decoder, lim *limitReader, tm meta.TypeMeta, each func(P) error) error {
	var opts []json.Options
	if l.opts.Unmarshal != nil {
		opts = append(opts, l.opts.Unmarshal)
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	switch tok.Kind() {
	case 'n':
		return nil
	case '[':
	default:
		return fmt.Errorf("want an array or null, got %v", tok.Kind())
	}
	for i := 0; ; i++ {
		lim.allow(l.max)
		if dec.PeekKind() == ']' {
			break
		}
		p, err := decodeItem[T, P](l, dec, i, opts)
		if err != nil {
			return err
		}
		if p == nil {
			continue // skipped, and reported
		}
		fillTypeMeta(p, tm)
		if err := l.handOver(func() error { return each(p) }); err != nil {
			return &callbackError{err}
		}
	}
	_, err = dec.ReadToken()
	return err
}

// decodeItem decodes item i straight from the decoder. An item that is
// valid JSON but does not fit the type is read to its end, so that it can
// be named (its metadata may come after the failing field) and, with
// SkipUndecodable, reported and stepped over: then decodeItem returns nil
// and no error.
func decodeItem[T any, P meta.PtrObject[T]](l *listDecoder, dec *jsontext.Decoder, i int, opts []json.Options) (P, error) {
	depth := dec.StackDepth()
	at := dec.InputOffset()
	p := P(new(T))
	err := json.UnmarshalDecode(dec, p, opts...)
	if err == nil {
		return p, nil
	}
	de := newDecodeError(BodyList, at, i, l.tooLarge(err))
	if de.Problem != Undecodable {
		return nil, l.fail(at, l.tooLarge(err), i)
	}
	de.Path = itemPath(de.Path)
	de.Object = meta.JoinKey(p.GetNamespace(), p.GetName())
	name, ferr := finishItem(dec, depth)
	if ferr != nil {
		de.Err = fmt.Errorf("%w (and reading past it: %w)", de.Err, ferr)
		de.Problem = problemOf(ferr)
		return nil, de
	}
	if de.Object == "" {
		de.Object = meta.JoinKey(name.Metadata.Namespace, name.Metadata.Name)
	}
	return nil, l.undecodable(de)
}

// itemPath makes a pointer taken while decoding the whole list ("/items/3/
// spec/port") relative to the item ("/spec/port").
func itemPath(p string) string {
	if rest, ok := strings.CutPrefix(p, "/items/"); ok {
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			return rest[i:]
		}
		return ""
	}
	return p
}

// itemName is the part of an item finishItem looks for.
type itemName struct {
	Metadata struct {
		Namespace string `json:"namespace"`
		Name      string `json:"name"`
	} `json:"metadata"`
}

// finishItem reads the rest of an item whose decoding stopped part-way,
// until the decoder is back at depth (the items array), and decodes its
// metadata if it comes by at the item's own level.
func finishItem(dec *jsontext.Decoder, depth int) (itemName, error) {
	var n itemName
	for dec.StackDepth() > depth {
		kind, length := dec.StackIndex(dec.StackDepth())
		switch {
		case dec.PeekKind() == '}' || dec.PeekKind() == ']':
			if _, err := dec.ReadToken(); err != nil {
				return n, err
			}
		case kind == '{' && length%2 == 0: // a member's name comes next
			tok, err := dec.ReadToken()
			if err != nil {
				return n, err
			}
			name := tok.String()
			switch {
			case dec.StackDepth() == depth+1 && name == "metadata":
				err = json.UnmarshalDecode(dec, &n.Metadata)
			case dec.StackDepth() == depth+2 && (name == "name" || name == "namespace") &&
				strings.HasSuffix(string(dec.StackPointer()), "/metadata/"+name) && dec.PeekKind() == '"':
				// The failure was inside metadata, before its name (labels
				// come first in some encoders): the name is still ahead.
				v := &n.Metadata.Name
				if name == "namespace" {
					v = &n.Metadata.Namespace
				}
				err = json.UnmarshalDecode(dec, v)
			default:
				err = dec.SkipValue()
			}
			if err != nil {
				return n, err
			}
		default: // an array element, or a member's value
			if err := dec.SkipValue(); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

// fillTypeMeta sets kind and apiVersion on obj when it has a TypeMeta and
// they are missing.
func fillTypeMeta(obj any, tm meta.TypeMeta) {
	a, ok := obj.(meta.TypeMetaAccessor)
	if !ok {
		return
	}
	t := a.GetTypeMeta()
	if t.Kind == "" {
		t.Kind = tm.Kind
	}
	if t.APIVersion == "" {
		t.APIVersion = tm.APIVersion
	}
}
