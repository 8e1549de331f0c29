package discovery_test

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/clock/clocktest"
	"github.com/zerokube/zerokube/discovery"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/meta"
)

// recorder records the path and Accept header of each request; with legacy
// set it asks for plain JSON instead, as a client of a server without
// aggregated discovery would get.
type recorder struct {
	legacy bool
	mu     sync.Mutex
	seen   []string // "path accept"
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if r.legacy {
		req = req.Clone(req.Context())
		req.Header.Set("Accept", "application/json")
	}
	r.mu.Lock()
	r.seen = append(r.seen, req.URL.Path+" "+req.Header.Get("Accept"))
	r.mu.Unlock()
	return http.DefaultTransport.RoundTrip(req)
}

func (r *recorder) requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.seen...)
}

var widgets = fakeapiserver.Resource{GVR: meta.GVR{Group: "example.com", Version: "v1", Resource: "widgets"},
	Kind: "Widget", Namespaced: true, ShortNames: []string{"wd"}}

func start(t *testing.T, rec *recorder, opts discovery.Options) (*fakeapiserver.Server, *discovery.Client) {
	t.Helper()
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: slog.New(slog.DiscardHandler)})
	c, err := apiclient.NewWithOptions(fakeapiservertest.ClientConfig(srv), apiclient.Options{Transport: rec})
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	return srv, discovery.New(c, opts)
}

func ctx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestAggregatedDiscoveryTakesTwoRequests(t *testing.T) {
	rec := &recorder{}
	srv, d := start(t, rec, discovery.Options{})
	require.NoError(t, srv.Register(widgets))
	r, err := d.Resolve(ctx(t), "wd")
	require.NoError(t, err)
	require.Equal(t, widgets.GVR, r.GVR)
	require.Equal(t, "Widget", r.Kind)
	require.Equal(t, "widget", r.SingularName)
	require.True(t, r.Namespaced)
	require.Equal(t, []string{"/api " + discovery.AcceptAggregated, "/apis " + discovery.AcceptAggregated}, rec.requests())

	// Kept: the next names cost nothing.
	for _, name := range []string{"deploy", "pods", "Node", "leases.coordination.k8s.io"} {
		_, err := d.Resolve(ctx(t), name)
		require.NoError(t, err, name)
	}
	require.Len(t, rec.requests(), 2)
	p, err := d.Resolve(ctx(t), "po")
	require.NoError(t, err)
	require.Equal(t, []string{"status"}, p.Subresources)
	require.True(t, p.Has("watch"))
}

func TestTheLegacyWalkFindsWhatAggregatedDiscoveryDoes(t *testing.T) {
	agg, legacy := &recorder{}, &recorder{legacy: true}
	srvA, dA := start(t, agg, discovery.Options{})
	srvL, dL := start(t, legacy, discovery.Options{})
	for _, srv := range []*fakeapiserver.Server{srvA, srvL} {
		require.NoError(t, srv.Register(widgets))
		v2 := widgets
		v2.GVR.Version = "v2"
		require.NoError(t, srv.Register(v2))
	}
	xA, err := dA.Index(ctx(t))
	require.NoError(t, err)
	xL, err := dL.Index(ctx(t))
	require.NoError(t, err)
	require.Equal(t, xA.Resources(), xL.Resources())
	require.Greater(t, len(legacy.requests()), 4, "one request per group version")
	r, err := xL.Resolve("wd")
	require.NoError(t, err)
	require.Equal(t, "v2", r.GVR.Version, "the preferred version")
}

func TestAMissReadsDiscoveryAgainSoANewCustomResourceIsFound(t *testing.T) {
	rec := &recorder{}
	clk := clocktest.New()
	clk.SetInstant(true)
	srv, d := start(t, rec, discovery.Options{Clock: clk, MinRefreshInterval: 5 * time.Second})
	_, err := d.Resolve(ctx(t), "wd")
	require.True(t, discovery.IsNotFound(err), "a typo is not read twice: %v", err)
	require.Contains(t, err.Error(), srv.URL())
	require.Len(t, rec.requests(), 2)

	require.NoError(t, srv.Register(widgets))
	r, err := d.Resolve(ctx(t), "wd")
	require.NoError(t, err)
	require.Equal(t, widgets.GVR, r.GVR)
	require.Len(t, rec.requests(), 4)
	require.Equal(t, []time.Duration{5 * time.Second}, clk.Delays(), "reads at least MinRefreshInterval apart")

	_, err = d.Resolve(ctx(t), "nothing")
	require.True(t, discovery.IsNotFound(err))
	require.Len(t, rec.requests(), 6, "a miss on a kept snapshot reads again")
}

func TestConcurrentMissesShareOneRead(t *testing.T) {
	rec := &recorder{}
	srv, d := start(t, rec, discovery.Options{MinRefreshInterval: time.Millisecond})
	_, err := d.Index(ctx(t))
	require.NoError(t, err)
	require.NoError(t, srv.Register(widgets))
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			_, err := d.Resolve(ctx(t), "widgets")
			require.NoError(t, err)
		})
	}
	wg.Wait()
	reads := 0
	for _, r := range rec.requests() {
		if strings.HasPrefix(r, "/apis ") {
			reads++
		}
	}
	require.Equal(t, 2, reads, "the first read, then one read for all eight misses")
}
