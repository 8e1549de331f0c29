package metricstest

import (
	"context"
	"errors"
	"time"

	"github.com/zerokube/zerokube/clock/clocktest"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/metrics"
	"github.com/zerokube/zerokube/workqueue"
)

// Exercise makes every observe.Metrics and workqueue.Metrics call through
// s (informer and queue both named "pods"), so that every family of
// metrics.Catalogue has a series with known values. The queue runs on a
// fake clock, so its in-progress gauges read 2 (seconds) at any scrape.
// The same calls into two sinks must expose the same families.
func Exercise(s metrics.Sink) {
	m := metrics.Informer(s, "pods")
	m.ListCall(nil)
	m.ListCall(nil)
	m.ListCall(errors.New("boom"))
	m.WatchCall(nil)
	m.Relist(observe.CauseInitial)
	m.Relist(observe.CauseWatchGone)
	m.Relist(observe.CauseWatchGone)
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
	a := m.(observe.AuditMetrics)
	a.Audit("in-step", 0, 0, 0)
	a.Audit("differ", 1, 0, 2)
	metrics.Health(s, "pods", health{Synced: true, LastProgress: time.Unix(1700000000, 5e8),
		Failure: &informer.SyncError{Reason: observe.FailureServer, Attempts: 3}})

	clock := clocktest.New()
	q := workqueue.New(workqueue.Options[string]{Clock: clock, Metrics: metrics.Workqueue(s, "pods")})
	q.Add("a")
	q.Add("b")
	clock.Advance(time.Second)
	_, _ = q.Get(context.Background()) // "a" is queued: no wait
	clock.Advance(2 * time.Second)
	q.AddRateLimited("c")
}

// health is an informer.HealthReporter of a fixed Health.
type health informer.Health

func (h health) Health() informer.Health { return informer.Health(h) }
