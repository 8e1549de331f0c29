package main

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/metrics"
	"github.com/zerokube/zerokube/metrics/metricstest"
)

// serveHealthDemo starts the demo with --serve-health and returns the URL
// it prints for what ("health" or "metrics"), once the informer has synced.
func serveHealthDemo(t *testing.T, what string, args ...string) (*running, string) {
	t.Helper()
	d := startDemo(t, append(args, "--serve-health", "127.0.0.1:0")...)
	url := waitFor(t, d.stderr, regexp.MustCompile(`demo: `+what+` at (\S+)`))[1]
	waitFor(t, d.stderr, regexp.MustCompile(`demo: synced`))
	return d, url
}

// fetch GETs url, wants 200 and returns the body and its Content-Type.
func fetch(t *testing.T, url string) (body, contentType string) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", b)
	return string(b), resp.Header.Get("Content-Type")
}

// TestServeHealthAnswersHealthzAsJSON: --serve-health serves the
// informer's health at /healthz, 200 once it has synced.
func TestServeHealthAnswersHealthzAsJSON(t *testing.T) {
	d, url := serveHealthDemo(t, "health", "--churn=false")
	body, typ := fetch(t, url)
	require.Equal(t, "application/json", typ)
	require.Contains(t, body, `"synced":true`)
	require.Equal(t, 0, d.stop(t))
}

// TestServeHealthServesMetricsThatPromtoolAccepts: --serve-health also
// serves the informer's metrics in the text format, which promtool lints.
func TestServeHealthServesMetricsThatPromtoolAccepts(t *testing.T) {
	d, url := serveHealthDemo(t, "metrics", "--churn=false")
	body, typ := fetch(t, url)
	require.Equal(t, metrics.ContentType, typ)
	require.Contains(t, body, `zerokube_reflector_list_requests_total{informer="pods",result="success"} `)
	require.Contains(t, body, `zerokube_reflector_relists_total{informer="pods",cause="initial"} 1`)
	require.Contains(t, body, `zerokube_informer_synced{informer="pods"} 1`)
	metricstest.CheckMetrics(t, []byte(body))
	require.Equal(t, 0, d.stop(t))
}

// TestAPrometheusServerScrapesTheDemo: a real Prometheus server scrapes
// the demo's /metrics and answers a query with the handler calls the
// churn caused.
func TestAPrometheusServerScrapesTheDemo(t *testing.T) {
	t.Parallel() // waits on timers, not a CPU: beside the lesson presses
	d, url := serveHealthDemo(t, "metrics")
	p := metricstest.Start(t, strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/metrics"))
	got := p.Query(t, `zerokube_handler_duration_seconds_count{informer="pods",handler="print"}`,
		func(s metricstest.Sample) bool { return s.Value > 0 })
	require.Equal(t, "zerokube", got[0].Labels["job"])
	got = p.Query(t, `zerokube_reflector_resource_version{informer="pods"}`, nil)
	require.Positive(t, got[0].Value)
	got = p.Query(t, `zerokube_informer_synced{informer="pods"}`, nil)
	require.Equal(t, 1.0, got[0].Value)
	require.Equal(t, 0, d.stop(t))
}
