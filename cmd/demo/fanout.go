package main

import (
	"time"

	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/meta"
)

// fanOutTrace gives every consumer (--trace, the live page) each event,
// so both show the same stream: nil when there are none, to keep the
// informer's tracing off.
func fanOutTrace(fns []func(informer.TraceEvent)) func(informer.TraceEvent) {
	switch len(fns) {
	case 0:
		return nil
	case 1:
		return fns[0]
	}
	return func(ev informer.TraceEvent) {
		for _, fn := range fns {
			fn(ev)
		}
	}
}

// fanOutMetrics does the same for Metrics; nil keeps the informer's default.
func fanOutMetrics(ms []informer.Metrics) informer.Metrics {
	switch len(ms) {
	case 0:
		return nil
	case 1:
		return ms[0]
	}
	return multiMetrics(ms)
}

// multiMetrics hands every call to each of its Metrics in turn.
type multiMetrics []informer.Metrics

func (m multiMetrics) each(fn func(informer.Metrics)) {
	for _, x := range m {
		fn(x)
	}
}

func (m multiMetrics) ListCall(err error)  { m.each(func(x informer.Metrics) { x.ListCall(err) }) }
func (m multiMetrics) WatchCall(err error) { m.each(func(x informer.Metrics) { x.WatchCall(err) }) }
func (m multiMetrics) Relist(c informer.RelistCause) {
	m.each(func(x informer.Metrics) { x.Relist(c) })
}
func (m multiMetrics) WatchEvent(t meta.EventType) {
	m.each(func(x informer.Metrics) { x.WatchEvent(t) })
}
func (m multiMetrics) ResourceVersion(rv string) {
	m.each(func(x informer.Metrics) { x.ResourceVersion(rv) })
}
func (m multiMetrics) QueueDepth(n int) { m.each(func(x informer.Metrics) { x.QueueDepth(n) }) }
func (m multiMetrics) HandlerQueueDepth(h string, n int) {
	m.each(func(x informer.Metrics) { x.HandlerQueueDepth(h, n) })
}
func (m multiMetrics) HandlerCall(h string, lag, took time.Duration) {
	m.each(func(x informer.Metrics) { x.HandlerCall(h, lag, took) })
}
func (m multiMetrics) HandlerPanic(h string) { m.each(func(x informer.Metrics) { x.HandlerPanic(h) }) }
func (m multiMetrics) Coalesced(h string)    { m.each(func(x informer.Metrics) { x.Coalesced(h) }) }
func (m multiMetrics) Skipped(reason string) { m.each(func(x informer.Metrics) { x.Skipped(reason) }) }
func (m multiMetrics) SnapshotLoaded(r string) {
	m.each(func(x informer.Metrics) { x.SnapshotLoaded(r) })
}
func (m multiMetrics) SnapshotSaved(err error, n int64, took time.Duration) {
	m.each(func(x informer.Metrics) { x.SnapshotSaved(err, n, took) })
}
