package apiclient

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"

	"github.com/zerokube/zerokube/meta"
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
	// NoRetry makes one try, whatever the Client's RetryOptions: for a
	// caller that owns recovery itself (the informer's reflector), so
	// that it sees, counts and reports every failure.
	NoRetry bool
	// Decode says how the reply's body is read (watchstream reads every
	// reply body; this client only sends the request and hands over the
	// body): a protobuf decoder (Decode.Protobuf) makes the request ask
	// for protobuf with JSON as the fallback (AcceptProtobuf, what
	// client-go's typed clients send), and the reply's Content-Type says
	// which came, so a resource the server has no protobuf for (a custom
	// resource) still decodes; Unmarshal, SkipUndecodable, MaxEventSize
	// (one item's cap) and StallTimeout (the page's progress watchdog,
	// which counts items) apply as watchstream.DecodeList says. Clock
	// defaults to the client's. ContentType is the reply's.
	Decode watchstream.Options
	// Metadata asks for the objects' metadata only: a meta.k8s.io/v1
	// PartialObjectMetadataList (each item kind PartialObjectMetadata,
	// apiVersion meta.k8s.io/v1, its metadata and nothing else), which
	// costs the server and the wire far less than whole objects. For a
	// caller whose type reads nothing beyond metadata.
	Metadata bool
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
// decoded from the response body (by watchstream.DecodeList, which reads
// every reply body, JSON or protobuf): the page is never held in memory,
// only the item being decoded. Items that arrive without kind/apiVersion (built-in
// types do) get them from the list: kind "PodList" gives "Pod". An error from
// each stops the list and is returned wrapped.
//
// The returned ListMeta carries the page's resourceVersion and, when more
// pages remain, the continue token.
func List[T any, P meta.PtrObject[T]](ctx context.Context, c *Client, ref Ref, opts ListOptions, each func(P) error) (meta.ListMeta, error) {
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	resp, err := c.do(ctx, request{method: "GET", path: ref.Path(), query: opts.query(), read: !opts.NoRetry,
		accept: acceptFor(opts.Decode.Protobuf != nil, as(opts.Metadata, asMetadataList))})
	if err != nil {
		return meta.ListMeta{}, err
	}
	defer resp.Body.Close()
	dec := c.streamOptions(opts.Decode)
	dec.ContentType = replyMediaType(resp)
	lm, err := watchstream.DecodeList[T, P](resp.Body, dec, each)
	if err != nil {
		if ctx.Err() != nil && watchstream.ProblemOf(err) != watchstream.Stalled {
			err = fmt.Errorf("%w (%w)", context.Cause(ctx), err)
		}
		return lm, fmt.Errorf("apiclient: list %s: %w", ref, err)
	}
	return lm, nil
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

// MaxObjectSize caps the bytes of one object read from a reply: a list item
// or the object a GET or a write returns (watchstream's limit: it decodes
// them all). etcd refuses objects over 1.5 MiB; the cap only keeps a broken
// or hostile server from making the client allocate without bound.
const MaxObjectSize = watchstream.DefaultMaxEventSize
