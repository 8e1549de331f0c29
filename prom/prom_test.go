package prom

import (
	"bytes"
	"cmp"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/zerokube/zerokube/metrics"
	"github.com/zerokube/zerokube/metrics/metricstest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// exercised returns a registry with every family of the catalogue in it.
func exercised(t *testing.T) *prometheus.Registry {
	t.Helper()
	reg := prometheus.NewRegistry()
	s, err := New(reg)
	require.NoError(t, err)
	metricstest.Exercise(s)
	return reg
}

// text renders families in the text format, each normalised so that two
// sources of the same data compare equal: label pairs by name, series by
// labels, and no created timestamps (the text format has none).
func text(t *testing.T, fams []*dto.MetricFamily) string {
	t.Helper()
	slices.SortFunc(fams, func(a, b *dto.MetricFamily) int { return cmp.Compare(a.GetName(), b.GetName()) })
	var b bytes.Buffer
	for _, f := range fams {
		for _, m := range f.Metric {
			slices.SortFunc(m.Label, func(a, b *dto.LabelPair) int { return cmp.Compare(a.GetName(), b.GetName()) })
			if m.Counter != nil {
				m.Counter.CreatedTimestamp = nil
			}
			if m.Histogram != nil {
				m.Histogram.CreatedTimestamp = nil
			}
		}
		slices.SortFunc(f.Metric, func(a, b *dto.Metric) int { return cmp.Compare(a.String(), b.String()) })
		_, err := expfmt.MetricFamilyToText(&b, f)
		require.NoError(t, err)
	}
	return b.String()
}

// Invariant 2: the standard-library registry and client_golang's expose
// the same families for the same calls, so the catalogue is the one
// source of both (the demo serves the first, an agent may serve the
// second).
func TestSameFamiliesAsTheStandardLibraryRegistry(t *testing.T) {
	gathered, err := exercised(t).Gather()
	require.NoError(t, err)

	std := metrics.NewRegistry()
	metricstest.Exercise(std)
	var b bytes.Buffer
	require.NoError(t, std.WriteText(&b))
	parser := expfmt.NewTextParser(model.LegacyValidation)
	parsed, err := parser.TextToMetricFamilies(&b)
	require.NoError(t, err, "client_golang's parser reads the standard-library exposition")

	require.Len(t, gathered, len(metrics.Catalogue()), "every family has a series")
	want := text(t, gathered)
	require.Equal(t, want, text(t, slices.Collect(maps.Values(parsed))))
	require.Contains(t, want, `workqueue_unfinished_work_seconds{name="pods"} 2`)
}

// Invariant 2: the buckets are client-go's, ExponentialBuckets(10e-9, 10, 10).
func TestWorkqueueBucketsAreClientGos(t *testing.T) {
	for _, d := range metrics.Catalogue() {
		if strings.HasPrefix(d.Name, "workqueue_") && d.Kind == metrics.Histogram {
			require.Equal(t, prometheus.ExponentialBuckets(10e-9, 10, 10), d.Buckets, d.Name)
		}
	}
}

// Invariant 1.
func TestNothingGoesToTheDefaultRegistry(t *testing.T) {
	exercised(t)
	fams, err := prometheus.DefaultGatherer.Gather()
	require.NoError(t, err)
	for _, f := range fams {
		require.False(t, strings.HasPrefix(f.GetName(), "workqueue_") || strings.HasPrefix(f.GetName(), "zerokube_"), f.GetName())
	}
}

func TestASecondSinkOnOneRegistryFails(t *testing.T) {
	reg := prometheus.NewRegistry()
	_, err := New(reg)
	require.NoError(t, err)
	_, err = New(reg)
	var are prometheus.AlreadyRegisteredError
	require.ErrorAs(t, err, &are)
	require.ErrorContains(t, err, "prom: register workqueue_depth")
}

// serve serves reg with promhttp on 127.0.0.1 and returns host:port.
func serve(t *testing.T, reg *prometheus.Registry) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	srv := &http.Server{Handler: mux}
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close(); <-done })
	return ln.Addr().String()
}

// Invariant 3: promtool accepts what promhttp serves.
func TestPromtoolAcceptsTheExposition(t *testing.T) {
	addr := serve(t, exercised(t))
	resp, err := http.Get("http://" + addr + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	var b bytes.Buffer
	_, err = b.ReadFrom(resp.Body)
	require.NoError(t, err)
	metricstest.CheckMetrics(t, b.Bytes())
}

// Invariant 3: a real Prometheus server scrapes the registry and answers
// queries with the values recorded, the in-progress gauge included.
func TestAPrometheusServerReadsTheMetricsBack(t *testing.T) {
	addr := serve(t, exercised(t))
	p := metricstest.Start(t, addr)
	got := p.Query(t, `zerokube_reflector_list_requests_total{informer="pods",result="success"}`, nil)
	require.Len(t, got, 1)
	require.Equal(t, 2.0, got[0].Value)
	require.Equal(t, "zerokube", got[0].Labels["job"])
	got = p.Query(t, `workqueue_longest_running_processor_seconds{name="pods"}`, nil)
	require.Equal(t, 2.0, got[0].Value)
	got = p.Query(t, `histogram_quantile(1, workqueue_queue_duration_seconds_bucket{name="pods"})`, nil)
	require.InDelta(t, 1.0, got[0].Value, 1e-9, "a waited 1s: the top of the (0.1, 1] bucket")
}
