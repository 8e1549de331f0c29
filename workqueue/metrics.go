package workqueue

import "time"

// Metrics receives the queue's counters and gauges, for export to whatever
// metrics system the caller uses. Calls are made with the queue's lock held:
// they must be quick, must not block and must not call the queue. Embed
// [NopMetrics] to implement only some methods and stay compatible when methods
// are added. A nil Options.Metrics costs nothing: no timestamps are taken.
type Metrics interface {
	// Depth is a gauge: items queued (not processing, not waiting), after each change.
	Depth(n int)
	// Added counts adds that were not de-duplicated away.
	Added()
	// Latency observes how long an item was queued before a worker took it.
	Latency(d time.Duration)
	// WorkDuration observes how long a worker held an item (Get to Done).
	WorkDuration(d time.Duration)
	// Retry counts AddRateLimited calls.
	Retry()
}

// NopMetrics implements Metrics by doing nothing.
type NopMetrics struct{}

func (NopMetrics) Depth(int)                  {}
func (NopMetrics) Added()                     {}
func (NopMetrics) Latency(time.Duration)      {}
func (NopMetrics) WorkDuration(time.Duration) {}
func (NopMetrics) Retry()                     {}

// tracker takes the timestamps Metrics needs. Its zero value (metrics nil)
// does nothing, so a queue without metrics pays one nil check per operation.
type tracker[K comparable] struct {
	m       Metrics
	clock   Clock
	queued  map[K]time.Time // when each queued item was pushed
	started map[K]time.Time // when each processing item was handed out
}

func newTracker[K comparable](m Metrics, clock Clock) tracker[K] {
	if m == nil {
		return tracker[K]{}
	}
	return tracker[K]{m: m, clock: clock, queued: make(map[K]time.Time), started: make(map[K]time.Time)}
}

func (t *tracker[K]) added() {
	if t.m != nil {
		t.m.Added()
	}
}

func (t *tracker[K]) pushed(item K, depth int) {
	if t.m == nil {
		return
	}
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
