package fakeapiserver_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/kubeproto"
	"github.com/zerokube/zerokube/meta"
)

// TestEachStepAnswersBeforeTheNext: every request below breaks two rules
// (or one rule and reaches a step that would answer it), and the answer is
// the earlier step's: ServeHTTP's order, which is kube-apiserver's where a
// client can tell (401 before 403 before the handler's own 406 and 422).
func TestEachStepAnswersBeforeTheNext(t *testing.T) {
	srv := fakeapiserver.New(fakeapiserver.Options{
		Logger: slog.New(slog.DiscardHandler),
		Tokens: []fakeapiserver.Token{{Value: "admin"}, {Value: "cm-only", Resources: []string{"configmaps"}}},
		Intercept: func(r *http.Request, verb string) error {
			if r.Header.Get("X-Intercept") != "" {
				return meta.NewStatusError(429, meta.ReasonTooManyRequests, "intercepted")
			}
			return nil
		},
	})
	t.Cleanup(func() { require.NoError(t, srv.Close()) })
	require.NoError(t, srv.Register(fakeapiserver.Resource{
		GVR: meta.GVR{Group: "example.com", Version: "v1", Resource: "widgets"}, Kind: "Widget", Namespaced: true}))
	srv.FailNext(fakeapiserver.Failure{Code: 500, Count: fakeapiserver.Forever, PathContains: "/configmaps"})
	const widgets = "/apis/example.com/v1/namespaces/default/widgets"
	for _, tc := range []struct {
		name, token, method, target string
		header                      map[string]string
		want                        int
	}{
		{"admin endpoints need no token", "", "GET", "/fake/stats", nil, 200},
		{"health needs no token", "", "GET", "/healthz", nil, 200},
		{"discovery needs a token", "", "GET", "/api", nil, 401},
		{"authentication before the resource is looked up", "", "GET", "/api/v1/widgets", nil, 401},
		{"an unknown resource before authorization", "cm-only", "GET", "/api/v1/widgets", nil, 404},
		{"authorization before Intercept", "cm-only", "GET", "/api/v1/pods", map[string]string{"X-Intercept": "1"}, 403},
		{"Intercept before content negotiation", "admin", "GET", widgets,
			map[string]string{"X-Intercept": "1", "Accept": kubeproto.ContentType}, 429},
		{"content negotiation before dryRun", "admin", "POST", widgets + "?dryRun=Bogus",
			map[string]string{"Accept": kubeproto.ContentType}, 406},
		{"dryRun before injected failures", "admin", "POST", "/api/v1/namespaces/default/configmaps?dryRun=Bogus", nil, 422},
		{"injected failures before the verb", "admin", "GET", "/api/v1/namespaces/default/configmaps", nil, 500},
		{"the verb", "admin", "GET", widgets, nil, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := serve(srv, tc.method, tc.target, tc.token, tc.header)
			require.Equal(t, tc.want, w.Code, w.Body.String())
		})
	}
	t.Run("shutting down before everything", func(t *testing.T) {
		require.NoError(t, srv.Close())
		for _, target := range []string{"/fake/stats", "/healthz", "/api/v1/pods"} {
			require.Equal(t, 503, serve(srv, "GET", target, "", nil).Code, target)
		}
	})
}

func serve(srv *fakeapiserver.Server, method, target, token string, header map[string]string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, target, strings.NewReader("{}"))
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	if method == "POST" {
		r.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, r)
	return w
}
