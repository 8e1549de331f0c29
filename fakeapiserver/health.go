package fakeapiserver

import (
	"net/http"
	"strings"

	"github.com/zerokube/zerokube/meta"
)

// serveHealth answers kube-apiserver's health checks, /healthz, /livez and
// /readyz (and their /name subpaths), with 200 "ok" in plain text; false
// when the path is none of them. As on kube-apiserver, they need no
// credentials.
func (s *Server) serveHealth(w http.ResponseWriter, r *http.Request) bool {
	p := r.URL.Path
	for _, h := range []string{"/healthz", "/livez", "/readyz"} {
		if p == h || strings.HasPrefix(p, h+"/") {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Header().Set("X-Content-Type-Options", "nosniff")
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte("ok"))
			return true
		}
	}
	return false
}

// reasonUnsupportedMediaType is kube-apiserver's reason for a 415.
const reasonUnsupportedMediaType meta.StatusReason = "UnsupportedMediaType"
