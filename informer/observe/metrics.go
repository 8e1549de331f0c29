package observe

import (
	"time"

	"github.com/zerokube/zerokube/meta"
)

// Metrics receives the informer's counters and gauges. Calls come from the
// informer's goroutines and must not block. Embed [NopMetrics] to implement
// only what you export and stay compatible when methods are added.
//
// The counters are not counted where things happen: the informer emits one
// [Event] per happening, and its metrics observer turns each into the
// matching call (list-page and list-failed into ListCall, watch-opened and
// watch-failed into WatchCall, relist into Relist, event and bookmark into
// WatchEvent, handler-called into HandlerCall and HandlerPanic, coalesced,
// skipped, snapshot-loaded, -rejected, -missing and -saved; audited and
// audit-failed into AuditMetrics.Audit), so a
// happening the trace shows is counted too. The gauges (ResourceVersion,
// QueueDepth, HandlerQueueDepth) sample a state, not a happening, and are
// set where the state changes.
//
// For Prometheus, metrics.Informer (package github.com/zerokube/zerokube/metrics)
// implements it: pass metrics.Informer(reg, "pods") with the standard-library
// metrics.Registry, or sink.Informer("pods") with the prom module's Sink over
// a client_golang registry.
type Metrics interface {
	// ListCall counts LIST pages; err is nil on success.
	ListCall(err error)
	// WatchCall counts WATCH opens; err is nil on success.
	WatchCall(err error)
	// Relist counts full lists by cause.
	Relist(cause RelistCause)
	// WatchEvent counts watch events by type.
	WatchEvent(t meta.EventType)
	// ResourceVersion is a gauge: the last resourceVersion the reflector holds.
	ResourceVersion(rv string)
	// QueueDepth is a gauge: keys waiting in the delta queue.
	QueueDepth(n int)
	// HandlerQueueDepth is a gauge: notifications waiting for a handler.
	HandlerQueueDepth(handler string, n int)
	// HandlerCall observes one handler call: lag from dispatch to call, and
	// how long the call took.
	HandlerCall(handler string, lag, took time.Duration)
	// HandlerPanic counts recovered handler panics.
	HandlerPanic(handler string)
	// Coalesced counts notifications merged into a pending one because the
	// handler's queue was full.
	Coalesced(handler string)
	// Skipped counts objects dropped before the queue (wrong kind).
	Skipped(reason string)
	// SnapshotLoaded counts the start-ups with Options.Snapshot by result:
	// "resumed", "none" (nothing saved), or why a snapshot was rejected:
	// "corrupt", "truncated", "version", "identity", "decode", "error"
	// (the store failed).
	SnapshotLoaded(result string)
	// SnapshotSaved observes one snapshot written: its size in bytes and
	// how long encoding and writing took; err is nil on success.
	SnapshotSaved(err error, bytes int64, took time.Duration)
}

// AuditMetrics counts the cache audits (the informer's Options.Audit): the
// informer calls Audit on its Metrics when they implement it, for each
// audited and audit-failed event. It is an interface of its own so that
// every Metrics written before the audit keeps compiling; NopMetrics and
// metrics.Informer implement it.
type AuditMetrics interface {
	// Audit counts one audit by result: "in-step", "differ" (then
	// missing, extra and stale count the objects of each kind of
	// difference), "too-old" (410: no exact list at the cache's
	// resourceVersion) or "error".
	Audit(result string, missing, extra, stale int)
}

// NopMetrics implements Metrics by doing nothing; its methods are no-ops.
type NopMetrics struct{}

func (NopMetrics) ListCall(error)                                   {}
func (NopMetrics) WatchCall(error)                                  {}
func (NopMetrics) Relist(RelistCause)                               {}
func (NopMetrics) WatchEvent(meta.EventType)                        {}
func (NopMetrics) ResourceVersion(string)                           {}
func (NopMetrics) QueueDepth(int)                                   {}
func (NopMetrics) HandlerQueueDepth(string, int)                    {}
func (NopMetrics) HandlerCall(string, time.Duration, time.Duration) {}
func (NopMetrics) HandlerPanic(string)                              {}
func (NopMetrics) Coalesced(string)                                 {}
func (NopMetrics) Skipped(string)                                   {}
func (NopMetrics) SnapshotLoaded(string)                            {}
func (NopMetrics) SnapshotSaved(error, int64, time.Duration)        {}
func (NopMetrics) Audit(string, int, int, int)                      {}
