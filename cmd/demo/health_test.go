package main

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/internal/promtest"
	"github.com/zerokube/zerokube/metrics"
)

// TestServeHealthAnswersHealthzAsJSON: --serve-health serves the
// informer's health at /healthz, 200 once it has synced.
func TestServeHealthAnswersHealthzAsJSON(t *testing.T) {
	d := startDemo(t, "--churn=false", "--serve-health", "127.0.0.1:0")
	url := waitFor(t, d.stderr, regexp.MustCompile(`demo: health at (\S+)`))[1]
	waitFor(t, d.stderr, regexp.MustCompile(`demo: synced`))
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
	require.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	require.Contains(t, string(body), `"synced":true`)
	require.Equal(t, 0, d.stop(t))
}

// metricsURL starts the demo with --serve-health and returns its /metrics
// URL once the informer has synced.
func metricsURL(t *testing.T, args ...string) (*running, string) {
	t.Helper()
	d := startDemo(t, append(args, "--serve-health", "127.0.0.1:0")...)
	url := waitFor(t, d.stderr, regexp.MustCompile(`demo: metrics at (\S+)`))[1]
	waitFor(t, d.stderr, regexp.MustCompile(`demo: synced`))
	return d, url
}

// TestServeHealthServesMetricsThatPromtoolAccepts: --serve-health also
// serves the informer's metrics in the text format, which promtool lints.
func TestServeHealthServesMetricsThatPromtoolAccepts(t *testing.T) {
	d, url := metricsURL(t, "--churn=false")
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
	require.Equal(t, metrics.ContentType, resp.Header.Get("Content-Type"))
	require.Contains(t, string(body), `zerokube_reflector_list_requests_total{informer="pods",result="success"} `)
	require.Contains(t, string(body), `zerokube_reflector_relists_total{informer="pods",cause="initial"} 1`)
	promtest.CheckMetrics(t, body)
	require.Equal(t, 0, d.stop(t))
}

// TestAPrometheusServerScrapesTheDemo: a real Prometheus server scrapes
// the demo's /metrics and answers a query with the handler calls the
// churn caused.
func TestAPrometheusServerScrapesTheDemo(t *testing.T) {
	d, url := metricsURL(t)
	p := promtest.Start(t, strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/metrics"))
	got := p.Query(t, `zerokube_handler_duration_seconds_count{informer="pods",handler="print"}`,
		func(s promtest.Sample) bool { return s.Value > 0 })
	require.Equal(t, "zerokube", got[0].Labels["job"])
	got = p.Query(t, `zerokube_reflector_resource_version{informer="pods"}`, nil)
	require.Positive(t, got[0].Value)
	require.Equal(t, 0, d.stop(t))
}
