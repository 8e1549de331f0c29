package fakeapiserver

import (
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

// authenticate returns the request's token, nil when authentication is
// off, or a 401 Status.
func (s *Server) authenticate(r *http.Request) (*Token, error) {
	if len(s.opts.Tokens) == 0 {
		return nil, nil
	}
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		got = tokenFromSubprotocols(r)
	}
	for i := range s.opts.Tokens {
		t := &s.opts.Tokens[i]
		if got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(t.Value)) == 1 {
			return t, nil
		}
	}
	s.stats.unauthorized.Add(1)
	return nil, meta.NewStatusError(401, meta.ReasonUnauthorized, "Unauthorized")
}

// authorize answers 403 when tok does not cover the verb on res.
func authorize(tok *Token, res *Resource, verb string) error {
	if tok == nil || ((len(tok.Resources) == 0 || slices.Contains(tok.Resources, res.GVR.Resource)) &&
		(len(tok.Verbs) == 0 || slices.Contains(tok.Verbs, verb))) {
		return nil
	}
	e := meta.NewStatusError(403, meta.ReasonForbidden, fmt.Sprintf(
		"%s is forbidden: User \"fake-token-user\" cannot %s resource %q in API group %q",
		res.Qualified(), verb, res.GVR.Resource, res.GVR.Group))
	e.Status.Details = &meta.StatusDetails{Group: res.GVR.Group, Kind: res.GVR.Resource}
	return e
}

// statusFrame is an ERROR watch event carrying se's Status.
func statusFrame(se *meta.StatusError) []byte {
	b, _ := json.Marshal(&se.Status)
	return watchstream.AppendFrame(nil, meta.Error, b)
}

// forget stops tracking a hijacked connection its handler has closed
// (http.Server reports no state for it after StateHijacked). conn is the
// one the server accepted (connOf), as track recorded it, whatever the
// handler's Hijack wrapped it in.
func (c *connSet) forget(conn net.Conn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.conns, conn)
}
