package apiclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/zerokube/zerokube/internal/clock"
	"github.com/zerokube/zerokube/kubeproto"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/protodec"
	"github.com/zerokube/zerokube/watchstream"
)

// ListOptions are the query parameters of a LIST. The zero value lists
// everything, unpaginated, with a consistent (most recent) read.
type ListOptions struct {
	LabelSelector, FieldSelector string
	// Limit asks for pages of at most Limit items; 0 means no limit.
	Limit int64
	// Continue resumes a paginated list; it comes from ListMeta.Continue.
	Continue string
	// ResourceVersion and ResourceVersionMatch choose how fresh the list
	// must be; see PROTOCOL.md. "" reads the most recent state.
	ResourceVersion, ResourceVersionMatch string
	TimeoutSeconds                        int64
	// ShardSelector asks for one shard of the list (KEP-5866), e.g. the
	// String of a shard.Selector. A server without the feature ignores it:
	// the reply's ListMeta.ShardInfo says whether it was applied.
	ShardSelector string
	// Unmarshal holds extra options for decoding each item, such as
	// meta.SkipManagedFields(); it is not sent to the server.
	Unmarshal json.Options
	// SkipUndecodable, when set, is called with each item that is valid
	// JSON but does not decode into the caller's type, and the item is
	// skipped instead of failing the page. nil: such an item fails the
	// page with an *ItemError naming it.
	SkipUndecodable func(*ItemError)
	// NoRetry makes one try, whatever the Client's RetryOptions: for a
	// caller that owns recovery itself (the informer's reflector), so
	// that it sees, counts and reports every failure.
	NoRetry bool
	// Protobuf, when set, asks for protobuf with JSON as the fallback
	// (AcceptProtobuf, what client-go's typed clients send) and decodes a
	// protobuf reply through it; the reply's Content-Type says which
	// came, so a resource the server has no protobuf for (a custom
	// resource) still decodes. Nil: JSON only.
	Protobuf *protodec.Decoder
}

func (o ListOptions) query() url.Values {
	q := url.Values{}
	setNonEmpty(q, "labelSelector", o.LabelSelector)
	setNonEmpty(q, "fieldSelector", o.FieldSelector)
	if o.Limit > 0 {
		q.Set("limit", strconv.FormatInt(o.Limit, 10))
	}
	setNonEmpty(q, "continue", o.Continue)
	setNonEmpty(q, "resourceVersion", o.ResourceVersion)
	setNonEmpty(q, "resourceVersionMatch", o.ResourceVersionMatch)
	if o.TimeoutSeconds > 0 {
		q.Set("timeoutSeconds", strconv.FormatInt(o.TimeoutSeconds, 10))
	}
	setNonEmpty(q, "shardSelector", o.ShardSelector)
	return q
}

func setNonEmpty(q url.Values, k, v string) {
	if v != "" {
		q.Set(k, v)
	}
}

// List reads one page of ref and hands each item to each as soon as it is
// decoded from the response body: the page is never held in memory, only
// the item being decoded. Items that arrive without kind/apiVersion (built-in
// types do) get them from the list: kind "PodList" gives "Pod". An error from
// each stops the list and is returned wrapped.
//
// The returned ListMeta carries the page's resourceVersion and, when more
// pages remain, the continue token.
func List[T any, P meta.PtrObject[T]](ctx context.Context, c *Client, ref Ref, opts ListOptions, each func(P) error) (meta.ListMeta, error) {
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	ctx, stall := context.WithCancelCause(ctx)
	defer stall(nil)
	resp, err := c.do(ctx, request{method: "GET", path: ref.Path(), query: opts.query(), read: !opts.NoRetry,
		accept: acceptFor(opts.Protobuf)})
	if err != nil {
		return meta.ListMeta{}, err
	}
	defer resp.Body.Close()
	var body io.Reader = resp.Body
	if c.idle > 0 {
		// A body that stops mid-way holds the list as surely as a reply
		// that never starts; the callback's time counts too, so it must
		// not block for long.
		dog := c.clock.AfterFunc(c.idle, func() { stall(ErrListStalled) })
		defer dog.Stop()
		body = &kickReader{r: resp.Body, dog: dog, d: c.idle}
	}
	var lm meta.ListMeta
	switch ct := replyMediaType(resp); {
	case ct == kubeproto.ContentType && opts.Protobuf != nil:
		lm, err = decodeProtoList[T, P](body, opts.Protobuf, opts.SkipUndecodable, each)
	case ct == kubeproto.ContentType:
		err = fmt.Errorf("a protobuf reply to a request that accepts only JSON")
	default:
		lm, err = decodeList[T, P](body, itemDecoding{opts.Unmarshal, opts.SkipUndecodable}, each)
	}
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%w)", context.Cause(ctx), err)
		}
		return lm, fmt.Errorf("apiclient: list %s: %w", ref, err)
	}
	return lm, nil
}

// ErrListStalled is wrapped by the error of a LIST whose body went silent
// for the client's header timeout (Options.HeaderTimeout). It wraps
// context.DeadlineExceeded.
var ErrListStalled = fmt.Errorf("apiclient: the list reply stalled: %w", context.DeadlineExceeded)

// kickReader restarts dog on every read that returns bytes.
type kickReader struct {
	r   io.Reader
	dog clock.Timer
	d   time.Duration
}

func (k *kickReader) Read(p []byte) (int, error) {
	n, err := k.r.Read(p)
	if n > 0 {
		k.dog.Reset(k.d)
	}
	return n, err
}

// ListAll reads every page of ref, following continue tokens, and hands each
// item to item as it is decoded. page, when not nil, is called after each
// page with its number (from 1) and ListMeta. Pages 2 and later send the
// continue token and drop resourceVersion and resourceVersionMatch, as the
// server requires. A 410 Gone on a later page (the token expired) is
// returned as is: the caller decides whether to start over.
//
// The returned ListMeta carries the resourceVersion of the list, where a
// watch can start.
func ListAll[T any, P meta.PtrObject[T]](ctx context.Context, c *Client, ref Ref, opts ListOptions,
	page func(n int, lm meta.ListMeta), item func(P) error) (meta.ListMeta, error) {
	var first meta.ListMeta
	// seen holds every continue token so far: a server that hands one out
	// twice would otherwise keep the client paging forever. A token is
	// about a hundred bytes per page of up to Limit items.
	seen := map[string]int{}
	for n := 1; ; n++ {
		lm, err := List[T, P](ctx, c, ref, opts, item)
		if err != nil {
			return lm, fmt.Errorf("%w (page %d)", err, n)
		}
		if n == 1 {
			first = lm
		}
		if page != nil {
			page(n, lm)
		}
		if lm.Continue == "" {
			if lm.ResourceVersion == "" {
				lm.ResourceVersion = first.ResourceVersion
			}
			return lm, nil
		}
		if p, ok := seen[lm.Continue]; ok {
			return lm, fmt.Errorf("apiclient: list %s: page %d repeats the continue token of page %d: %w", ref, n, p, ErrContinueLoop)
		}
		seen[lm.Continue] = n
		opts.Continue = lm.Continue
		opts.ResourceVersion, opts.ResourceVersionMatch = "", ""
	}
}

// ErrContinueLoop is wrapped by the error of a ListAll whose server sent a
// continue token it had sent before: paging would never end.
var ErrContinueLoop = errors.New("apiclient: the server's continue tokens loop")

// errTrailing reports bytes after the list object.
var errTrailing = errors.New("unexpected data after the list object")

// MaxObjectSize caps the bytes of one object read from a reply: a list item
// or the object a GET or a write returns. etcd refuses objects over 1.5 MiB;
// the cap, watchstream's event limit, only keeps a broken or hostile server
// from making the client allocate without bound.
const MaxObjectSize = watchstream.DefaultMaxEventSize

// ErrObjectTooLarge is wrapped by the error of a reply that holds an object
// (or any other JSON value) over MaxObjectSize.
var ErrObjectTooLarge = errors.New("apiclient: object larger than MaxObjectSize")

// budgetReader lets a JSON decoder read at most left more bytes. jsontext
// grows its buffer to hold a whole value, so without a budget one endless
// value would be an endless allocation. Refilled before each value: the
// decoder reads ahead, so a value may also use bytes read before it began,
// which only ever makes the budget more generous.
type budgetReader struct {
	r    io.Reader
	left int64
}

func (b *budgetReader) refill() { b.left = MaxObjectSize }

func (b *budgetReader) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, ErrObjectTooLarge
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	return n, err
}

// itemDecoding says how list items are decoded: extra options, and what to
// do with one that does not fit the type (nil: fail the page).
type itemDecoding struct {
	opts json.Options
	skip func(*ItemError)
}

// decodeList reads a list object from r, streaming its items to each.
func decodeList[T any, P meta.PtrObject[T]](r io.Reader, itemOpts itemDecoding, each func(P) error) (meta.ListMeta, error) {
	br := &budgetReader{r: r}
	br.refill()
	// Duplicate member names are accepted, the last one winning, as
	// kube-apiserver's own decoder and watchstream do; checking for them costs
	// a set insert per member, and managedFields' nested fieldsV1 is all names.
	dec := jsontext.NewDecoder(br, jsontext.AllowDuplicateNames(true))
	var lm meta.ListMeta
	var tm meta.TypeMeta
	if tok, err := dec.ReadToken(); err != nil {
		return lm, fmt.Errorf("decoding the list: %w", err)
	} else if tok.Kind() != '{' {
		return lm, fmt.Errorf("decoding the list: want a JSON object, got %v", tok.Kind())
	}
	for br.refill(); dec.PeekKind() != '}'; br.refill() {
		tok, err := dec.ReadToken()
		if err != nil {
			return lm, fmt.Errorf("decoding the list: %w", err)
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
			err = decodeItems(dec, br, itemTypeMeta(tm), itemOpts, each)
		default:
			err = dec.SkipValue()
		}
		if err != nil {
			return lm, decodeErr(name, dec, err)
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return lm, fmt.Errorf("decoding the list: %w", err)
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return lm, fmt.Errorf("decoding the list: %w", errTrailing)
	}
	return lm, nil
}

// decodeErr names the field whose value failed, unless the callback failed.
func decodeErr(field string, dec *jsontext.Decoder, err error) error {
	var ce *callbackError
	if errors.As(err, &ce) {
		return ce.err
	}
	return fmt.Errorf("decoding the list's %q at byte %d: %w", field, dec.InputOffset(), err)
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
func decodeItems[T any, P meta.PtrObject[T]](dec *jsontext.Decoder, br *budgetReader, tm meta.TypeMeta, itemOpts itemDecoding, each func(P) error) error {
	var opts []json.Options
	if itemOpts.opts != nil {
		opts = append(opts, itemOpts.opts)
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
		br.refill()
		if dec.PeekKind() == ']' {
			break
		}
		p, err := decodeItem[T, P](dec, i, itemOpts.skip, opts)
		if err != nil {
			return err
		}
		if p == nil {
			continue // skipped, and reported
		}
		fillTypeMeta(p, tm)
		if err := each(p); err != nil {
			return &callbackError{err}
		}
	}
	_, err = dec.ReadToken()
	return err
}

// decodeItem decodes item i straight from the decoder. An item that is
// valid JSON but does not fit the type is read to its end, so that it can
// be named (its metadata may come after the failing field) and, with skip,
// reported and stepped over: then decodeItem returns nil and no error.
func decodeItem[T any, P meta.PtrObject[T]](dec *jsontext.Decoder, i int, skip func(*ItemError), opts []json.Options) (P, error) {
	depth := dec.StackDepth()
	p := P(new(T))
	err := json.UnmarshalDecode(dec, p, opts...)
	if err == nil {
		return p, nil
	}
	err = itemError(i, p, err)
	var ie *ItemError
	if !errors.As(err, &ie) {
		return nil, err
	}
	name, ferr := finishItem(dec, depth)
	if ferr != nil {
		return nil, fmt.Errorf("%w (and reading past it: %w)", err, ferr)
	}
	if ie.Name == "" {
		ie.Namespace, ie.Name = name.Metadata.Namespace, name.Metadata.Name
	}
	if skip == nil {
		return nil, ie
	}
	skip(ie)
	return nil, nil
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
			if dec.StackDepth() == depth+1 && tok.String() == "metadata" {
				err = json.UnmarshalDecode(dec, &n.Metadata)
			} else {
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
