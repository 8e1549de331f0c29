package watchstream

import (
	"sync/atomic"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/zerokube/zerokube/clock"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/protodec"
)

// DefaultMaxEventSize is the event size limit when Options.MaxEventSize is 0.
// It is generous: etcd refuses objects above 1.5 MiB, and a watch event is
// one object plus a few dozen bytes of envelope.
const DefaultMaxEventSize = 16 << 20

// Options configures a Stream, or how DecodeList and DecodeObject read a
// body: every setting of reading a reply lives here, in the one package
// that reads reply bodies. The zero value means: 16 MiB objects, no
// progress watchdog, no compression, no metrics, the real clock.
type Options struct {
	// MaxEventSize caps the bytes of one event or list item (after
	// gunzip). A larger one ends the stream or fails the page with a
	// *DecodeError wrapping ErrTooLarge; the decoder never buffers much
	// more than this. 0 means DefaultMaxEventSize.
	MaxEventSize int
	// StallTimeout is the progress watchdog, one per reply: a reply that
	// delivers nothing for this long has stalled, and the read ends with
	// a *DecodeError of Problem Stalled (wrapping ErrStalled). What counts
	// as progress is an object: a LIST page's next item (decoded or
	// stepped over as undecodable: a filter above that drops it has still
	// been served) or its end; a watch's next event, bookmarks included.
	// Bytes do not count: a reply that trickles a few bytes a second and
	// never completes an object delivers nothing. The clock runs only
	// while the reader waits on the server: the caller's time with an
	// object (a slow consumer) is not the server's silence. A LIST's
	// first item has FirstItemTimeout. 0: no watchdog.
	StallTimeout time.Duration
	// FirstItemTimeout bounds a LIST page's first item (or its end) when
	// StallTimeout is set: a server may build the page before it sends a
	// byte. 0: max(StallTimeout, ServerListTimeout plus 5 s), what
	// kube-apiserver allows a LIST (see ServerListTimeout).
	FirstItemTimeout time.Duration
	// InitialStallTimeout replaces StallTimeout on a streaming list
	// until the bookmark that ends its initial events: the server sends
	// those back to back, while the watch after them may be quiet for
	// minutes. 0: StallTimeout throughout.
	InitialStallTimeout time.Duration
	// Clock times StallTimeout; nil means the real clock. (apiclient.Watch
	// passes its client's clock when this is nil.)
	Clock clock.Clock
	// ContentEncoding is the Content-Encoding of a chunked body: "" or
	// "identity" for plain JSON, "gzip" for a (multi-member) gzip stream,
	// decoded member after member as it arrives. Ignored for websockets.
	ContentEncoding string
	// ContentType is the media type of a chunked body, without parameters:
	// kubeproto.ContentType reads length-prefixed protobuf frames (and
	// needs Protobuf); anything else reads JSON. Ignored for websockets,
	// where each message says: binary for protobuf, text for JSON.
	ContentType string
	// Protobuf decodes the objects of protobuf events into the stream's
	// type; nil means the stream expects JSON only, and fails on a
	// protobuf event.
	Protobuf *protodec.Decoder
	// Metrics receives counts as the stream is read; nil means none.
	Metrics Metrics
	// Unmarshal holds extra options for decoding each object, such as
	// meta.SkipManagedFields(); nil means none.
	Unmarshal json.Options
	// SkipUndecodable, read by DecodeList only, is called with the
	// *DecodeError (Problem Undecodable) of each list item that is
	// well-formed but does not fit the caller's type, and the item is
	// skipped instead of failing the page. nil: such an item fails the
	// page. A Stream cannot step over such an event: the events after it
	// would be applied out of context, so it ends the stream whatever
	// this says (the informer then lists, which skips it).
	SkipUndecodable func(*DecodeError)
}

func (o Options) clock() clock.Clock {
	if o.Clock == nil {
		return clock.Real{}
	}
	return o.Clock
}

// ServerListTimeout is how long kube-apiserver lets a LIST run: its
// --request-timeout, 60 s by default. A server older than v1.33 builds a
// whole page before it sends the first byte, and one at any version may
// spend long on a large page from etcd; it cuts the request itself past
// this. So a LIST's first item is allowed, by default, max(StallTimeout,
// this plus the time its bytes take to arrive, serverListSlack): a
// watchdog shorter than what the server allows would abandon and retry,
// for ever, a list the server would have answered. Measured on
// kube-apiserver v1.37.2 with its defaults: a consistent LIST it cannot
// serve (etcd stopped) is ended after 60.0 s, its HTTP/2 stream reset
// (INTERNAL_ERROR) with no 504 (conformance TestHowLongKubeAPIServerAllowsAList).
const ServerListTimeout = 60 * time.Second

// serverListSlack is the margin past ServerListTimeout for the reply to
// travel.
const serverListSlack = 5 * time.Second

// firstItemTimeout is a LIST's bound for its first item.
func (o Options) firstItemTimeout() time.Duration {
	if o.FirstItemTimeout > 0 {
		return o.FirstItemTimeout
	}
	return max(o.StallTimeout, ServerListTimeout+serverListSlack)
}

func (o Options) maxEventSize() int64 {
	if o.MaxEventSize <= 0 {
		return DefaultMaxEventSize
	}
	return int64(o.MaxEventSize)
}

// Metrics is told what a Stream reads. Its methods are called from the
// goroutine that calls Next and must be cheap; they must not call back into
// the Stream.
type Metrics interface {
	// EventDecoded is called once per event delivered by Next, ERROR events
	// included.
	EventDecoded(typ meta.EventType)
	// BytesRead is called with the number of bytes read from the connection
	// (before gunzip), once per read.
	BytesRead(n int)
	// DecodeError is called once for each *DecodeError a Stream returns.
	DecodeError()
}

// Counters is a ready-made Metrics that counts with atomics; its zero value
// is ready for use and one Counters may serve many streams.
type Counters struct {
	Events       atomic.Int64
	Bytes        atomic.Int64
	DecodeErrors atomic.Int64
}

// EventDecoded implements Metrics.
func (c *Counters) EventDecoded(meta.EventType) { c.Events.Add(1) }

// BytesRead implements Metrics.
func (c *Counters) BytesRead(n int) { c.Bytes.Add(int64(n)) }

// DecodeError implements Metrics.
func (c *Counters) DecodeError() { c.DecodeErrors.Add(1) }
