// Package cutproxy is a TCP proxy for tests that can put the server out of
// reach and back: while down it closes every connection, open or new, as a
// partition or a restart behind a load balancer does to a client (a refused
// or reset connection, not an answer). Used by the informer's and the
// conformance suite's heal tests, on the fake and on kube-apiserver.
package cutproxy

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
)

// Proxy forwards TCP from Addr to a target. Its zero value is not usable:
// call New.
type Proxy struct {
	ln     net.Listener
	target string
	down   atomic.Bool
	mu     sync.Mutex // guards conns
	conns  map[net.Conn]struct{}
}

// New starts a proxy to target (host:port) on 127.0.0.1, closed with t.
func New(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("cutproxy: %v", err)
	}
	p := &Proxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	go p.serve()
	t.Cleanup(func() { _ = ln.Close(); p.cut() })
	return p
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Down puts the server out of reach (every connection closed, new ones
// closed as they come) or, with false, back.
func (p *Proxy) Down(down bool) {
	p.down.Store(down)
	if down {
		p.cut()
	}
}

func (p *Proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		if p.down.Load() {
			_ = c.Close()
			continue
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = c.Close()
			continue
		}
		p.mu.Lock()
		p.conns[c], p.conns[s] = struct{}{}, struct{}{}
		p.mu.Unlock()
		go func() { _, _ = io.Copy(s, c); _ = s.Close() }()
		go func() { _, _ = io.Copy(c, s); _ = c.Close() }()
	}
}

// cut closes every connection through the proxy.
func (p *Proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		_ = c.Close()
	}
	clear(p.conns)
}
