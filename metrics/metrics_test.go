package metrics

import (
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
)

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
	// As kube-apiserver v1.37.2 prints ExponentialBuckets(10e-9, 10, 10).
	require.Equal(t, []string{"1e-08", "1e-07", "1e-06", "9.999999999999999e-06", "9.999999999999999e-05",
		"0.001", "0.01", "0.1", "1", "10"}, les)
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

// Invariant 5: the frequent calls allocate nothing once their series
// exist (the standard-library registry's series do not allocate either).
func TestHotPathsDoNotAllocate(t *testing.T) {
	r := NewRegistry()
	m := Informer(r, "pods")
	q := Workqueue(r, "pods")
	m.HandlerCall("print", time.Millisecond, time.Millisecond) // resolves the handler's series
	allocs := testing.AllocsPerRun(100, func() {
		m.WatchEvent(meta.Modified)
		m.QueueDepth(3)
		m.HandlerQueueDepth("print", 2)
		m.HandlerCall("print", time.Millisecond, time.Millisecond)
		m.ResourceVersion("12345")
		q.Added()
		q.Depth(1)
		q.Latency(time.Millisecond)
		q.WorkDuration(time.Millisecond)
	})
	require.Zero(t, allocs)
}

// Series resolved concurrently for new label values are resolved once:
// every call lands in the same series.
func TestConcurrentFirstUsesShareOneSeries(t *testing.T) {
	r := NewRegistry()
	m := Informer(r, "pods")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 100 {
				m.HandlerPanic("h" + strconv.Itoa(i%2))
				m.Relist(observe.CauseWatchGone)
			}
		})
	}
	wg.Wait()
	var b strings.Builder
	require.NoError(t, r.WriteText(&b))
	require.Contains(t, b.String(), `zerokube_handler_panics_total{informer="pods",handler="h0"} 400`)
	require.Contains(t, b.String(), `zerokube_handler_panics_total{informer="pods",handler="h1"} 400`)
	require.Contains(t, b.String(), `zerokube_reflector_relists_total{informer="pods",cause="watch-gone"} 800`)
}
