package workqueue

import (
	"time"

	"github.com/zerokube/zerokube/clock"
)

// Metrics receives the queue's counters and gauges, for export to whatever
// metrics system the caller uses; each method matches one of client-go's
// work queue metrics (named in brackets), with the same semantics.
// Calls are made with the queue's lock held: they must be quick, must not
// block and must not call the queue. Embed [NopMetrics] to implement only
// some methods and stay compatible when methods are added. A nil
// Options.Metrics costs nothing: no timestamps are taken.
type Metrics interface {
	// Depth is a gauge, reported after each change: items waiting for a
	// Get, counting one added again while a worker holds it, not counting
	// AddAfter items whose time has not come (workqueue_depth).
	Depth(n int)
	// Added counts adds that were not de-duplicated away (workqueue_adds_total).
	Added()
	// Latency observes how long an item waited, from the add that queued it
	// to the Get that handed it out (workqueue_queue_duration_seconds).
	Latency(d time.Duration)
	// WorkDuration observes how long a worker held an item, Get to Done
	// (workqueue_work_duration_seconds).
	WorkDuration(d time.Duration)
	// Retry counts delayed adds, AddAfter and AddRateLimited, made before
	// ShutDown (workqueue_retries_total).
	Retry()
	// InFlight is called once, by New, with a function that reports the
	// work in progress when called: the sum of the times workers have held
	// the items they hold now, and the longest of those times
	// (workqueue_unfinished_work_seconds and
	// workqueue_longest_running_processor_seconds). Call report when the
	// metrics are read, as a scrape does, and never from another Metrics
	// method: it takes the queue's lock. Computing it on demand spares the
	// queue the periodic goroutine client-go runs for these two gauges.
	InFlight(report func() (total, longest time.Duration))
}

// NopMetrics implements Metrics by doing nothing.
type NopMetrics struct{}

func (NopMetrics) Depth(int)                                      {}
func (NopMetrics) Added()                                         {}
func (NopMetrics) Latency(time.Duration)                          {}
func (NopMetrics) WorkDuration(time.Duration)                     {}
func (NopMetrics) Retry()                                         {}
func (NopMetrics) InFlight(func() (total, longest time.Duration)) {}

// tracker takes the timestamps Metrics needs. Its zero value (metrics nil)
// does nothing, so a queue without metrics pays one nil check per operation.
type tracker[K comparable] struct {
	m       Metrics
	clock   clock.Clock
	queued  map[K]time.Time // when each queued item was added
	started map[K]time.Time // when each processing item was handed out
}

func newTracker[K comparable](m Metrics, clock clock.Clock) tracker[K] {
	if m == nil {
		return tracker[K]{}
	}
	return tracker[K]{m: m, clock: clock, queued: make(map[K]time.Time), started: make(map[K]time.Time)}
}

// added records an add that was not de-duplicated away; depth is the
// number of items waiting for a Get now.
func (t *tracker[K]) added(item K, depth int) {
	if t.m == nil {
		return
	}
	t.m.Added()
	t.queued[item] = t.clock.Now()
	t.m.Depth(depth)
}

func (t *tracker[K]) popped(item K, depth int) {
	if t.m == nil {
		return
	}
	now := t.clock.Now()
	t.m.Latency(now.Sub(t.queued[item]))
	delete(t.queued, item)
	t.started[item] = now
	t.m.Depth(depth)
}

func (t *tracker[K]) done(item K) {
	if t.m == nil {
		return
	}
	t.m.WorkDuration(t.clock.Now().Sub(t.started[item]))
	delete(t.started, item)
}

func (t *tracker[K]) retry() {
	if t.m != nil {
		t.m.Retry()
	}
}

// inFlight sums and maximises the times workers have held their items.
func (t *tracker[K]) inFlight() (total, longest time.Duration) {
	now := t.clock.Now()
	for _, start := range t.started {
		held := now.Sub(start)
		total += held
		longest = max(longest, held)
	}
	return total, longest
}
