package websocket

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/watchstream"
)

// Dialer opens watches over a websocket, through the proxy the environment
// names (HTTPS_PROXY, NO_PROXY) as the client's HTTP transport does. The
// zero value is ready to use.
type Dialer struct{}

var _ apiclient.WebsocketDialer = Dialer{}

// DialWebsocket does the handshake of req.
func (Dialer) DialWebsocket(ctx context.Context, req apiclient.WebsocketRequest) (watchstream.MessageConn, *http.Response, error) {
	guard := &handshakeGuard{ctx: ctx, dial: req.Dial}
	if guard.dial == nil {
		guard.dial = (&net.Dialer{}).DialContext
	}
	d := websocket.Dialer{
		Proxy:            http.ProxyFromEnvironment,
		TLSClientConfig:  req.TLS,
		HandshakeTimeout: req.Timeout,
		NetDialContext:   guard.dialContext,
	}
	conn, resp, err := d.DialContext(ctx, req.URL.String(), req.Header)
	guard.done()
	if err != nil {
		if !errors.Is(err, websocket.ErrBadHandshake) {
			resp = nil // only a refused upgrade carries a reply to read
		}
		return nil, resp, err
	}
	return messages{conn}, nil, nil
}

// handshakeGuard makes cancelling ctx abort a websocket handshake in
// progress. gorilla/websocket turns only ctx's deadline into the
// connection's, so without it a cancelled dial to a server that accepted
// the connection but never answers the upgrade would wait out the whole
// HandshakeTimeout.
type handshakeGuard struct {
	// ctx is the caller's: the context the dialer passes to dial is one it
	// derives and cancels when DialContext returns, even on success.
	ctx   context.Context
	dial  func(ctx context.Context, network, addr string) (net.Conn, error)
	mu    sync.Mutex    // guards stops
	stops []func() bool // unregister the hooks of the connections dialed
}

func (g *handshakeGuard) dialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	conn, err := g.dial(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	stop := context.AfterFunc(g.ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) }) // in the past: reads fail now
	g.mu.Lock()
	g.stops = append(g.stops, stop)
	g.mu.Unlock()
	return conn, nil
}

// done unregisters the hooks once the handshake is over: the stream owns
// the connection from then on, and a long-lived ctx must not keep them.
func (g *handshakeGuard) done() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, stop := range g.stops {
		stop()
	}
	g.stops = nil
}

// closeGrace bounds how long Close waits to send a close frame to a peer
// that does not read.
const closeGrace = time.Second

// messages is a websocket watch as watchstream reads it.
type messages struct{ conn *websocket.Conn }

func (m messages) NextMessage() (io.Reader, bool, error) {
	mt, r, err := m.conn.NextReader()
	if err == nil {
		return midMessage{r}, mt == websocket.BinaryMessage, nil
	}
	var ce *websocket.CloseError
	if !errors.As(err, &ce) {
		return nil, false, err
	}
	if ce.Code == websocket.CloseNormalClosure {
		return nil, false, io.EOF
	}
	return nil, false, fmt.Errorf("websocket closed by peer: %w: %w", ce, watchstream.ErrCut)
}

// midMessage reads one message. The connection ending inside it is the
// message cut short, as a chunked body cut inside an event is (ErrCut,
// read as Truncated): gorilla reports it as a *websocket.CloseError (1006,
// "unexpected EOF"), which once read as a transport failure on JSON and a
// malformed event on protobuf.
type midMessage struct{ r io.Reader }

func (m midMessage) Read(p []byte) (int, error) {
	n, err := m.r.Read(p)
	var ce *websocket.CloseError
	if errors.As(err, &ce) {
		err = fmt.Errorf("websocket closed inside a message: %w: %w", ce, watchstream.ErrCut)
	}
	return n, err
}

// Close says goodbye (best effort, bounded) and closes the connection,
// which unblocks a pending read.
func (m messages) Close() error {
	msg := websocket.FormatCloseMessage(websocket.CloseNormalClosure, "")
	// A connection's deadline is on the real clock, not Options.Clock.
	_ = m.conn.WriteControl(websocket.CloseMessage, msg, time.Now().Add(closeGrace))
	return m.conn.Close()
}
