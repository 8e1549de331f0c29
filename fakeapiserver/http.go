package fakeapiserver

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/zerokube/zerokube/meta"
)

// request is a parsed resource request.
type request struct {
	res  *Resource
	ns   string // from the path; "" for all namespaces or cluster-scoped
	name string
	sub  string // subresource ("status"), if any
	verb string // get list watch create update patch delete deletecollection
	// proto: the reply is protobuf (negotiated from Accept; protobuf.go)
	proto bool
	// partial: a websocket watch asked for PartialObjectMetadata. Its
	// sink writes each event itself, past any ResponseWriter, so the sink
	// converts them (partial.go); every other metadata-only request is
	// converted by a partialWriter around the handler.
	partial bool
	tok     *Token // who asks, nil without authentication (reviews.go)
}

func (s *Server) dispatch(w http.ResponseWriter, r *http.Request, req request) {
	switch {
	case req.res.CreateOnly:
		s.handleReview(w, r, req) // reviews.go
		return
	case req.sub == "scale":
		s.handleScale(w, r, req) // scale.go
		return
	}
	switch req.verb {
	case "get":
		s.handleGet(w, r, req)
	case "list":
		s.handleList(w, r, req)
	case "watch":
		s.handleWatch(w, r, req)
	case "create":
		s.handleCreate(w, r, req)
	case "update":
		s.handleUpdate(w, r, req)
	case "patch":
		s.handlePatch(w, r, req)
	case "delete":
		s.handleDelete(w, r, req)
	case "deletecollection":
		s.handleDeleteCollection(w, r, req)
	default:
		s.writeError(w, r, errMethodNotAllowed(r.Method))
	}
}

// parseRequest maps a path under /api or /apis to a resource, namespace,
// name and verb.
func (s *Server) parseRequest(r *http.Request) (request, error) {
	var req request
	segs := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	var gvr meta.GVR
	switch {
	case len(segs) >= 3 && segs[0] == "api":
		gvr.Version, segs = segs[1], segs[2:]
	case len(segs) >= 4 && segs[0] == "apis":
		gvr.Group, gvr.Version, segs = segs[1], segs[2], segs[3:]
	default:
		return req, errNoResource()
	}
	if len(segs) >= 3 && segs[0] == "namespaces" {
		gvr.Resource = segs[2]
		if res := s.reg.get(gvr); res != nil && res.Namespaced {
			req.res, req.ns, segs = res, segs[1], segs[3:]
		}
	}
	if req.res == nil {
		gvr.Resource = segs[0]
		req.res, segs = s.reg.get(gvr), segs[1:]
	}
	if req.res == nil || len(segs) > 2 {
		return req, errNoResource()
	}
	if len(segs) > 0 {
		req.name = segs[0]
	}
	if len(segs) > 1 {
		req.sub = segs[1]
		if !(req.sub == "status" && req.res.StatusSubresource) && !(req.sub == "scale" && req.res.ScaleSubresource) {
			return req, errNoResource()
		}
	}
	if req.res.Namespaced && req.ns == "" && req.name != "" {
		// An object of a namespaced resource has no path outside its
		// namespace (/api/v1/pods/NAME): kube-apiserver registers none and
		// answers its generic 404, which names no object (observed on
		// v1.37.2, conformance writes/by-name-without-namespace).
		return req, errNoResource()
	}
	req.verb = verbOf(r, req)
	return req, nil
}

func verbOf(r *http.Request, req request) string {
	coll := req.name == ""
	switch {
	case req.sub != "" && r.Method != http.MethodGet && r.Method != http.MethodPut && r.Method != http.MethodPatch:
		return "" // a subresource is read, updated and patched only
	case r.Method == http.MethodGet && coll && isTrue(r.URL.Query().Get("watch")):
		return "watch"
	case r.Method == http.MethodGet && coll:
		return "list"
	case r.Method == http.MethodGet:
		return "get"
	case r.Method == http.MethodPost && coll:
		return "create"
	case r.Method == http.MethodPut && !coll:
		return "update"
	case r.Method == http.MethodPatch && !coll:
		return "patch"
	case r.Method == http.MethodDelete && coll:
		return "deletecollection"
	case r.Method == http.MethodDelete:
		return "delete"
	}
	return ""
}

func isTrue(v string) bool { b, _ := strconv.ParseBool(v); return b || v == "1" }

// writeError answers with err's Status, or a 500 InternalError for errors
// that carry none.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var se *meta.StatusError
	if !errors.As(err, &se) {
		se = meta.NewStatusError(500, meta.ReasonInternalError, err.Error())
	}
	if se.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(se.RetryAfter.Seconds())))
	} else if d := se.Status.Details; d != nil && d.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(d.RetryAfterSeconds)))
	}
	s.log.Debug("fakeapiserver: request failed", "method", r.Method, "path", r.URL.Path, "code", se.Status.Code, "reason", se.Status.Reason)
	// A message can quote a name taken from the URL, which may hold invalid
	// UTF-8; kube-apiserver's encoder writes U+FFFD for such bytes, and a
	// Status cut short at the first one would leave the client nothing to read.
	b, err := json.Marshal(&se.Status, jsontext.AllowInvalidUTF8(true))
	if err != nil { // unreachable for a Status; never send half of one
		b = []byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"unencodable error","reason":"InternalError","code":500}`)
	}
	writeJSON(w, int(se.Status.Code), b)
}

// deterministic writes JSON as kube-apiserver's encoding/json does: map
// keys sorted, and <, >, &, U+2028 and U+2029 escaped (json v2 leaves
// them as they are by default; the bytes differ, not the value).
var deterministic = json.JoinOptions(json.Deterministic(true), jsontext.EscapeForHTML(true), jsontext.EscapeForJS(true))

func writeJSON(w http.ResponseWriter, code int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(code)
	_, _ = w.Write(body)
}

// writeValue marshals v and answers with it.
func writeValue(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v, deterministic)
	if err != nil {
		panic("fakeapiserver: marshal reply: " + err.Error())
	}
	writeJSON(w, code, b)
}
