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
	"time"

	"github.com/zerokube/zerokube/fakeapiserver/internal/storage"
	"github.com/zerokube/zerokube/meta"
)

// Server is an in-memory Kubernetes API server. It is an http.Handler, so
// it mounts in httptest or any mux; Start also serves it on its own
// listener (with TLS when asked). In tests, fakeapiservertest.Start is one
// line.
type Server struct {
	opts  Options
	log   *slog.Logger
	reg   *registry
	now   func() time.Time
	store *storage.Store // objects, history, watchers: the state, behind its own lock

	nsRes *Resource // the namespaces resource

	bufs  bufferPool // reply buffers of lists and initial watch events
	gzips gzipPool   // compressors of replies over gzipThreshold (gzip.go)

	faults faultState
	stats  counters

	serviceIPs atomic.Int64  // cluster IPs given so far (defaults.go)
	statusKick chan struct{} // wakes the status loop; nil without one (statusloop.go)

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
	s := &Server{opts: opts, log: opts.Logger, reg: newRegistry(), now: opts.Now}
	if opts.SimulateStatus {
		s.statusKick = make(chan struct{}, 1) // kicked by writes before Start too
	}
	s.nsRes = s.reg.get(meta.GVR{Version: "v1", Resource: "namespaces"})
	s.store = storage.New(storage.Options{
		HistoryEvents: opts.HistoryEvents, HistoryAge: opts.HistoryAge, WatchBuffer: opts.WatchBuffer,
		TooLargeWait: opts.TooLargeWait, Now: opts.Now, Logger: opts.Logger, Namespaces: s.nsRes,
	})
	for _, ns := range []string{"default", "kube-system", "kube-public", "kube-node-lease"} {
		if _, err := s.create(s.nsRes, "", object{"metadata": map[string]any{"name": ns}}, writeMeta{manager: "kube-apiserver"}); err != nil {
			panic(fmt.Sprintf("fakeapiserver: create namespace %s: %v", ns, err))
		}
	}
	return s
}

// Register adds a resource type (a CRD, say). Objects of it are stored as
// generic JSON.
func (s *Server) Register(res Resource) error { return s.reg.add(res) }

// Start listens on Options.Addr and returns once listening; it serves in
// the background until ctx is done or Close is called.
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
		Handler:     s,
		BaseContext: func(net.Listener) context.Context { return s.baseCtx },
		ConnState:   s.conns.track,
		ConnContext: func(ctx context.Context, c net.Conn) context.Context { return context.WithValue(ctx, connKey{}, c) },
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
	if s.statusKick != nil {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.runStatusLoop(s.baseCtx)
		}()
	}
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

// Close stops the server: every open watch ends, and after Start every
// connection too; later requests get 503. It waits for the server's
// request handlers and goroutines. A server mounted elsewhere (never
// started) should be closed before its http.Server, whose Close waits for
// the watches Close ends.
func (s *Server) Close() error {
	s.closeOnce.Do(s.shutdown)
	if s.ctxDone != nil {
		<-s.ctxDone
	}
	return s.closeErr
}

// shutdown does Close's work once; concurrent callers wait in closeOnce.
func (s *Server) shutdown() {
	s.hmu.Lock()
	s.hclosed = true
	s.hmu.Unlock()
	if s.cancel != nil {
		s.cancel()
	}
	s.store.EndWatches("server closed")
	var err error
	if s.httpSrv != nil {
		err = s.httpSrv.Close()
		s.conns.closeAll()
	}
	s.handlers.Wait()
	s.wg.Wait()
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		s.closeErr = err
	}
}

// URL returns the base URL Start listens on, "http://127.0.0.1:port"; ""
// before Start (a server mounted in another http.Server has that one's URL).
func (s *Server) URL() string { return s.url }

// CAData returns the PEM of the CA that signed the server's certificate, or
// nil for a plain-HTTP server.
func (s *Server) CAData() []byte {
	if s.ca == nil {
		return nil
	}
	return s.ca.caPEM
}

// BearerToken returns the first token of Options.Tokens, the one clients
// of this server should send, or "" when authentication is off.
func (s *Server) BearerToken() string {
	if len(s.opts.Tokens) == 0 {
		return ""
	}
	return s.opts.Tokens[0].Value
}

// ResourceVersion returns the server's current resourceVersion.
func (s *Server) ResourceVersion() int64 { return s.store.RV() }

// connSet tracks open connections so Restart and Close can cut them,
// hijacked (websocket) ones included.
type connSet struct {
	mu       sync.Mutex // guards conns
	conns    map[net.Conn]struct{}
	accepted atomic.Int64 // connections accepted so far, for Stats
}

func (c *connSet) track(conn net.Conn, state http.ConnState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch state {
	case http.StateNew:
		c.accepted.Add(1)
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
func (c *connSet) closeAll() int { return c.closeAllBut(nil) }

// closeAllBut closes every connection but keep and returns how many it
// closed.
func (c *connSet) closeAllBut(keep net.Conn) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for conn := range c.conns {
		if conn == keep {
			continue
		}
		_ = conn.Close()
		delete(c.conns, conn)
		n++
	}
	return n
}

// connKey is the context key of the connection a request came on
// (http.Server.ConnContext), which /fake/restart spares until it has
// answered.
type connKey struct{}

// connOf returns the connection r came on; nil on a server mounted in
// another http.Server.
func connOf(r *http.Request) net.Conn {
	c, _ := r.Context().Value(connKey{}).(net.Conn)
	return c
}
