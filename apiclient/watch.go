package apiclient

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

// WatchOptions are the query parameters of a WATCH and how to read it. The
// zero value watches from the most recent state over chunked HTTP.
type WatchOptions struct {
	LabelSelector, FieldSelector string
	// ResourceVersion is where the watch starts: a list's resourceVersion,
	// "0" for any (the server first sends the current state as ADDED), or
	// "" for the most recent.
	ResourceVersion string
	// ResourceVersionMatch is only valid with SendInitialEvents, where ""
	// means "NotOlderThan", the one value the server accepts.
	ResourceVersionMatch string
	AllowWatchBookmarks  bool
	// SendInitialEvents asks for a streaming list: ADDED for every current
	// object, then a BOOKMARK marked initial-events-end (when bookmarks are
	// allowed), then the watch.
	SendInitialEvents bool
	// NoInitialEvents sends sendInitialEvents=false (with
	// resourceVersionMatch=NotOlderThan, which the server requires with
	// it): a watch from ResourceVersion that says explicitly that it wants
	// no initial state, as a streaming-list client resuming from a known
	// resourceVersion does. It means what a watch from a resourceVersion
	// other than "" and "0" means by default; kube-apiserver rejects it
	// (422) unless its WatchList feature is enabled. Ignored with
	// SendInitialEvents.
	NoInitialEvents bool
	// TimeoutSeconds asks the server to end the watch after that long; 0
	// lets the server choose (30 to 60 minutes by default). The client's
	// Config.Timeout never applies to watches.
	TimeoutSeconds int64
	// ShardSelector restricts the events to one shard (KEP-5866), as for a
	// LIST. A server without the feature ignores it and sends every event;
	// a watch reply has no shardInfo to say so.
	ShardSelector string
	// Websocket, when set, opens the watch over a websocket instead of
	// chunked HTTP: websocket.Dialer{} of package apiclient/websocket.
	Websocket WebsocketDialer
	// OpenTimeout bounds the wait for the server to answer the request (the
	// reply's headers, or the websocket upgrade); the events then take as
	// long as they take. Without it a server that accepts the connection
	// and never answers holds the watch forever. 0 means
	// DefaultWatchOpenTimeout.
	OpenTimeout time.Duration
	// Decode says how the events are read (watchstream reads every reply
	// body): a protobuf decoder (Decode.Protobuf) makes the request ask
	// for protobuf events with JSON as the fallback (AcceptProtobuf); the
	// reply's Content-Type (chunked) or each message's type (websocket:
	// binary for protobuf) says which came. StallTimeout is the stream's
	// progress watchdog (events and bookmarks). Clock defaults to the
	// client's; ContentType and ContentEncoding are the reply's.
	Decode watchstream.Options
	// Metadata asks for events whose objects are meta.k8s.io/v1
	// PartialObjectMetadata: their metadata only (see ListOptions.Metadata).
	Metadata bool
}

// DefaultWatchOpenTimeout is WatchOptions.OpenTimeout's default, the
// websocket handshake timeout client libraries use.
const DefaultWatchOpenTimeout = 30 * time.Second

// ErrWatchOpenTimeout is wrapped by the error of a watch the server did not
// answer within its OpenTimeout. It wraps context.DeadlineExceeded.
var ErrWatchOpenTimeout = fmt.Errorf("apiclient: the server did not answer the watch request in time: %w", context.DeadlineExceeded)

func (o WatchOptions) openTimeout() time.Duration {
	if o.OpenTimeout <= 0 {
		return DefaultWatchOpenTimeout
	}
	return o.OpenTimeout
}

func (o WatchOptions) query() url.Values {
	q := url.Values{"watch": {"1"}}
	setNonEmpty(q, "labelSelector", o.LabelSelector)
	setNonEmpty(q, "fieldSelector", o.FieldSelector)
	setNonEmpty(q, "resourceVersion", o.ResourceVersion)
	if o.AllowWatchBookmarks {
		q.Set("allowWatchBookmarks", "true")
	}
	if o.SendInitialEvents || o.NoInitialEvents {
		q.Set("sendInitialEvents", strconv.FormatBool(o.SendInitialEvents))
		if o.ResourceVersionMatch == "" {
			o.ResourceVersionMatch = meta.MatchNotOlderThan
		}
	}
	setNonEmpty(q, "resourceVersionMatch", o.ResourceVersionMatch)
	if o.TimeoutSeconds > 0 {
		q.Set("timeoutSeconds", strconv.FormatInt(o.TimeoutSeconds, 10))
	}
	setNonEmpty(q, "shardSelector", o.ShardSelector)
	return q
}

// Watch opens a watch on ref and returns the stream of its events. The
// stream lives until the server ends it, Stop is called, or ctx is
// cancelled. A refused watch (a non-2xx reply, or a refused websocket
// upgrade) gives a *meta.StatusError; opening is not retried, because the
// caller (the reflector) owns that policy.
//
// Over chunked HTTP the request says it accepts gzip, and the reply's
// Content-Encoding is passed to the stream, which decodes gzip member by
// member as it arrives.
func Watch[T any, P meta.PtrObject[T]](ctx context.Context, c *Client, ref Ref, opts WatchOptions) (*watchstream.Stream[T, P], error) {
	if opts.Websocket != nil {
		conn, err := c.dialWatch(ctx, ref, opts)
		if err != nil {
			return nil, err
		}
		return watchstream.NewWebsocket[T, P](ctx, conn, c.streamOptions(opts.Decode)), nil
	}
	// The request's context must outlive the open for the body's sake, so
	// the open timeout cancels it from a timer that a timely answer stops;
	// closing the body releases it.
	wctx, cancel := context.WithCancelCause(ctx)
	timer := c.clock.AfterFunc(opts.openTimeout(), func() { cancel(ErrWatchOpenTimeout) })
	// The stream inflates gzip itself, member by member; identity keeps the
	// request out of the client's own gzip handling.
	enc := "identity"
	if c.compress {
		enc = "gzip"
	}
	resp, err := c.do(wctx, request{method: "GET", path: ref.Path(), query: opts.query(), watch: true,
		header: http.Header{"Accept-Encoding": {enc}}, accept: acceptFor(opts.Decode.Protobuf != nil, as(opts.Metadata, asMetadata))})
	if !timer.Stop() && err == nil {
		_ = resp.Body.Close() // answered just as the timer fired: wctx is gone
		err = fmt.Errorf("apiclient: watch %s: %w", ref.Path(), ErrWatchOpenTimeout)
	}
	if err != nil {
		cancel(nil)
		return nil, err
	}
	so := c.streamOptions(opts.Decode)
	so.ContentEncoding = resp.Header.Get("Content-Encoding")
	so.ContentType = replyMediaType(resp)
	return watchstream.New[T, P](wctx, cancelOnClose{ReadCloser: resp.Body, cancel: cancel}, so), nil
}

// streamOptions are o with the client's clock unless o names its own.
func (c *Client) streamOptions(o watchstream.Options) watchstream.Options {
	if o.Clock == nil {
		o.Clock = c.clock
	}
	return o
}

// cancelOnClose releases the watch request's context when the stream
// closes the body, so that a long-lived parent context does not collect
// one child per watch.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelCauseFunc
}

func (b cancelOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.cancel(nil)
	return err
}

// WebsocketDialer opens a watch over a websocket. Package
// apiclient/websocket provides one (with gorilla/websocket), so that a
// program watching over chunked HTTP does not link a websocket library.
// The Client prepares the upgrade request (its URL, the credentials, the
// Origin header kube-apiserver requires, Accept) and reads a refusal's
// Status; the dialer speaks the websocket protocol only.
type WebsocketDialer interface {
	// DialWebsocket sends the upgrade request and returns the watch's
	// messages. Cancelling ctx aborts the handshake. When the server
	// answered without upgrading, it returns that reply with a non-nil
	// error (the Client reads and closes its body); a net.Error whose
	// Timeout() is true says the handshake timed out.
	DialWebsocket(ctx context.Context, req WebsocketRequest) (watchstream.MessageConn, *http.Response, error)
}

// WebsocketRequest is the upgrade request of a websocket watch.
type WebsocketRequest struct {
	URL    *url.URL // ws or wss, with the watch's query
	Header http.Header
	TLS    *tls.Config // the client's; nil for plain ws
	// Timeout bounds the handshake (WatchOptions.OpenTimeout).
	Timeout time.Duration
	// Dial opens the TCP connection as the client's HTTP transport does
	// (timeouts, keep-alive, socket buffers).
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// dialWatch opens a websocket watch. kube-apiserver refuses an upgrade
// without an Origin header; the bearer token goes in the Authorization
// header (the subprotocol form exists for browsers, which cannot set it).
func (c *Client) dialWatch(ctx context.Context, ref Ref, opts WatchOptions) (watchstream.MessageConn, error) {
	var sent string
	conn, err := c.dialWatchOnce(ctx, ref, opts, &sent)
	if err != nil && meta.IsUnauthorized(err) && c.renew(ctx, sent) {
		// As send does: one more try with the renewed credentials.
		conn, err = c.dialWatchOnce(ctx, ref, opts, &sent)
	}
	return conn, err
}

// dialWatchOnce makes one try of dialWatch; *sent is the bearer token it
// sent.
func (c *Client) dialWatchOnce(ctx context.Context, ref Ref, opts WatchOptions, sent *string) (watchstream.MessageConn, error) {
	path := ref.Path()
	fail := func(err error) error { return fmt.Errorf("apiclient: websocket watch %s: %w", path, err) }
	if err := c.waitLimiter(ctx); err != nil {
		return nil, fail(err)
	}
	u := c.url(path, opts.query())
	origin := url.URL{Scheme: u.Scheme, Host: u.Host}
	u.Scheme = "ws"
	if origin.Scheme == "https" {
		u.Scheme = "wss"
	}
	h := http.Header{}
	tok, err := c.setHeaders(ctx, h)
	if err != nil {
		return nil, err
	}
	*sent = tok
	h.Set("Origin", origin.String())
	h.Set("Accept", acceptFor(opts.Decode.Protobuf != nil, as(opts.Metadata, asMetadata)))
	conn, resp, err := opts.Websocket.DialWebsocket(ctx, WebsocketRequest{URL: u, Header: h, TLS: c.tlsConfig,
		Timeout: opts.openTimeout(), Dial: tcpDialer().DialContext})
	if err == nil {
		return conn, nil
	}
	if resp != nil {
		defer resp.Body.Close()
		if resp.StatusCode == http.StatusSwitchingProtocols {
			return nil, fail(err)
		}
		return nil, fail(replyError(resp))
	}
	if ctx.Err() != nil {
		return nil, fail(context.Cause(ctx))
	}
	if ne, ok := err.(net.Error); ok && ne.Timeout() && !deadlineSet(ctx) {
		// Only the handshake timeout (OpenTimeout) can have expired.
		return nil, fail(fmt.Errorf("%w: %w", ErrWatchOpenTimeout, err))
	}
	// ctx's deadline is on the real clock, whatever Options.Clock is.
	if dl, ok := ctx.Deadline(); ok && !time.Now().Before(dl) {
		// The dialer turned ctx's deadline into the connection's, which can
		// fire just before ctx's own timer: say it was the deadline.
		return nil, fail(fmt.Errorf("%w: %w", context.DeadlineExceeded, err))
	}
	return nil, fail(transportError(err))
}

func deadlineSet(ctx context.Context) bool {
	_, ok := ctx.Deadline()
	return ok
}
