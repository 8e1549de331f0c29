package metrics

import (
	"strconv"
	"time"

	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
)

// Informer returns the observe.Metrics that records one informer's
// reflector, delta queue, snapshots, audits (it is an observe.AuditMetrics
// too) and handlers into s, every series
// labelled informer=name. Pass it as informer.Options.Observe.Metrics; give each
// informer of a process its own name (the resource, e.g. "pods", or
// "pods/node-1" for a second informer over pods).
func Informer(s Sink, name string) observe.Metrics {
	m := &informerMetrics{
		s: s, name: name,
		listOK: s.Counter(listRequests, name, "success"), listErr: s.Counter(listRequests, name, "error"),
		watchOK: s.Counter(watchRequests, name, "success"), watchErr: s.Counter(watchRequests, name, "error"),
		saveOK: s.Counter(snapshotSaves, name, "success"), saveErr: s.Counter(snapshotSaves, name, "error"),
		events:    make(map[meta.EventType]CounterSeries, len(eventTypes)),
		rv:        s.Gauge(resourceVersion, name),
		depth:     s.Gauge(deltaQueueDepth, name),
		snapBytes: s.Gauge(snapshotBytes, name),
		snapTook:  s.Histogram(snapshotSeconds, name),
	}
	for _, t := range eventTypes {
		m.events[t] = s.Counter(watchEvents, name, string(t))
	}
	return m
}

// eventTypes are the watch event types, resolved up front: an event is
// the informer's most frequent call.
var eventTypes = [...]meta.EventType{meta.Added, meta.Modified, meta.Deleted, meta.Bookmark, meta.Error}

// informerMetrics holds the series of one informer: fixed ones resolved
// up front, those with a second label (cause, type, handler, ...) on
// first use.
type informerMetrics struct {
	s    Sink
	name string

	listOK, listErr, watchOK, watchErr CounterSeries
	saveOK, saveErr                    CounterSeries
	events                             map[meta.EventType]CounterSeries // the valid types; read-only
	rv, depth, snapBytes               GaugeSeries
	snapTook                           HistogramSeries

	relists  lazy[observe.RelistCause, CounterSeries]
	skipped  lazy[string, CounterSeries] // by reason
	loads    lazy[string, CounterSeries] // by result
	audits   lazy[string, CounterSeries] // by result
	diffs    lazy[string, CounterSeries] // by kind
	handlers lazy[string, *handlerSeries]
}

// handlerSeries are the series of one handler.
type handlerSeries struct {
	depth            GaugeSeries
	lag, took        HistogramSeries
	panics, coalesce CounterSeries
}

// counter returns the counter of d for this informer and a second label
// value, from l when it was asked for before.
func counter[K comparable](m *informerMetrics, l *lazy[K, CounterSeries], d *Desc, k K, value string) CounterSeries {
	return l.get(k, func(K) CounterSeries { return m.s.Counter(d, m.name, value) })
}

func (m *informerMetrics) ListCall(err error) {
	if err != nil {
		m.listErr.Add(1)
		return
	}
	m.listOK.Add(1)
}

func (m *informerMetrics) WatchCall(err error) {
	if err != nil {
		m.watchErr.Add(1)
		return
	}
	m.watchOK.Add(1)
}

func (m *informerMetrics) Relist(c observe.RelistCause) {
	counter(m, &m.relists, relists, c, c.String()).Add(1)
}

func (m *informerMetrics) WatchEvent(t meta.EventType) {
	if c, ok := m.events[t]; ok {
		c.Add(1)
	} // watchstream rejects any other type: it never gets here
}

// ResourceVersion sets the gauge when rv is a decimal number, as
// kube-apiserver's are (etcd revisions). Resource versions are opaque by
// contract, so any other form leaves the gauge as it was.
func (m *informerMetrics) ResourceVersion(rv string) {
	if n, err := strconv.ParseUint(rv, 10, 64); err == nil {
		m.rv.Set(float64(n))
	}
}

func (m *informerMetrics) QueueDepth(n int) { m.depth.Set(float64(n)) }

func (m *informerMetrics) Skipped(reason string) {
	counter(m, &m.skipped, skipped, reason, reason).Add(1)
}

func (m *informerMetrics) SnapshotLoaded(res string) {
	counter(m, &m.loads, snapshotLoads, res, res).Add(1)
}

func (m *informerMetrics) SnapshotSaved(err error, bytes int64, took time.Duration) {
	m.snapTook.Observe(took.Seconds())
	if err != nil {
		m.saveErr.Add(1)
		return
	}
	m.saveOK.Add(1)
	m.snapBytes.Set(float64(bytes))
}

func (m *informerMetrics) Audit(result string, missing, extra, stale int) {
	counter(m, &m.audits, audits, result, result).Add(1)
	for _, d := range [...]struct {
		kind string
		n    int
	}{{"missing", missing}, {"extra", extra}, {"stale", stale}} {
		if d.n > 0 {
			counter(m, &m.diffs, auditDifferences, d.kind, d.kind).Add(float64(d.n))
		}
	}
}

func (m *informerMetrics) handler(name string) *handlerSeries {
	return m.handlers.get(name, func(h string) *handlerSeries {
		return &handlerSeries{
			depth:    m.s.Gauge(handlerQueueDepth, m.name, h),
			lag:      m.s.Histogram(handlerLag, m.name, h),
			took:     m.s.Histogram(handlerDuration, m.name, h),
			panics:   m.s.Counter(handlerPanics, m.name, h),
			coalesce: m.s.Counter(handlerCoalesced, m.name, h),
		}
	})
}

func (m *informerMetrics) HandlerQueueDepth(h string, n int) { m.handler(h).depth.Set(float64(n)) }

func (m *informerMetrics) HandlerCall(h string, lag, took time.Duration) {
	s := m.handler(h)
	s.lag.Observe(lag.Seconds())
	s.took.Observe(took.Seconds())
}

func (m *informerMetrics) HandlerPanic(h string) { m.handler(h).panics.Add(1) }
func (m *informerMetrics) Coalesced(h string)    { m.handler(h).coalesce.Add(1) }
