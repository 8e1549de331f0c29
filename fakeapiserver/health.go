package fakeapiserver

import (
	"mime"
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

// checkBodyType refuses a request body in protobuf, the encoding kubectl
// and client-go use for built-in kinds when they can: the fake stores and
// serves JSON only. A 415 tells client-go (and so kubectl) to send the
// request again as JSON.
func checkBodyType(r *http.Request) error {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/vnd.kubernetes.protobuf" {
		return nil
	}
	return meta.NewStatusError(http.StatusUnsupportedMediaType, reasonUnsupportedMediaType,
		"the body of the request was in an unknown format - accepted media types include: application/json, "+
			"application/yaml (this fake API server serves JSON only, not application/vnd.kubernetes.protobuf)")
}
