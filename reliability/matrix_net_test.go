package reliability

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
)

// netGate is the network between the informer and the fake server: set
// down, it cuts every connection and refuses new ones, as when the API
// server is unreachable (connection refused), which no HTTP answer of the
// server itself can show.
type netGate struct {
	down  atomic.Bool
	mu    sync.Mutex // guards conns
	conns map[net.Conn]struct{}
}

func newNetGate() *netGate { return &netGate{conns: map[net.Conn]struct{}{}} }

func (g *netGate) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if g.down.Load() {
		return nil, &net.OpError{Op: "dial", Net: network, Err: syscall.ECONNREFUSED}
	}
	c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.down.Load() { // set down while dialling
		_ = c.Close()
		return nil, &net.OpError{Op: "dial", Net: network, Err: syscall.ECONNREFUSED}
	}
	tc := &gatedConn{Conn: c, g: g}
	g.conns[tc] = struct{}{}
	return tc, nil
}

// set takes the network down (cutting every connection) or up.
func (g *netGate) set(down bool) {
	g.mu.Lock()
	g.down.Store(down)
	var cut []net.Conn
	if down {
		for c := range g.conns {
			cut = append(cut, c)
		}
	}
	g.mu.Unlock()
	for _, c := range cut {
		_ = c.Close()
	}
}

type gatedConn struct {
	net.Conn
	g *netGate
}

func (c *gatedConn) Close() error {
	c.g.mu.Lock()
	delete(c.g.conns, c)
	c.g.mu.Unlock()
	return c.Conn.Close()
}
