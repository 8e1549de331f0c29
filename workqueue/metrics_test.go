package workqueue

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/clock/clocktest"
)

// recordMetrics keeps everything it is told.
type recordMetrics struct {
	depths          []int
	added, retries  int
	latencies, work []time.Duration
	inFlight        func() (total, longest time.Duration)
}

func (r *recordMetrics) Depth(n int)                  { r.depths = append(r.depths, n) }
func (r *recordMetrics) Added()                       { r.added++ }
func (r *recordMetrics) Latency(d time.Duration)      { r.latencies = append(r.latencies, d) }
func (r *recordMetrics) WorkDuration(d time.Duration) { r.work = append(r.work, d) }
func (r *recordMetrics) Retry()                       { r.retries++ }
func (r *recordMetrics) InFlight(report func() (total, longest time.Duration)) {
	r.inFlight = report
}

func newMetered(t *testing.T) (*Queue[string], *recordMetrics, *clocktest.Fake) {
	t.Helper()
	clock := clocktest.New()
	m := &recordMetrics{}
	return New[string](Options[string]{Clock: clock, Metrics: m}), m, clock
}

func TestMetricsObserveQueueTimeAndWorkTime(t *testing.T) {
	q, m, clock := newMetered(t)
	q.Add("a")
	q.Add("a") // de-duplicated: not counted
	q.Add("b")
	advance(t, clock, 2*time.Second)
	require.Equal(t, "a", get(t, q))
	advance(t, clock, 3*time.Second)
	q.Done("a")
	q.AddRateLimited("a") // 5 ms
	advance(t, clock, 5*time.Millisecond)

	require.Equal(t, 3, m.added, "a, b, and a's retry")
	require.Equal(t, 1, m.retries)
	require.Equal(t, []int{1, 2, 1, 2}, m.depths)
	require.Equal(t, []time.Duration{2 * time.Second}, m.latencies)
	require.Equal(t, []time.Duration{3 * time.Second}, m.work)
	var _ Metrics = NopMetrics{}
}

// As client-go's workqueue_depth does, depth counts an item added again
// while a worker holds it, and its wait starts at that add, not at Done.
func TestMetricsDepthAndLatencyCountAnItemAddedWhileHeld(t *testing.T) {
	q, m, clock := newMetered(t)
	q.Add("a")
	require.Equal(t, "a", get(t, q))
	q.Add("a") // held: queued again on Done
	advance(t, clock, 4*time.Second)
	q.Done("a")
	advance(t, clock, time.Second)
	require.Equal(t, "a", get(t, q))

	require.Equal(t, []int{1, 0, 1, 0}, m.depths, "the re-add counts while a is held")
	require.Equal(t, []time.Duration{0, 5 * time.Second}, m.latencies, "the second wait starts at the re-add")
}

// As client-go's workqueue_retries_total does, every delayed add counts,
// AddAfter as well as AddRateLimited, until ShutDown.
func TestMetricsRetryCountsDelayedAddsBeforeShutDown(t *testing.T) {
	q, m, _ := newMetered(t)
	q.AddAfter("a", time.Second)
	q.AddAfter("b", 0)
	q.AddRateLimited("c")
	require.Equal(t, 3, m.retries)
	q.ShutDown()
	q.AddAfter("d", time.Second)
	q.AddRateLimited("e")
	require.Equal(t, 3, m.retries, "adds after ShutDown are ignored and not counted")
}

func TestMetricsInFlightReportsTheSumAndTheLongestHold(t *testing.T) {
	q, m, clock := newMetered(t)
	require.NotNil(t, m.inFlight, "New hands its report to Metrics.InFlight")
	total, longest := m.inFlight()
	require.Zero(t, total)
	require.Zero(t, longest)

	q.Add("a")
	q.Add("b")
	require.Equal(t, "a", get(t, q))
	advance(t, clock, 3*time.Second)
	require.Equal(t, "b", get(t, q))
	advance(t, clock, time.Second)
	total, longest = m.inFlight()
	require.Equal(t, 5*time.Second, total, "a held 4s, b 1s")
	require.Equal(t, 4*time.Second, longest)

	q.Done("a")
	total, longest = m.inFlight()
	require.Equal(t, time.Second, total)
	require.Equal(t, time.Second, longest)
}
