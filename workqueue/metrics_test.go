package workqueue

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/internal/clock/clocktest"
)

// recordMetrics keeps everything it is told.
type recordMetrics struct {
	depths          []int
	added, retries  int
	latencies, work []time.Duration
}

func (r *recordMetrics) Depth(n int)                  { r.depths = append(r.depths, n) }
func (r *recordMetrics) Added()                       { r.added++ }
func (r *recordMetrics) Latency(d time.Duration)      { r.latencies = append(r.latencies, d) }
func (r *recordMetrics) WorkDuration(d time.Duration) { r.work = append(r.work, d) }
func (r *recordMetrics) Retry()                       { r.retries++ }

func TestMetricsObserveQueueTimeAndWorkTime(t *testing.T) {
	clock := clocktest.New()
	m := &recordMetrics{}
	q := New[string](Options[string]{Clock: clock, Metrics: m})
	q.Add("a")
	q.Add("a") // de-duplicated: not counted
	q.Add("b")
	clock.Advance(2 * time.Second)
	require.Equal(t, "a", get(t, q))
	clock.Advance(3 * time.Second)
	q.Done("a")
	q.AddRateLimited("a") // 5 ms
	clock.Advance(5 * time.Millisecond)

	require.Equal(t, 3, m.added, "a, b, and a's retry")
	require.Equal(t, 1, m.retries)
	require.Equal(t, []int{1, 2, 1, 2}, m.depths)
	require.Equal(t, []time.Duration{2 * time.Second}, m.latencies)
	require.Equal(t, []time.Duration{3 * time.Second}, m.work)
	var _ Metrics = NopMetrics{}
}
