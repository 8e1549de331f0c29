package fakeapiserver

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json"

	"github.com/zerokube/zerokube/fakeapiserver/internal/storage"
	"github.com/zerokube/zerokube/meta"
)

// requestSeeds are requests a client (or an attacker) may send: method,
// path, raw query, content type and body.
var requestSeeds = [][5]string{
	{"GET", "/api/v1/namespaces/default/configmaps", "limit=1&resourceVersion=0&resourceVersionMatch=NotOlderThan", "", ""},
	{"GET", "/api/v1/configmaps", "labelSelector=a+in+(x,y),!b&fieldSelector=metadata.name%3Da&limit=2", "", ""},
	{"GET", "/api/v1/configmaps", "continue=" + storage.EncodeContinue(3, "default/a") + "&limit=1", "", ""},
	{"GET", "/api/v1/configmaps", "continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTEsInN0YXJ0IjoiXHUwMDAwIn0&limit=-5", "", ""},
	{"GET", "/api/v1/configmaps", "resourceVersion=99999999&resourceVersionMatch=Exact", "", ""},
	{"GET", "/api/v1/namespaces/default/configmaps/a", "", "", ""},
	{"POST", "/api/v1/namespaces/default/configmaps", "", "application/json", `{"metadata":{"name":"b","labels":{"x":"y"}},"data":{"k":"v"}}`},
	{"PUT", "/api/v1/namespaces/default/configmaps/a", "", "application/json", `{"metadata":{"name":"a","resourceVersion":"1"}}`},
	{"PATCH", "/api/v1/namespaces/default/configmaps/a", "", "application/merge-patch+json", `{"metadata":{"finalizers":["x"]}}`},
	{"PATCH", "/api/v1/namespaces/default/configmaps/a", "", "application/json-patch+json", `[{"op":"remove","path":"/metadata"}]`},
	{"DELETE", "/api/v1/namespaces/default/configmaps/a", "", "application/json", `{"preconditions":{"resourceVersion":"7"}}`},
	{"DELETE", "/api/v1/namespaces/default/configmaps", "labelSelector=x", "", ""},
	{"GET", "/apis/apps/v1/namespaces/%2e%2e/deployments", "", "", ""},
	{"PUT", "/api/v1/namespaces/default/configmaps/a/status", "", "application/json", `{"metadata":{"name":"a"}}`},
	{"POST", "/api/v1/namespaces", "", "application/json", `{"metadata":{"name":"new"}}`},
	{"DELETE", "/api/v1/namespaces/default", "", "", ""},
}

// FuzzServeRequest sends arbitrary requests to the server's handler (not
// the admin endpoints, and not watches, which stream until the client
// leaves). It must never panic, and every failure must be a Status whose
// code is the reply's, as kube-apiserver's are, so clients can decode it.
func FuzzServeRequest(f *testing.F) {
	for _, s := range requestSeeds {
		f.Add(s[0], s[1], s[2], s[3], []byte(s[4]))
	}
	f.Fuzz(func(t *testing.T, method, path, rawQuery, contentType string, body []byte) {
		q, _ := url.ParseQuery(rawQuery)
		if strings.HasPrefix(path, "/fake") || isTrue(q.Get("watch")) || !validMethod(method) || !strings.HasPrefix(path, "/") {
			return
		}
		s := New(Options{Logger: slog.New(slog.DiscardHandler), TooLargeWait: time.Millisecond})
		if _, err := s.Create(meta.GVR{Version: "v1", Resource: "configmaps"},
			`{"metadata":{"name":"a","namespace":"default","labels":{"x":"y"}},"data":{"k":"v"}}`); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		r := httptest.NewRequestWithContext(ctx, "GET", "/", strings.NewReader(string(body)))
		r.Method, r.URL.Path, r.URL.RawQuery = method, path, rawQuery
		if contentType != "" {
			r.Header.Set("Content-Type", contentType)
		}
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		if w.Code >= 200 && w.Code < 300 {
			return
		}
		var st meta.Status
		if err := json.Unmarshal(w.Body.Bytes(), &st); err != nil || st.Kind != "Status" {
			t.Fatalf("%s %s?%s: a %d reply whose body is not a Status: %q (%v)", method, path, rawQuery, w.Code, w.Body.String(), err)
		}
		if int(st.Code) != w.Code {
			t.Fatalf("%s %s?%s: reply %d carries a Status with code %d", method, path, rawQuery, w.Code, st.Code)
		}
	})
}

func validQuery(q url.Values) bool {
	for k, vs := range q {
		if !utf8.ValidString(k) {
			return false
		}
		for _, v := range vs {
			if !utf8.ValidString(v) {
				return false
			}
		}
	}
	return true
}

func validMethod(m string) bool {
	switch m {
	case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodHead, http.MethodOptions:
		return true
	}
	return false
}

// TestStatusWithInvalidUTF8IsComplete is the regression test of the inputs
// FuzzServeRequest found: PATCH /api/v1/namespaces/\xe8 answered 404, and
// GET /api/v1/configmaps?resourceVersion=\xc8 answered 400, each with a
// Status cut off in the middle.
func TestStatusWithInvalidUTF8IsComplete(t *testing.T) {
	for _, tc := range []struct{ method, path, query string }{
		{"PATCH", "/api/v1/namespaces/\xe8", ""},
		{"GET", "/api/v1/configmaps", "resourceVersion=\xc8"},
	} {
		s := New(Options{Logger: slog.New(slog.DiscardHandler)})
		r := httptest.NewRequest(tc.method, "/", strings.NewReader("0"))
		r.URL.Path, r.URL.RawQuery = tc.path, tc.query
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		var st meta.Status
		if err := json.Unmarshal(w.Body.Bytes(), &st); err != nil || int(st.Code) != w.Code {
			t.Fatalf("%s %s?%s: reply %d: %q (%v)", tc.method, tc.path, tc.query, w.Code, w.Body.String(), err)
		}
	}
}
