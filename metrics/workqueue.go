package metrics

import (
	"time"

	"github.com/zerokube/zerokube/workqueue"
)

// Workqueue returns the workqueue.Metrics that records one work queue
// into s under client-go's names (workqueue_depth, workqueue_adds_total,
// ...), every series labelled name=name as client-go labels them. Pass it
// as workqueue.Options.Metrics; give each queue of a process its own name.
func Workqueue(s Sink, name string) workqueue.Metrics {
	return &queueMetrics{
		s: s, name: name,
		depth:   s.Gauge(queueDepth, name),
		adds:    s.Counter(queueAdds, name),
		latency: s.Histogram(queueLatency, name),
		work:    s.Histogram(queueWork, name),
		retries: s.Counter(queueRetries, name),
	}
}

// queueMetrics holds the series of one work queue.
type queueMetrics struct {
	s             Sink
	name          string
	depth         GaugeSeries
	adds, retries CounterSeries
	latency, work HistogramSeries
}

func (m *queueMetrics) Depth(n int)                  { m.depth.Set(float64(n)) }
func (m *queueMetrics) Added()                       { m.adds.Add(1) }
func (m *queueMetrics) Latency(d time.Duration)      { m.latency.Observe(d.Seconds()) }
func (m *queueMetrics) WorkDuration(d time.Duration) { m.work.Observe(d.Seconds()) }
func (m *queueMetrics) Retry()                       { m.retries.Add(1) }

// InFlight makes the two in-progress gauges read the queue at scrape time.
func (m *queueMetrics) InFlight(report func() (total, longest time.Duration)) {
	m.s.GaugeFunc(queueUnfinished, func() float64 {
		total, _ := report()
		return total.Seconds()
	}, m.name)
	m.s.GaugeFunc(queueLongest, func() float64 {
		_, longest := report()
		return longest.Seconds()
	}, m.name)
}
