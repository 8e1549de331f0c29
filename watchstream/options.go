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
// body. The zero value means: 16 MiB events, no idle
// timeout, no compression, no metrics, the real clock.
type Options struct {
	// MaxEventSize caps the bytes of one event (after gunzip). A larger event
	// ends the stream with a *DecodeError wrapping ErrTooLarge; the
	// decoder never buffers much more than this. 0 means DefaultMaxEventSize.
	MaxEventSize int
	// IdleTimeout ends the stream with ErrIdleTimeout when a read waits
	// that long for a byte (bookmarks count), so a half-open connection
	// cannot hang a watcher forever. The clock runs only while Next waits
	// on the connection: a slow consumer is not an idle peer. 0 means no
	// timeout; servers send bookmarks about once a minute, so a few minutes
	// is a sensible value.
	IdleTimeout time.Duration
	// Clock times IdleTimeout; nil means the real clock. (apiclient.Watch
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
