package metrics

import (
	"context"
	"errors"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/internal/clock/clocktest"
	"github.com/zerokube/zerokube/internal/promtest"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/workqueue"
)

// samples parses a text exposition into its sample lines, by series
// ("name{labels}") to value.
func samples(t *testing.T, r *Registry) map[string]string {
	t.Helper()
	var b strings.Builder
	require.NoError(t, r.WriteText(&b))
	out := map[string]string{}
	for line := range strings.Lines(b.String()) {
		if strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		out[line[:i]] = strings.TrimSpace(line[i+1:])
	}
	return out
}

func TestCatalogueNamesFollowPrometheusConventions(t *testing.T) {
	name := regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)
	seen := map[string]bool{}
	for _, d := range Catalogue() {
		require.Regexp(t, name, d.Name)
		require.False(t, seen[d.Name], "%s twice", d.Name)
		seen[d.Name] = true
		require.NotEmpty(t, d.Help, d.Name)
		require.NotContains(t, d.Help, "\n", d.Name)
		require.Equal(t, d.Kind == Counter, strings.HasSuffix(d.Name, "_total"), "%s: only counters end in _total", d.Name)
		require.Equal(t, d.Kind == Histogram, len(d.Buckets) > 0, "%s: buckets are a histogram's", d.Name)
		require.True(t, slices.IsSorted(d.Buckets), d.Name)
		for _, l := range d.Labels {
			require.Regexp(t, name, l, d.Name)
		}
	}
}

// Invariant 2: the names, types, label and buckets of client-go's work
// queue metrics (k8s.io/component-base/metrics/prometheus/workqueue).
func TestWorkqueueFamiliesAreClientGos(t *testing.T) {
	want := map[string]Kind{
		"workqueue_depth": Gauge, "workqueue_adds_total": Counter,
		"workqueue_queue_duration_seconds": Histogram, "workqueue_work_duration_seconds": Histogram,
		"workqueue_unfinished_work_seconds": Gauge, "workqueue_longest_running_processor_seconds": Gauge,
		"workqueue_retries_total": Counter,
	}
	got := map[string]Kind{}
	for _, d := range Catalogue() {
		if strings.HasPrefix(d.Name, "workqueue_") {
			got[d.Name] = d.Kind
			require.Equal(t, []string{"name"}, d.Labels, d.Name)
		}
	}
	require.Equal(t, want, got)
	les := make([]string, len(queueLatency.Buckets))
	for i, b := range queueLatency.Buckets {
		les[i] = formatFloat(b)
	}
	// As client_golang prints ExponentialBuckets(10e-7, 10, 10).
	require.Equal(t, []string{"1e-06", "9.999999999999999e-06", "9.999999999999999e-05",
		"0.001", "0.01", "0.1", "1", "10", "100", "1000"}, les)
}

func TestRegistryWritesTheTextFormat(t *testing.T) {
	r := NewRegistry()
	c := &Desc{Name: "x_total", Help: `a "counter"` + "\\ with\nnewline", Kind: Counter, Labels: []string{"l"}}
	g := &Desc{Name: "a_gauge", Help: "gauge", Kind: Gauge}
	h := &Desc{Name: "h_seconds", Help: "histogram", Kind: Histogram, Labels: []string{"l"}, Buckets: []float64{0.5, 1}}
	r.Counter(c, "b").Add(2)
	r.Counter(c, `q"\`+"\n").Add(1)
	r.Counter(c, "b").Add(0.5)
	r.Gauge(g).Set(-3)
	hs := r.Histogram(h, "v")
	for _, v := range []float64{0.25, 0.5, 0.75, 3} {
		hs.Observe(v)
	}
	var b strings.Builder
	require.NoError(t, r.WriteText(&b))
	require.Equal(t, `# HELP a_gauge gauge
# TYPE a_gauge gauge
a_gauge -3
# HELP h_seconds histogram
# TYPE h_seconds histogram
h_seconds_bucket{l="v",le="0.5"} 2
h_seconds_bucket{l="v",le="1"} 3
h_seconds_bucket{l="v",le="+Inf"} 4
h_seconds_sum{l="v"} 4.5
h_seconds_count{l="v"} 4
# HELP x_total a "counter"\\ with\nnewline
# TYPE x_total counter
x_total{l="b"} 2.5
x_total{l="q\"\\\n"} 1
`, b.String())
}

func TestRegistryPanicsOnALabelMismatch(t *testing.T) {
	require.PanicsWithValue(t, `metrics: workqueue_depth is a gauge with labels ["name"], asked for as a gauge with values []`,
		func() { NewRegistry().Gauge(queueDepth) })
}

func TestRegistryServesTheTextFormat(t *testing.T) {
	r := NewRegistry()
	r.Gauge(queueDepth, "q").Set(1)
	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	require.Equal(t, ContentType, rec.Header().Get("Content-Type"))
	require.Contains(t, rec.Body.String(), "workqueue_depth{name=\"q\"} 1\n")
}

// record makes every Metrics call once or more, so that every family of
// the catalogue has a series.
func record(s Sink, clock *clocktest.Fake) {
	m := Informer(s, "pods")
	m.ListCall(nil)
	m.ListCall(nil)
	m.ListCall(errors.New("boom"))
	m.WatchCall(nil)
	m.Relist(informer.CauseInitial)
	m.Relist(informer.CauseWatchGone)
	m.Relist(informer.CauseWatchGone)
	m.WatchEvent(meta.Added)
	m.WatchEvent(meta.Bookmark)
	m.ResourceVersion("12345")
	m.ResourceVersion("not-a-number") // kept: 12345
	m.QueueDepth(7)
	m.HandlerQueueDepth("print", 3)
	m.HandlerCall("print", 2*time.Millisecond, 30*time.Microsecond)
	m.HandlerPanic("print")
	m.Coalesced("print")
	m.Skipped("undecodable")
	m.SnapshotLoaded("resumed")
	m.SnapshotSaved(nil, 4096, 20*time.Millisecond)
	m.SnapshotSaved(errors.New("disk full"), 1, time.Millisecond)

	q := workqueue.New(workqueue.Options[string]{Clock: clock, Metrics: Workqueue(s, "pods")})
	q.Add("a")
	q.Add("b")
	clock.Advance(time.Second)
	_, _ = q.Get(contextBackground())
	clock.Advance(2 * time.Second)
	q.AddRateLimited("c")
}

func TestInformerAndWorkqueueRecordEveryCall(t *testing.T) {
	r := NewRegistry()
	record(r, clocktest.New())
	got := samples(t, r)
	for series, value := range map[string]string{
		`zerokube_reflector_list_requests_total{informer="pods",result="success"}`:        "2",
		`zerokube_reflector_list_requests_total{informer="pods",result="error"}`:          "1",
		`zerokube_reflector_watch_requests_total{informer="pods",result="success"}`:       "1",
		`zerokube_reflector_relists_total{informer="pods",cause="watch-gone"}`:            "2",
		`zerokube_reflector_watch_events_total{informer="pods",type="ADDED"}`:             "1",
		`zerokube_reflector_watch_events_total{informer="pods",type="MODIFIED"}`:          "0",
		`zerokube_reflector_resource_version{informer="pods"}`:                            "12345",
		`zerokube_informer_queue_depth{informer="pods"}`:                                  "7",
		`zerokube_informer_skipped_objects_total{informer="pods",reason="undecodable"}`:   "1",
		`zerokube_informer_snapshot_loads_total{informer="pods",result="resumed"}`:        "1",
		`zerokube_informer_snapshot_saves_total{informer="pods",result="error"}`:          "1",
		`zerokube_informer_snapshot_bytes{informer="pods"}`:                               "4096",
		`zerokube_informer_snapshot_save_duration_seconds_count{informer="pods"}`:         "2",
		`zerokube_handler_queue_depth{informer="pods",handler="print"}`:                   "3",
		`zerokube_handler_lag_seconds_bucket{informer="pods",handler="print",le="0.001"}`: "0",
		`zerokube_handler_lag_seconds_bucket{informer="pods",handler="print",le="0.01"}`:  "1",
		`zerokube_handler_duration_seconds_sum{informer="pods",handler="print"}`:          "3e-05",
		`zerokube_handler_panics_total{informer="pods",handler="print"}`:                  "1",
		`zerokube_handler_coalesced_total{informer="pods",handler="print"}`:               "1",
		`workqueue_adds_total{name="pods"}`:                                               "2",
		`workqueue_depth{name="pods"}`:                                                    "1",
		`workqueue_retries_total{name="pods"}`:                                            "1",
		`workqueue_queue_duration_seconds_sum{name="pods"}`:                               "1",
		`workqueue_unfinished_work_seconds{name="pods"}`:                                  "2",
		`workqueue_longest_running_processor_seconds{name="pods"}`:                        "2",
	} {
		require.Equal(t, value, got[series], series)
	}
}

// Invariant 4: the in-progress gauges are read from the queue when the
// registry is written, on the queue's clock.
func TestWorkqueueInFlightGaugesAreReadAtScrape(t *testing.T) {
	r, clock := NewRegistry(), clocktest.New()
	q := workqueue.New(workqueue.Options[string]{Clock: clock, Metrics: Workqueue(r, "q")})
	q.Add("a")
	q.Add("b")
	_, _ = q.Get(contextBackground())
	clock.Advance(3 * time.Second)
	_, _ = q.Get(contextBackground())
	clock.Advance(time.Second)
	got := samples(t, r)
	require.Equal(t, "5", got[`workqueue_unfinished_work_seconds{name="q"}`])
	require.Equal(t, "4", got[`workqueue_longest_running_processor_seconds{name="q"}`])
	q.Done("a")
	q.Done("b")
	got = samples(t, r)
	require.Equal(t, "0", got[`workqueue_unfinished_work_seconds{name="q"}`])
}

// Invariant 3: promtool accepts the exposition with every family in it.
func TestPromtoolAcceptsTheExposition(t *testing.T) {
	r := NewRegistry()
	record(r, clocktest.New())
	var b strings.Builder
	require.NoError(t, r.WriteText(&b))
	for _, d := range Catalogue() {
		require.Contains(t, b.String(), "# TYPE "+d.Name+" ", "every family has a series")
	}
	promtest.CheckMetrics(t, []byte(b.String()))
}

func contextBackground() context.Context { return context.Background() }
