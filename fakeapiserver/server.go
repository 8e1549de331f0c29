package fakeapiserver

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/meta"
)

// Server is an in-memory Kubernetes API server. Create it with New and
// Start, or with the package-level Start in a test.
type Server struct {
	opts Options
	log  *slog.Logger
	reg  *registry
	now  func() time.Time

	nsRes *Resource // the namespaces resource, checked by every namespaced create

	mu        sync.Mutex // guards the fields below: all object state is behind one lock
	rv        int64
	tables    map[*Resource]map[string]*stored
	hist      history
	watchers  map[*Resource]map[*watcher]struct{}
	rvChanged chan struct{} // closed and replaced whenever rv advances
	nWatchers int
	changed   chan struct{} // closed and replaced when watchers come and go
	snaps     snapshotCache // sorted list snapshots, shared by the pages of a list

	bufs bufferPool // reply buffers of lists and initial watch events

	faults faultState
	stats  counters

	// Set by Start.
	ln      net.Listener
	httpSrv *http.Server
	url     string
	ca      *certAuthority
	baseCtx context.Context
	cancel  context.CancelFunc
	conns   connSet
	wg      sync.WaitGroup // Serve, the ctx watcher and admin restarts

	hmu       sync.Mutex     // guards hclosed and handlers.Add
	hclosed   bool           // set by Close: no new handler starts
	handlers  sync.WaitGroup // running request handlers, so Close returns after them
	started   atomic.Bool
	closeOnce sync.Once
	closeErr  error         // set by shutdown
	ctxDone   chan struct{} // closed when the goroutine watching Start's ctx exits
}

// New returns a server with the built-in resources and the namespaces
// default, kube-system, kube-public and kube-node-lease. It does not listen
// until Start.
func New(opts Options) *Server {
	opts = opts.withDefaults()
	s := &Server{
		opts: opts, log: opts.Logger, reg: newRegistry(), now: opts.Now,
		tables:    map[*Resource]map[string]*stored{},
		watchers:  map[*Resource]map[*watcher]struct{}{},
		rvChanged: make(chan struct{}),
		hist:      history{maxEvents: opts.HistoryEvents, maxAge: opts.HistoryAge},
	}
	s.changed = make(chan struct{})
	s.nsRes = s.reg.get(meta.GVR{Version: "v1", Resource: "namespaces"})
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ns := range []string{"default", "kube-system", "kube-public", "kube-node-lease"} {
		if _, err := s.createLocked(s.nsRes, "", object{"metadata": map[string]any{"name": ns}}); err != nil {
			panic(fmt.Sprintf("fakeapiserver: create namespace %s: %v", ns, err))
		}
	}
	return s
}

// Register adds a resource type (a CRD, say). Objects of it are stored as
// generic JSON.
func (s *Server) Register(res Resource) error { return s.reg.add(res) }

// Start listens and serves until ctx is done or Close is called.
func (s *Server) Start(ctx context.Context) error {
	if !s.started.CompareAndSwap(false, true) {
		return errors.New("fakeapiserver: Start called twice")
	}
	ln, err := net.Listen("tcp", s.opts.Addr)
	if err != nil {
		return fmt.Errorf("fakeapiserver: listen: %w", err)
	}
	s.baseCtx, s.cancel = context.WithCancel(context.Background())
	s.httpSrv = &http.Server{
		Handler:     http.HandlerFunc(s.serveHTTP),
		BaseContext: func(net.Listener) context.Context { return s.baseCtx },
		ConnState:   s.conns.track,
		ErrorLog:    slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
	scheme := "http"
	if s.opts.TLS {
		if s.ca, err = newCertAuthority(); err != nil {
			ln.Close()
			return err
		}
		s.httpSrv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{s.ca.serverCert}, NextProtos: []string{"h2", "http/1.1"}}
		ln = tls.NewListener(ln, s.httpSrv.TLSConfig)
		scheme = "https"
	}
	s.ln = ln
	s.url = scheme + "://" + ln.Addr().String()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		_ = s.httpSrv.Serve(ln)
	}()
	s.ctxDone = make(chan struct{})
	go func() {
		// Not in s.wg: shutdown, which waits for s.wg, may run right here.
		defer close(s.ctxDone)
		select {
		case <-ctx.Done():
			s.closeOnce.Do(s.shutdown)
		case <-s.baseCtx.Done():
		}
	}()
	s.log.Debug("fakeapiserver: serving", "url", s.url)
	return nil
}

// Start starts a server for a test and closes it with t.Cleanup. It fails
// the test if the server cannot listen. At most one Options may be given.
func Start(t testing.TB, opts ...Options) *Server {
	t.Helper()
	var o Options
	if len(opts) > 1 {
		t.Fatal("fakeapiserver: Start takes at most one Options")
	}
	if len(opts) == 1 {
		o = opts[0]
	}
	s := New(o)
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// Close stops the server: every open watch and connection ends. It waits
// for the server's goroutines.
func (s *Server) Close() error {
	if !s.started.Load() {
		return nil
	}
	s.closeOnce.Do(s.shutdown)
	<-s.ctxDone
	return s.closeErr
}

// shutdown does Close's work once; concurrent callers wait in closeOnce.
func (s *Server) shutdown() {
	s.hmu.Lock()
	s.hclosed = true
	s.hmu.Unlock()
	s.cancel()
	s.mu.Lock()
	s.endAllWatchersLocked("server closed")
	s.mu.Unlock()
	err := s.httpSrv.Close()
	s.conns.closeAll()
	s.handlers.Wait()
	s.wg.Wait()
	if !errors.Is(err, http.ErrServerClosed) {
		s.closeErr = err
	}
}

// URL returns the server's base URL, "http://127.0.0.1:port".
func (s *Server) URL() string { return s.url }

// CAData returns the PEM of the CA that signed the server's certificate, or
// nil for a plain-HTTP server.
func (s *Server) CAData() []byte {
	if s.ca == nil {
		return nil
	}
	return s.ca.caPEM
}

// ClientConfig returns a ready configuration for apiclient.New: the URL, the
// CA to trust and the first token of Options.Tokens. Rate limits are off.
func (s *Server) ClientConfig() *apiclient.Config {
	cfg := &apiclient.Config{Host: s.url, QPS: -1, Namespace: "default", Source: "fakeapiserver"}
	cfg.TLS.CAData = s.CAData()
	if len(s.opts.Tokens) > 0 {
		cfg.BearerToken = s.opts.Tokens[0].Value
	}
	return cfg
}

// ResourceVersion returns the server's current resourceVersion.
func (s *Server) ResourceVersion() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rv
}

// connSet tracks open connections so Restart and Close can cut them,
// hijacked (websocket) ones included.
type connSet struct {
	mu    sync.Mutex // guards conns
	conns map[net.Conn]struct{}
}

func (c *connSet) track(conn net.Conn, state http.ConnState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch state {
	case http.StateNew:
		if c.conns == nil {
			c.conns = map[net.Conn]struct{}{}
		}
		c.conns[conn] = struct{}{}
	case http.StateClosed:
		delete(c.conns, conn)
	case http.StateActive, http.StateIdle, http.StateHijacked:
	}
}

// closeAll closes every connection and returns how many there were.
func (c *connSet) closeAll() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(c.conns)
	for conn := range c.conns {
		_ = conn.Close()
		delete(c.conns, conn)
	}
	return n
}
