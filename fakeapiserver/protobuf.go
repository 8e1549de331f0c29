package fakeapiserver

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/gorilla/websocket"

	"github.com/zerokube/zerokube/kubeproto"
	"github.com/zerokube/zerokube/meta"
)

// The fake stores JSON; it speaks kube-apiserver's protobuf for the kinds
// in kubeproto's table by transcoding at the edges: request bodies in
// (decodeProtobufBody), replies out (protoReply), watch events out
// (protoFrames). What the table lacks, custom resources above all, stays
// JSON only, as on kube-apiserver.

// builtIn reports whether res has a protobuf form.
func builtIn(res *Resource) bool {
	_, ok := kubeproto.MessageFor(res.APIVersion(), res.Kind)
	return ok
}

// reasonNotAcceptable is kube-apiserver's reason for a 406.
const reasonNotAcceptable meta.StatusReason = "NotAcceptable"

// wantsProtobuf negotiates the reply's encoding from Accept as
// kube-apiserver does: the clauses in order of their q (highest first,
// ties in order), the first one the resource can be served in wins. JSON
// (application/json, application/*, */*, application/yaml: the fake
// answers YAML with JSON, as it always did) serves every resource;
// protobuf only the kinds of the table, so a custom resource asked for as
// "application/vnd.kubernetes.protobuf, application/json" gets JSON, and
// asked for as protobuf only a 406 NotAcceptable. An empty Accept, or one
// naming only types the fake does not know, gets JSON.
func wantsProtobuf(accept string, res *Resource) (bool, error) {
	type clause struct {
		mt string
		q  float64
		as bool
	}
	var cs []clause
	for part := range strings.SplitSeq(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		q := 1.0
		if v, ok := params["q"]; ok {
			if q, err = strconv.ParseFloat(v, 64); err != nil || q <= 0 {
				continue
			}
		}
		cs = append(cs, clause{mt, q, params["as"] != ""})
	}
	slices.SortStableFunc(cs, func(a, b clause) int {
		switch {
		case a.q > b.q:
			return -1
		case a.q < b.q:
			return 1
		}
		return 0
	})
	askedProtobuf := false
	for _, c := range cs {
		switch c.mt {
		case "application/json", "application/*", "*/*", "application/yaml":
			return false, nil
		case kubeproto.ContentType:
			askedProtobuf = true
			if builtIn(res) && !c.as {
				return true, nil
			}
		}
	}
	if askedProtobuf {
		return false, meta.NewStatusError(http.StatusNotAcceptable, reasonNotAcceptable,
			"only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf")
	}
	return false, nil
}

// decodeProtobufBody turns a protobuf request body (kubectl and client-go's
// typed clients send one for built-in kinds) into the JSON the handlers
// read. A kind the table lacks is a 415, as the fake's answer to any
// encoding it cannot read.
func decodeProtobufBody(r *http.Request, res *Resource) error {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != kubeproto.ContentType {
		return nil
	}
	if !builtIn(res) {
		return meta.NewStatusError(http.StatusUnsupportedMediaType, reasonUnsupportedMediaType,
			"the body of the request was in an unknown format - accepted media types include: application/json, application/yaml")
	}
	b, err := readBody(r)
	if err != nil {
		return err
	}
	js, err := kubeproto.AppendObjectJSON(nil, b)
	if err != nil {
		return errBadRequest("%v", err)
	}
	r.Body = io.NopCloser(bytes.NewReader(js))
	r.Header.Set("Content-Type", "application/json")
	return nil
}

// negotiate applies the request's Accept and Content-Type for protobuf. It
// returns the writer to answer through (a protoReply when the answer is
// protobuf) or the error to answer with (written through that writer).
func (s *Server) negotiate(w http.ResponseWriter, r *http.Request, req *request) (http.ResponseWriter, func(), error) {
	proto, err := wantsProtobuf(r.Header.Get("Accept"), req.res)
	done := func() {}
	if websocket.IsWebSocketUpgrade(r) {
		// The upgrade needs the connection itself: a websocket sink sends
		// protobuf (binary messages) on its own, errors before it stay JSON.
		req.proto = proto
		return w, done, err
	}
	if proto || err != nil {
		pr := &protoReply{ResponseWriter: w, s: s}
		w, done = pr, pr.finish
		req.proto = proto
	}
	if err == nil {
		err = decodeProtobufBody(r, req.res)
	}
	return w, done, err
}

// protoReply turns the JSON reply the handlers write into protobuf: a reply
// whose Content-Type is application/json when its header is written is
// gathered and, at finish, sent as kubeproto's envelope (objects, lists and
// Status errors alike); anything else (a protobuf watch stream) passes
// through.
type protoReply struct {
	http.ResponseWriter
	s      *Server
	code   int
	gather bool
	body   []byte
}

func (p *protoReply) WriteHeader(code int) {
	if p.code != 0 {
		return
	}
	p.code = code
	mt, _, _ := mime.ParseMediaType(p.Header().Get("Content-Type"))
	p.gather = mt == "application/json"
	if !p.gather {
		p.ResponseWriter.WriteHeader(code)
	}
}

func (p *protoReply) Write(b []byte) (int, error) {
	if p.code == 0 {
		p.WriteHeader(http.StatusOK)
	}
	if !p.gather {
		return p.ResponseWriter.Write(b)
	}
	p.body = append(p.body, b...)
	return len(b), nil
}

func (p *protoReply) Flush() {
	if !p.gather {
		if f, ok := p.ResponseWriter.(http.Flusher); ok {
			f.Flush()
		}
	}
}

func (p *protoReply) finish() {
	if !p.gather {
		return
	}
	out, err := kubeproto.AppendObjectProto(nil, p.body)
	h := p.Header()
	if err != nil {
		// An object kube-apiserver would have refused to store (a fault
		// put it there, PutUnchecked) has no protobuf form: the reply
		// stays JSON, which the client's Accept allows, so a JSON client's
		// view of it (an object that does not fit) is what it gets.
		p.s.log.Debug("fakeapiserver: reply kept as JSON: no protobuf form", "error", err)
		out = p.body
	} else {
		h.Set("Content-Type", kubeproto.ContentType)
	}
	h.Set("Content-Length", strconv.Itoa(len(out)))
	p.ResponseWriter.WriteHeader(p.code)
	_, _ = p.ResponseWriter.Write(out)
}

// protoFrames turns the JSON watch frames the store makes (each
// {"type":…,"object":…} and a newline) into protobuf watch events: a
// WatchEvent whose object is the enveloped object. One per stream; its
// buffer is reused. Frames a fault injected are turned as faithfully as
// they can be: an object of a kind the table lacks (an apiVersion the
// resource does not have) is encoded as the watched resource's message
// under the envelope's own apiVersion and kind, and bytes that are no
// event at all travel as they are, so the client meets them as the JSON
// client meets a malformed line.
type protoFrames struct {
	res kubeproto.Message // the watched resource's message
	buf []byte
}

// newProtoFrames is nil unless the watch answers in protobuf.
func newProtoFrames(req request) *protoFrames {
	if !req.proto {
		return nil
	}
	m, _ := kubeproto.MessageFor(req.res.APIVersion(), req.res.Kind)
	if req.partial {
		m, _ = kubeproto.MessageFor("meta.k8s.io/v1", "PartialObjectMetadata")
	}
	return &protoFrames{res: m}
}

// convert turns frames into length-prefixed WatchEvent frames.
func (p *protoFrames) convert(frames []byte) ([]byte, error) {
	var out []byte
	err := p.each(frames, func(ev []byte) error {
		out = kubeproto.AppendFrame(out, ev)
		return nil
	})
	return out, err
}

// each calls fn with each event of frames as a bare WatchEvent message
// (valid until fn returns).
func (p *protoFrames) each(frames []byte, fn func(ev []byte) error) error {
	for line := range bytes.SplitSeq(bytes.TrimSuffix(frames, []byte("\n")), []byte("\n")) {
		if err := fn(p.event(line)); err != nil {
			return err
		}
	}
	return nil
}

func (p *protoFrames) event(line []byte) []byte {
	var ev struct {
		Type   string         `json:"type"`
		Object jsontext.Value `json:"object"`
	}
	if err := json.Unmarshal(line, &ev); err != nil {
		return line // injected garbage: garbage it stays
	}
	obj, err := kubeproto.AppendObjectProtoLoose(nil, ev.Object)
	if errors.Is(err, kubeproto.ErrUnknownKind) && p.res.Valid() {
		var tm struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		}
		_ = json.Unmarshal(ev.Object, &tm)
		var raw []byte
		if raw, err = kubeproto.AppendProto(nil, p.res, ev.Object); err == nil {
			obj = kubeproto.AppendEnvelope(nil, kubeproto.Envelope{APIVersion: tm.APIVersion, Kind: tm.Kind, Raw: raw})
		}
	}
	if err != nil {
		return line
	}
	p.buf = kubeproto.AppendWatchEvent(p.buf[:0], kubeproto.WatchEvent{Type: ev.Type, Object: obj})
	return p.buf
}

// first is the first event of frames as a bare WatchEvent (for a cut).
func (p *protoFrames) first(frames []byte) []byte {
	line, _, _ := bytes.Cut(frames, []byte("\n"))
	return bytes.Clone(p.event(line))
}
