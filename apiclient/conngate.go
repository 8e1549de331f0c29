package apiclient

import (
	"context"
	"net"
	"net/http/httptrace"
	"sync"
	"sync/atomic"
)

// connGate makes a client's requests share one HTTP/2 connection from the
// start. Go's transport dials a new connection for every request that
// finds none ready, so the informers of a Factory starting together opened
// one connection each: 20 informers, 20 dials, 4 connections still open
// after the transport had dropped the surplus (TestFactoryInformersShareOneConnection
// in bench). While the client has no connection that carried a request, the
// gate lets one request at a time dial; the others wait until it has its
// connection (httptrace's GotConn) and then multiplex over it. Over
// HTTP/1.1, where a watch holds its connection, they dial as before once
// the first connection is up.
type connGate struct {
	sem   chan struct{} // one request at a time while !ready
	ready atomic.Bool   // a connection carried a request and is still open
	live  atomic.Int64  // connections open
}

func newConnGate() *connGate { return &connGate{sem: make(chan struct{}, 1)} }

// dial wraps a dialer so the gate counts open connections.
func (g *connGate) dial(d func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := d(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		g.live.Add(1)
		return &countedConn{Conn: conn, g: g}, nil
	}
}

// enter returns the context to send a request with and the function to
// call once it is sent (whatever the outcome). It waits its turn while no
// connection is ready.
func (g *connGate) enter(ctx context.Context) (context.Context, func(), error) {
	if g == nil || g.ready.Load() {
		return ctx, func() {}, nil
	}
	select {
	case g.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx, nil, context.Cause(ctx)
	}
	if g.ready.Load() { // the request before this one has connected
		<-g.sem
		return ctx, func() {}, nil
	}
	release := sync.OnceFunc(func() { <-g.sem })
	trace := &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) {
		g.ready.Store(true)
		release()
	}}
	return httptrace.WithClientTrace(ctx, trace), release, nil
}

// countedConn is a connection the gate counts until it is closed.
type countedConn struct {
	net.Conn
	g    *connGate
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() {
		if c.g.live.Add(-1) == 0 {
			c.g.ready.Store(false)
		}
	})
	return c.Conn.Close()
}
