package discovery_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/discovery"
)

// legacyServer answers the legacy discovery documents only (as a server
// without aggregated discovery does), with group example.com serving v1
// and v2 and preferring v2, which it lists second. The fake lists a group's
// preferred version first, so on it a walk that took the first version as
// the preferred one would pass.
func legacyServer(t *testing.T) *httptest.Server {
	t.Helper()
	docs := map[string]string{
		"/api": `{"kind":"APIVersions","versions":["v1"]}`,
		"/apis": `{"kind":"APIGroupList","apiVersion":"v1","groups":[{"name":"example.com",
			"versions":[{"groupVersion":"example.com/v1","version":"v1"},{"groupVersion":"example.com/v2","version":"v2"}],
			"preferredVersion":{"groupVersion":"example.com/v2","version":"v2"}}]}`,
		"/api/v1":              `{"kind":"APIResourceList","groupVersion":"v1","resources":[]}`,
		"/apis/example.com/v1": widgetsDoc("v1"),
		"/apis/example.com/v2": widgetsDoc("v2"),
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		doc, ok := docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(doc))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func widgetsDoc(v string) string {
	return `{"kind":"APIResourceList","groupVersion":"example.com/` + v + `","resources":[
		{"name":"widgets","singularName":"widget","namespaced":true,"kind":"Widget","verbs":["get","list","watch"],"shortNames":["wd"]}]}`
}

// TestTheLegacyWalkResolvesToThePreferredVersionWhereverItIsListed: /apis
// names each group's preferred version apart from the list of versions;
// kubectl resolves a bare name to the preferred version, not the first
// listed.
func TestTheLegacyWalkResolvesToThePreferredVersionWhereverItIsListed(t *testing.T) {
	srv := legacyServer(t)
	c, err := apiclient.NewWithOptions(&apiclient.Config{Host: srv.URL}, apiclient.Options{})
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	x, err := discovery.New(c, discovery.Options{}).Index(ctx(t))
	require.NoError(t, err)
	for _, name := range []string{"wd", "widgets", "widget", "widgets.example.com"} {
		r, err := x.Resolve(name)
		require.NoError(t, err, name)
		assert.Equal(t, "v2", r.GVR.Version, "%s resolves to the preferred version", name)
	}
	r, err := x.Resolve("widgets.v1.example.com")
	require.NoError(t, err)
	assert.Equal(t, "v1", r.GVR.Version, "the other version is still there by its full name")
}
