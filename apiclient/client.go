package apiclient

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/time/rate"

	"github.com/zerokube/zerokube/clock"
)

// Default client-side limits, the ones client-go uses.
const (
	DefaultQPS       = 5
	DefaultBurst     = 10
	DefaultUserAgent = "zerokube"
)

// Client talks to one API server. It is safe for concurrent use; make one per
// Config and share it.
type Client struct {
	base      *url.URL // scheme, host and an optional path prefix
	http      *http.Client
	watchHTTP *http.Client  // chunked watches under Options.WatchHTTP1; nil: http
	tlsConfig *tls.Config   // nil for plain http; shared with websocket dials
	sessions  *tlsSessions  // tlsConfig's session cache (tlssession.go); nil for plain http
	token     *tokenSource  // nil without a token or token file
	exec      *execPlugin   // nil without a credential plugin
	limiter   *rate.Limiter // nil when the limit is off
	userAgent string
	timeout   time.Duration
	retry     retryPolicy
	log       *slog.Logger
	compress  bool      // ask for gzip replies (!Config.DisableCompression)
	gate      *connGate // nil with a custom transport; see conngate.go
	clock     clock.Clock
}

// Options tunes a Client beyond its Config. The zero value means defaults.
type Options struct {
	// Logger receives retries and token reloads at debug and warn level;
	// nil discards them. Tokens are never logged.
	Logger *slog.Logger
	// Retry configures the retries of reads; the zero value means defaults.
	Retry RetryOptions
	// Transport replaces the HTTP transport, for tests that wrap it; nil
	// means one built from the Config's TLS settings. Authentication, rate
	// limiting and retries are applied on top of it.
	Transport http.RoundTripper
	// HeaderTimeout bounds the wait for a reply's headers once a request is
	// sent, whatever the request (HTTP/2 pings catch a dead peer, not a
	// stuck one). It is above what kube-apiserver allows a request (60 s:
	// it ends any non-watch request itself), so that a server still
	// building a large LIST is not abandoned. The body is not the
	// client's: its reader (watchstream, Options.StallTimeout) has the
	// one progress watchdog of a reply. 0 means DefaultHeaderTimeout;
	// negative turns it off. Not applied to a custom Transport.
	HeaderTimeout time.Duration
	// Clock times every wait and timeout of the client (see Clock); nil
	// means the real clock. Timeouts that are context deadlines
	// (Config.Timeout, the exec plugin's run) stay on the real clock.
	Clock clock.Clock
	// WatchHTTP1 sends each chunked watch over HTTP/1.1, on a connection
	// of its own, while every other request shares the client's HTTP/2
	// connection. Over HTTP/2, Go's transport reads the socket on a
	// goroutine of its own and hands each DATA frame to the body's reader,
	// which then writes a WINDOW_UPDATE for every event over 4 KiB: per
	// event a goroutine to wake, a TLS record to seal and a write. Over
	// HTTP/1.1 the watch's reader reads the socket itself. At 250 events a
	// second from kube-apiserver this cut the informer's CPU per event by
	// about a quarter (bench/README.md, "Watch per event"). The price is a
	// TCP and TLS connection per open watch (one more for the server to
	// accept and hold), and no HTTP/2 ping on it: the stream's own
	// watchdog (watchstream.Options.StallTimeout) and TCP keep-alives
	// detect a dead peer. Off by default, as client-go multiplexes every
	// watch over one connection. It applies over https only (plain http
	// is HTTP/1.1 already) and not to a custom Transport.
	WatchHTTP1 bool
}

// DefaultHeaderTimeout is Options.HeaderTimeout's default: past
// kube-apiserver's own 60 s request timeout.
const DefaultHeaderTimeout = 90 * time.Second

// New builds a Client for cfg with default Options.
func New(cfg *Config) (*Client, error) { return NewWithOptions(cfg, Options{}) }

// NewWithOptions builds a Client for cfg. It reads the TLS files and the
// token file once now, so a broken config fails here rather than on the
// first request.
func NewWithOptions(cfg *Config, opts Options) (*Client, error) {
	if cfg == nil {
		return nil, errors.New("apiclient: nil Config")
	}
	base, err := parseHost(cfg.Host)
	if err != nil {
		return nil, err
	}
	c := &Client{
		base:      base,
		userAgent: cfg.UserAgent,
		timeout:   cfg.Timeout,
		retry:     opts.Retry.policy(),
		log:       opts.Logger,
		compress:  !cfg.DisableCompression,
		clock:     opts.Clock,
	}
	if c.clock == nil {
		c.clock = clock.Real{}
	}
	if c.userAgent == "" {
		c.userAgent = DefaultUserAgent
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if err := c.credentials(cfg); err != nil {
		return nil, err
	}
	c.limiter = newLimiter(cfg.QPS, cfg.Burst)
	rt, err := c.transport(cfg, opts)
	if err != nil {
		return nil, err
	}
	c.http = &http.Client{Transport: rt}
	if t, ok := rt.(*http.Transport); ok && opts.WatchHTTP1 && opts.Transport == nil && c.base.Scheme == "https" {
		c.watchHTTP = &http.Client{Transport: http1Transport(t)}
	}
	return c, nil
}

// credentials reads the token file and checks the exec plugin once, and
// refuses to send a token over plain http to anything but loopback.
func (c *Client) credentials(cfg *Config) error {
	var err error
	if c.token, err = newTokenSource(cfg.BearerToken, cfg.BearerTokenFile, c.log, c.clock); err != nil {
		return err
	}
	if cfg.Exec != nil {
		if c.exec, err = newExecPlugin(*cfg.Exec, c.clock); err != nil {
			return err
		}
	}
	hasToken := c.token != nil || c.exec != nil
	if c.base.Scheme == "http" && hasToken && !cfg.AllowInsecureBearerToken && !isLoopback(c.base.Hostname()) {
		return fmt.Errorf("apiclient: refusing to send a bearer token over plain http to %s "+
			"(use https, or set AllowInsecureBearerToken)", c.base.Host)
	}
	return nil
}

// transport builds the TLS config and, unless opts gives one, the
// transport: HTTP/2 with pings over TLS, and the response header timeout.
func (c *Client) transport(cfg *Config, opts Options) (http.RoundTripper, error) {
	if c.base.Scheme == "https" {
		var err error
		if c.tlsConfig, err = buildTLS(&cfg.TLS); err != nil {
			return nil, err
		}
		if c.exec != nil && len(c.tlsConfig.Certificates) == 0 {
			c.tlsConfig.GetClientCertificate = c.exec.clientCertificate
		}
		// Every connection, the websocket dials' too, shares one session
		// cache, which a restart can carry over (tlssession.go).
		c.sessions = newTLSSessions()
		c.tlsConfig.ClientSessionCache, c.tlsConfig.VerifyConnection = c.sessions, c.sessions.verify
	}
	if opts.Transport != nil {
		return opts.Transport, nil
	}
	// The transport adds "h2" to its config's NextProtos; a clone keeps
	// c.tlsConfig fit for websocket dials, which speak HTTP/1.1 only.
	c.gate = newConnGate()
	t := newTransport(c.tlsConfig.Clone(), c.gate)
	switch {
	case opts.HeaderTimeout == 0:
		t.ResponseHeaderTimeout = DefaultHeaderTimeout
	case opts.HeaderTimeout > 0:
		t.ResponseHeaderTimeout = opts.HeaderTimeout
	}
	return t, nil
}

// CheckHost returns the error New gives for a Config.Host that is not an
// http or https URL with a host (a bare host:port means https), or nil, for
// a loader (package kubeconfig) to name the field the host came from.
func CheckHost(host string) error {
	_, err := parseHost(host)
	return err
}

// parseHost turns Config.Host into a base URL; a bare host:port means https.
func parseHost(host string) (*url.URL, error) {
	if host == "" {
		return nil, errors.New("apiclient: Config.Host is empty")
	}
	if !strings.Contains(host, "://") {
		host = "https://" + host
	}
	u, err := url.Parse(host)
	if err != nil {
		return nil, fmt.Errorf("apiclient: Config.Host: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("apiclient: Config.Host %q: scheme must be http or https", host)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("apiclient: Config.Host %q has no host", host)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawQuery, u.Fragment, u.User = "", "", nil
	return u, nil
}

// isLoopback reports whether host names this machine, where plain http does
// not cross a network.
func isLoopback(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func newLimiter(qps float32, burst int) *rate.Limiter {
	if qps < 0 {
		return nil
	}
	if qps == 0 {
		qps = DefaultQPS
	}
	if burst <= 0 {
		burst = DefaultBurst
	}
	return rate.NewLimiter(rate.Limit(qps), burst)
}

// newTransport builds the HTTP transport: HTTP/2 when the server offers it,
// with pings that detect a dead connection (the health check client-go gets
// from its HTTP/2 settings), and proxies from the environment.
func newTransport(tlsConfig *tls.Config, gate *connGate) *http.Transport {
	return &http.Transport{
		Proxy:       http.ProxyFromEnvironment,
		DialContext: gate.dial(tcpDialer().DialContext),
		// One read per 64 KiB: with the 4 KiB default a watch of small
		// events spends a tenth of its CPU in read syscalls. HTTP/1.1
		// connections only (Options.WatchHTTP1's among them): Go's HTTP/2
		// read loop reads through a bufio.Reader of its own, 4 KiB, which
		// no setting changes (h2_bundle.go, newClientConn).
		ReadBufferSize:      64 << 10,
		TLSClientConfig:     tlsConfig,
		TLSHandshakeTimeout: 10 * time.Second,
		ForceAttemptHTTP2:   true,
		// The client asks for gzip and inflates itself (gzip.go).
		DisableCompression:  true,
		MaxIdleConnsPerHost: 25,
		IdleConnTimeout:     90 * time.Second,
		HTTP2: &http.HTTP2Config{
			SendPingTimeout: 30 * time.Second,
			PingTimeout:     15 * time.Second,
		},
	}
}

// tcpDialer opens the connections of the transport and of websocket
// watches.
func tcpDialer() *net.Dialer {
	return &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Control: loopbackBuffers}
}

// http1Transport is a copy of t that speaks HTTP/1.1 only, for watches
// (Options.WatchHTTP1). Its connections bypass the connection gate: they
// are one per watch by design, and counting them would tell the gate an
// HTTP/2 connection is up when none is. t.Clone clones the TLS config,
// which shares its ClientSessionCache, so both transports resume the same
// sessions.
func http1Transport(t *http.Transport) *http.Transport {
	h1 := t.Clone()
	h1.DialContext = tcpDialer().DialContext
	h1.ForceAttemptHTTP2 = false
	h1.HTTP2 = nil
	h1.Protocols = new(http.Protocols)
	h1.Protocols.SetHTTP1(true)
	// Cloning set up t's HTTP/2, which offers "h2" in ALPN; a server
	// would pick it and answer this HTTP/1.1 transport in HTTP/2 frames.
	if h1.TLSClientConfig != nil {
		h1.TLSClientConfig.NextProtos = []string{"http/1.1"}
	}
	return h1
}

// url builds the request URL for path and query.
func (c *Client) url(path string, query url.Values) *url.URL {
	u := *c.base
	u.Path = c.base.Path + path
	u.RawPath = ""
	if c.base.Path != "" || strings.Contains(path, "%") {
		u.RawPath = c.base.EscapedPath() + path
	}
	u.RawQuery = query.Encode()
	return &u
}

// CloseIdleConnections closes the connections the client keeps for reuse.
// Open watches are not affected.
func (c *Client) CloseIdleConnections() {
	c.http.CloseIdleConnections()
	if c.watchHTTP != nil {
		c.watchHTTP.CloseIdleConnections()
	}
}

// AsksGzip reports whether the client asks for gzip replies
// (Config.DisableCompression unset): the informer's trace says so.
func (c *Client) AsksGzip() bool { return c.compress }

// Host returns the base URL of the API server the client talks to, e.g.
// "https://10.0.0.1:6443": what identifies the server in an informer's
// snapshot.
func (c *Client) Host() string { return c.base.String() }

// waitLimiter takes a token from the client's rate limiter, waiting on the
// client's clock when none is left; without a limit it returns at once. A
// wait that would outlast ctx's deadline fails at once and gives the token
// back, as rate.Limiter.Wait does.
func (c *Client) waitLimiter(ctx context.Context) error {
	if c.limiter == nil {
		return nil
	}
	now := c.clock.Now()
	r := c.limiter.ReserveN(now, 1)
	if !r.OK() {
		return fmt.Errorf("rate limiter: burst %d allows no request", c.limiter.Burst())
	}
	d := r.DelayFrom(now)
	if d <= 0 {
		return nil
	}
	// ctx's deadline is on the real clock, whatever c.clock is.
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
		r.CancelAt(now)
		return fmt.Errorf("rate limiter: the next token is %v away, past the deadline: %w", d, context.DeadlineExceeded)
	}
	if err := clock.Sleep(ctx, c.clock, d); err != nil {
		r.CancelAt(c.clock.Now())
		return fmt.Errorf("rate limiter: %w", err)
	}
	return nil
}
