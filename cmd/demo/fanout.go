package main

import (
	"time"

	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
)

// fanOutTrace gives every consumer (--trace, the live page) each event,
// so both show the same stream: nil when there are none, to keep the
// informer's tracing off.
func fanOutTrace(fns []func(observe.Event)) func(observe.Event) {
	switch len(fns) {
	case 0:
		return nil
	case 1:
		return fns[0]
	}
	return func(ev observe.Event) {
		for _, fn := range fns {
			fn(ev)
		}
	}
}

// fanOutMetrics does the same for Metrics; nil keeps the informer's default.
func fanOutMetrics(ms []observe.Metrics) observe.Metrics {
	switch len(ms) {
	case 0:
		return nil
	case 1:
		return ms[0]
	}
	return multiMetrics(ms)
}

// multiMetrics hands every call to each of its Metrics in turn.
type multiMetrics []observe.Metrics

func (m multiMetrics) each(fn func(observe.Metrics)) {
	for _, x := range m {
		fn(x)
	}
}

func (m multiMetrics) ListCall(err error)  { m.each(func(x observe.Metrics) { x.ListCall(err) }) }
func (m multiMetrics) WatchCall(err error) { m.each(func(x observe.Metrics) { x.WatchCall(err) }) }
func (m multiMetrics) Relist(c observe.RelistCause) {
	m.each(func(x observe.Metrics) { x.Relist(c) })
}
func (m multiMetrics) WatchEvent(t meta.EventType) {
	m.each(func(x observe.Metrics) { x.WatchEvent(t) })
}
func (m multiMetrics) ResourceVersion(rv string) {
	m.each(func(x observe.Metrics) { x.ResourceVersion(rv) })
}
func (m multiMetrics) QueueDepth(n int) { m.each(func(x observe.Metrics) { x.QueueDepth(n) }) }
func (m multiMetrics) HandlerQueueDepth(h string, n int) {
	m.each(func(x observe.Metrics) { x.HandlerQueueDepth(h, n) })
}
func (m multiMetrics) HandlerCall(h string, lag, took time.Duration) {
	m.each(func(x observe.Metrics) { x.HandlerCall(h, lag, took) })
}
func (m multiMetrics) HandlerPanic(h string) { m.each(func(x observe.Metrics) { x.HandlerPanic(h) }) }
func (m multiMetrics) Coalesced(h string)    { m.each(func(x observe.Metrics) { x.Coalesced(h) }) }
func (m multiMetrics) Skipped(reason string) { m.each(func(x observe.Metrics) { x.Skipped(reason) }) }
func (m multiMetrics) SnapshotLoaded(r string) {
	m.each(func(x observe.Metrics) { x.SnapshotLoaded(r) })
}
func (m multiMetrics) SnapshotSaved(err error, n int64, took time.Duration) {
	m.each(func(x observe.Metrics) { x.SnapshotSaved(err, n, took) })
}

// Audit hands the cache audit's counts to each Metrics that counts them
// (observe.AuditMetrics is optional): with --ui and --serve-health both
// on, /metrics would otherwise never count an audit.
func (m multiMetrics) Audit(result string, missing, extra, stale int) {
	m.each(func(x observe.Metrics) {
		if a, ok := x.(observe.AuditMetrics); ok {
			a.Audit(result, missing, extra, stale)
		}
	})
}

// compile-time check: the informer finds the audit's counts on a fan-out.
var _ observe.AuditMetrics = multiMetrics{}
