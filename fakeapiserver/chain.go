package fakeapiserver

import (
	"net/http"
	"strings"

	"github.com/gorilla/websocket"
	"github.com/zerokube/zerokube/meta"
)

// ServeHTTP serves the Kubernetes API, discovery and the /fake/ admin
// endpoints. A request goes through these steps in order; the first step
// that answers it (or finds the client gone) ends it, and what the steps
// set up to undo (a gzip stream to close, a protobuf reply to encode, the
// count of running handlers) is undone, in reverse, however it ends.
//
// The order is kube-apiserver's where a client can tell (its
// DefaultBuildHandlerChain, k8s.io/apiserver/pkg/server/config.go):
// shutdown's 503 (WithWaitGroup) before authentication, authentication's
// 401 before authorization's 403, and the handler's own checks (content
// negotiation, dryRun) after both. Of the faults, latency delays every
// request but the /fake/ endpoints'; slow bodies and injected failures hit
// only requests for a resource that passed authentication and
// authorization.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	x := &exchange{s: s, w: w, r: r}
	x.later = x.buf[:0]
	defer x.undo()
	for _, step := range [...]func(*exchange) (next bool){
		(*exchange).admitUnlessShuttingDown,
		(*exchange).count,
		(*exchange).serveAdmin,
		(*exchange).injectLatency,
		(*exchange).serveHealth,
		(*exchange).authenticate,
		(*exchange).serveDiscovery,
		(*exchange).parse,
		(*exchange).authorize,
		(*exchange).intercept,
		(*exchange).slowBody,
		(*exchange).gzip,
		(*exchange).negotiate,
		(*exchange).checkDryRun,
		(*exchange).injectFailure,
		(*exchange).serveTable,
		(*exchange).servePartial,
		(*exchange).serve,
	} {
		if !step(x) {
			return
		}
	}
}

// exchange is one request on its way through ServeHTTP's steps. A step
// returns true to hand it to the next step, false once it has answered
// (or the client is gone). A step may wrap w, and registers with after
// what must run when the request ends.
type exchange struct {
	s     *Server
	w     http.ResponseWriter
	r     *http.Request
	tok   *Token  // the authenticated token; nil with authentication off
	req   request // set by parse
	later []func()
	buf   [3]func() // later's room: no step list needs more
}

// after registers f to run when the request ends, before what was
// registered earlier.
func (x *exchange) after(f func()) { x.later = append(x.later, f) }

// undo runs what the steps registered, last first; each runs even if one
// before it panics, as the defers they stand for would.
func (x *exchange) undo() {
	for _, f := range x.later {
		defer f()
	}
}

// fail answers with err's Status and ends the request.
func (x *exchange) fail(err error) bool {
	x.s.writeError(x.w, x.r, err)
	return false
}

// admitUnlessShuttingDown answers 503 once Close has begun, and otherwise
// counts the request among the running handlers Close waits for, as
// kube-apiserver's WithWaitGroup does (the gate and the count under one
// lock, so Close never waits for a handler that starts after it).
func (x *exchange) admitUnlessShuttingDown() bool {
	s := x.s
	s.hmu.Lock()
	if s.hclosed {
		s.hmu.Unlock()
		return x.fail(meta.NewStatusError(503, meta.ReasonServiceUnavailable, "the server is shutting down"))
	}
	s.handlers.Add(1)
	s.hmu.Unlock()
	x.after(s.handlers.Done)
	return true
}

// count counts every admitted request (Stats.Requests).
func (x *exchange) count() bool {
	x.s.stats.requests.Add(1)
	return true
}

// serveAdmin answers the /fake/ endpoints (admin.go): the test's own
// controls, free of credentials and faults.
func (x *exchange) serveAdmin() bool {
	if !strings.HasPrefix(x.r.URL.Path, "/fake/") {
		return true
	}
	x.s.serveAdmin(x.w, x.r)
	return false
}

// injectLatency waits out SetLatency's delay (faults.go); a client that
// leaves meanwhile gets no answer.
func (x *exchange) injectLatency() bool { return x.s.applyLatency(x.r) }

// serveHealth answers /healthz, /livez and /readyz (health.go) without
// credentials: kube-apiserver authenticates them too, but its default RBAC
// (system:public-info-viewer) lets anyone, even anonymous, read them.
func (x *exchange) serveHealth() bool { return !x.s.serveHealth(x.w, x.r) }

// authenticate answers 401 to a request without a known token, when
// Options.Tokens is set (auth.go).
func (x *exchange) authenticate() bool {
	tok, err := x.s.authenticate(x.r)
	if err != nil {
		return x.fail(err)
	}
	x.tok = tok
	return true
}

// serveDiscovery answers /version, /api, /apis and the openapi documents
// (discovery.go) to every authenticated client, as kube-apiserver's
// system:discovery role does.
func (x *exchange) serveDiscovery() bool { return !x.s.serveDiscovery(x.w, x.r) }

// parse maps the path to a resource, namespace, name, subresource and
// verb; a path naming no served resource is a 404. kube-apiserver resolves
// its RequestInfo before authentication but finds the resource only in
// its handler, after authorization; the fake's authorization names
// resources, so it needs the resource first.
func (x *exchange) parse() bool {
	req, err := x.s.parseRequest(x.r)
	if err != nil {
		return x.fail(err)
	}
	req.tok = x.tok
	x.req = req
	return true
}

// authorize answers 403 when the token does not cover the verb on the
// resource (auth.go). Reviews are open to every token: every user may ask
// what it may do (system:basic-user's rule), as it may read discovery.
func (x *exchange) authorize() bool {
	if err := authorize(x.tok, x.req.res, x.req.verb); err != nil && !x.req.res.CreateOnly {
		return x.fail(err)
	}
	return true
}

// intercept lets Options.Intercept, if non-nil, answer the request.
func (x *exchange) intercept() bool {
	if x.s.opts.Intercept == nil {
		return true
	}
	if err := x.s.opts.Intercept(x.r, x.req.verb); err != nil {
		return x.fail(err)
	}
	return true
}

// slowBody sends the answer's bytes slowly when a SlowBody is due for the
// request (fault_body.go): it wraps the writer closest to the wire, so
// what it slows or cuts is the bytes as sent, compressed or not.
func (x *exchange) slowBody() bool {
	x.w = x.s.slowBody(x.w, x.r, x.req.verb)
	return true
}

// gzip compresses the answer when the client accepts gzip (gzip.go);
// watches are never compressed.
func (x *exchange) gzip() bool {
	if x.req.verb == "watch" || !acceptsGzip(x.r.Header.Get("Accept-Encoding")) {
		return true
	}
	gw := &gzipReply{ResponseWriter: x.w, pool: &x.s.gzips}
	x.after(gw.close)
	x.w = gw
	return true
}

// negotiate answers in protobuf when the client asks for it, and reads a
// protobuf body (protobuf.go); an unacceptable Accept or Content-Type is
// answered (a 406 or 415) through the negotiated writer.
func (x *exchange) negotiate() bool {
	w, done, err := x.s.negotiate(x.w, x.r, &x.req)
	x.w = w
	x.after(done)
	if err != nil {
		return x.fail(err)
	}
	return true
}

// checkDryRun answers 422 to a write whose dryRun is not All (dryrun.go);
// reads ignore the parameter.
func (x *exchange) checkDryRun() bool {
	if err := checkDryRun(x.r.URL.Query(), x.req.verb); err != nil {
		return x.fail(err)
	}
	return true
}

// injectFailure answers with a failure set by Fail, if one is due for the
// request (faults.go).
func (x *exchange) injectFailure() bool { return !x.s.injectFailure(x.w, x.r, x.req) }

// serveTable answers a get, list or watch that asks for a Table (kubectl
// get) from the handler's JSON (table.go).
func (x *exchange) serveTable() bool {
	tw, tr := x.s.asTable(x.w, x.r, x.req.verb)
	if tw == nil {
		return true
	}
	x.s.dispatch(tw, tr, x.req)
	tw.finish()
	return false
}

// servePartial answers a request for metadata only (PartialObjectMetadata)
// from the handler's JSON (partial.go).
func (x *exchange) servePartial() bool {
	if x.req.verb == "watch" && websocket.IsWebSocketUpgrade(x.r) {
		// The upgrade needs the connection itself, and the websocket sink
		// writes each event past any ResponseWriter: it converts them.
		partial, proto, err := wantsPartial(x.r.Header.Get("Accept"), x.req.verb)
		if err != nil {
			return x.fail(err)
		}
		if partial {
			x.req.partial, x.req.proto = true, proto
		}
		return true
	}
	pw, pr, err := x.s.asPartial(x.w, x.r, x.req.verb)
	if err != nil {
		return x.fail(err)
	}
	if pw == nil {
		return true
	}
	req := x.req
	req.proto = false // the handler writes JSON; partialWriter encodes
	x.s.dispatch(pw, pr, req)
	pw.finish(x.s)
	return false
}

// serve runs the verb's handler.
func (x *exchange) serve() bool {
	x.s.dispatch(x.w, x.r, x.req)
	return false
}
