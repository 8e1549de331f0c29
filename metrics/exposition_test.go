package metrics_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/clock/clocktest"
	"github.com/zerokube/zerokube/metrics"
	"github.com/zerokube/zerokube/metrics/metricstest"
	"github.com/zerokube/zerokube/workqueue"
)

// samples parses a text exposition into its sample lines, by series
// ("name{labels}") to value.
func samples(t *testing.T, r *metrics.Registry) map[string]string {
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

func TestInformerAndWorkqueueRecordEveryCall(t *testing.T) {
	r := metrics.NewRegistry()
	metricstest.Exercise(r)
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
		`zerokube_informer_audits_total{informer="pods",result="differ"}`:                 "1",
		`zerokube_informer_audit_differences_total{informer="pods",kind="stale"}`:         "2",
		`zerokube_handler_queue_depth{informer="pods",handler="print"}`:                   "3",
		`zerokube_handler_lag_seconds_bucket{informer="pods",handler="print",le="0.001"}`: "0",
		`zerokube_handler_lag_seconds_bucket{informer="pods",handler="print",le="0.01"}`:  "1",
		`zerokube_handler_duration_seconds_sum{informer="pods",handler="print"}`:          "3e-05",
		`zerokube_handler_panics_total{informer="pods",handler="print"}`:                  "1",
		`zerokube_handler_coalesced_total{informer="pods",handler="print"}`:               "1",
		`zerokube_informer_synced{informer="pods"}`:                                       "1",
		`zerokube_informer_stale{informer="pods"}`:                                        "0",
		`zerokube_reflector_last_progress_timestamp_seconds{informer="pods"}`:             "1.7000000005e+09",
		`zerokube_reflector_consecutive_failures{informer="pods"}`:                        "3",
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

// Invariant 3: promtool accepts the exposition with every family in it.
func TestPromtoolAcceptsTheExposition(t *testing.T) {
	r := metrics.NewRegistry()
	metricstest.Exercise(r)
	var b strings.Builder
	require.NoError(t, r.WriteText(&b))
	for _, d := range metrics.Catalogue() {
		require.Contains(t, b.String(), "# TYPE "+d.Name+" ", "every family has a series")
	}
	metricstest.CheckMetrics(t, []byte(b.String()))
}

// Invariant 4: the in-progress gauges are read from the queue when the
// registry is written, on the queue's clock.
func TestWorkqueueInFlightGaugesAreReadAtScrape(t *testing.T) {
	r, clock := metrics.NewRegistry(), clocktest.New()
	q := workqueue.New(workqueue.Options[string]{Clock: clock, Metrics: metrics.Workqueue(r, "q")})
	q.Add("a")
	q.Add("b")
	_, _ = q.Get(context.Background())
	clock.Advance(3 * time.Second)
	_, _ = q.Get(context.Background())
	clock.Advance(time.Second)
	got := samples(t, r)
	require.Equal(t, "5", got[`workqueue_unfinished_work_seconds{name="q"}`])
	require.Equal(t, "4", got[`workqueue_longest_running_processor_seconds{name="q"}`])
	q.Done("a")
	q.Done("b")
	got = samples(t, r)
	require.Equal(t, "0", got[`workqueue_unfinished_work_seconds{name="q"}`])
}
