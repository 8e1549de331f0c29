package informer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/snapshot"
)

// observers is how the informer says what happened: each happening is one
// emit of one observe.Event, and the three who listen hear it from there:
// Options.Observe.Trace as it is, Options.Observe.Metrics as the counter it moves (count),
// and the log as the line it deserves, if any (logLine). A new happening
// is one call site; it cannot be traced but not counted, or logged with
// words the trace does not have. Only the gauges (resourceVersion, queue
// depths) are set directly: they sample a state, they do not happen.
//
// It holds no state of its own, so each stage keeps a copy made from the
// same Options.
type observers struct {
	name    string
	trace   func(observe.Event) // nil: nobody traces
	metrics observe.Metrics
	counted bool // metrics is not NopMetrics
	log     *slog.Logger
}

func observersOf[P meta.Object](o Options[P]) observers {
	return observers{name: o.Name, trace: o.Observe.Trace, metrics: o.Observe.Metrics, counted: !isNop(o.Observe.Metrics), log: o.Observe.Logger}
}

// isNop reports whether m is exactly observe.NopMetrics, so the informer may skip
// measuring what nobody records. A type that embeds NopMetrics is not: it
// may implement HandlerCall itself.
func isNop(m observe.Metrics) bool {
	switch m.(type) {
	case observe.NopMetrics, *observe.NopMetrics:
		return true
	}
	return false
}

// emit tells every observer of e, synchronously on the caller's goroutine.
func (o observers) emit(e observe.Event) {
	if o.trace != nil {
		o.trace(e)
	}
	if o.counted {
		count(o.metrics, e)
	}
	o.logLine(e)
}

// tracing reports whether anyone reads what only the trace shows (an
// event's key, the delta queued): computing it for nobody costs an
// allocation per watch event.
func (o observers) tracing() bool { return o.trace != nil }

// timed reports whether anyone reads a handler call's lag and duration:
// reading the clock twice per call is a measurable share of a fast
// handler's cost.
func (o observers) timed() bool { return o.trace != nil || o.counted }

// count is the metrics observer: the counter each happening moves.
func count(m observe.Metrics, e observe.Event) {
	switch e.Stage {
	case observe.StageListPage:
		m.ListCall(nil)
	case observe.StageListFailed:
		m.ListCall(e.Err)
	case observe.StageWatchOpened:
		m.WatchCall(nil)
	case observe.StageWatchFailed:
		m.WatchCall(e.Err)
	case observe.StageRelist:
		m.Relist(e.Cause)
	case observe.StageEvent:
		m.WatchEvent(e.EventType)
	case observe.StageBookmark:
		m.WatchEvent(meta.Bookmark)
	case observe.StageHandlerCalled:
		if e.Err != nil {
			m.HandlerPanic(e.Handler)
		}
		m.HandlerCall(e.Handler, e.Lag, e.Duration)
	case observe.StageCoalesced:
		m.Coalesced(e.Handler)
	case observe.StageSkipped:
		m.Skipped(skipReason(e.Err))
	case observe.StageSnapshotLoaded:
		m.SnapshotLoaded("resumed")
	case observe.StageSnapshotMissing:
		m.SnapshotLoaded("none")
	case observe.StageSnapshotRejected:
		m.SnapshotLoaded(rejectReason(e.Err))
	case observe.StageSnapshotSaved:
		m.SnapshotSaved(e.Err, e.Bytes, e.Duration)
	case observe.StageAudited, observe.StageAuditFailed:
		if am, ok := m.(observe.AuditMetrics); ok {
			countAudit(am, e)
		}
	}
}

// countAudit is the Audit counter of an audited or audit-failed event.
func countAudit(m observe.AuditMetrics, e observe.Event) {
	var d *AuditDifference
	switch {
	case e.Stage == observe.StageAudited && errors.As(e.Err, &d):
		m.Audit("differ", d.Missing, d.Extra, d.Stale)
	case e.Stage == observe.StageAudited:
		m.Audit("in-step", 0, 0, 0)
	case isGone(e.Err):
		m.Audit("too-old", 0, 0, 0)
	default:
		m.Audit("error", 0, 0, 0)
	}
}

// skipReason is the Skipped counter's label for an object dropped with
// err: one that does not fit the type (SkipUndecodable), or one of
// another kind.
func skipReason(err error) string {
	if isUndecodable(err) {
		return "undecodable"
	}
	return "wrong-kind"
}

// rejectReason is the SnapshotLoaded label of a snapshot rejected with
// err: snapshot's reason ("corrupt", "version", ...), or "error" when the
// store itself failed.
func rejectReason(err error) string {
	if r, ok := snapshot.ReasonOf(err); ok {
		return r.String()
	}
	return "error"
}

// logLine is the log observer: the happenings an operator should read
// about without a trace, at the level they deserve. The data path's
// routine (pages, events, deltas, handler calls) is not logged.
func (o observers) logLine(e observe.Event) {
	l, name := o.log, o.name
	switch e.Stage {
	case observe.StageBackoff:
		l.Warn("informer: list/watch failed, backing off", "informer", name, "err", e.Err, "delay", e.Duration)
	case observe.StageRelist:
		o.logRelist(e)
	case observe.StageWatchEnded:
		if errors.Is(e.Err, errIdle) {
			l.Info("informer: watch idle, reopening", "informer", name, "rv", e.ResourceVersion)
		}
	case observe.StageWatchFailed:
		if errors.Is(e.Err, errStreamingRejected) {
			l.Warn("informer: streaming list unsupported, using LIST from now on", "informer", name, "err", e.Err)
		}
	case observe.StageEvent:
		switch e.EventType {
		case meta.Added, meta.Modified, meta.Deleted, meta.Error:
		default:
			l.Error("informer: unknown watch event type", "informer", name, "type", e.EventType)
		}
	case observe.StageSkipped:
		if isUndecodable(e.Err) {
			l.Error("informer: skipping an object that does not fit the type (Options.Decode.SkipUndecodable)",
				"informer", name, "key", e.Key, "err", e.Err)
			return
		}
		l.Error("informer: skipping object of the wrong kind", "informer", name, "err", e.Err)
	case observe.StageTransformFailed:
		l.Error("informer: transform failed; keeping the object as received", "informer", name, "key", e.Key, "err", e.Err)
	case observe.StageHandlerCalled:
		if e.Err != nil {
			l.Error("informer: handler panicked", "handler", e.Handler, "key", e.Key, "panic", e.Err)
		}
	case observe.StageSnapshotMissing:
		l.Info("informer: no snapshot saved, listing", "informer", name)
	case observe.StageSnapshotRejected:
		l.Warn("informer: snapshot rejected, listing instead", "informer", name, "reason", rejectReason(e.Err), "err", e.Err)
	case observe.StageSnapshotLoaded:
		l.Info("informer: resumed from snapshot", "informer", name, "rv", e.ResourceVersion, "objects", e.Items)
	case observe.StageSnapshotSaved:
		if e.Err != nil && !errors.Is(e.Err, context.Canceled) {
			l.Warn("informer: saving a snapshot failed", "informer", name, "rv", e.ResourceVersion, "err", e.Err)
			return
		}
		if e.Err != nil {
			return // the informer is stopping
		}
		l.Debug("informer: snapshot saved", "informer", name, "rv", e.ResourceVersion, "objects", e.Items,
			"bytes", e.Bytes, "took", e.Duration)
	case observe.StageSnapshotSkipped:
		l.Info("informer: no snapshot at stop", "informer", name, "err", e.Err)
	case observe.StageAudited:
		if e.Err != nil {
			l.Warn("informer: the cache audit found the cache different from the server", "informer", name,
				"rv", e.ResourceVersion, "err", e.Err)
			return
		}
		l.Debug("informer: the cache audit found the cache in step", "informer", name, "rv", e.ResourceVersion,
			"objects", e.Items, "took", e.Duration)
	case observe.StageAuditFailed:
		if isGone(e.Err) {
			l.Info("informer: no cache audit this period: the server serves no exact list at the cache's resourceVersion any more (410)",
				"informer", name, "rv", e.ResourceVersion)
			return
		}
		l.Warn("informer: the cache audit failed", "informer", name, "rv", e.ResourceVersion, "err", e.Err)
	}
}

// logRelist says why the informer lists again; the first list and the
// planned ones are routine (Info), giving up on streaming lists is not.
func (o observers) logRelist(e observe.Event) {
	l, name := o.log, o.name
	switch {
	case e.Cause == observe.CauseInitial:
	case e.Cause != observe.CauseStreamingFallback:
		l.Info("informer: relisting", "informer", name, "cause", e.Cause, "rv", e.ResourceVersion)
	case errors.Is(e.Err, errStreamingRejected):
		// Said by the watch-failed that rejected it.
	case errors.Is(e.Err, errNoStreamingEnd):
		l.Warn("informer: streaming list cut short, using LIST this once", "informer", name, "err", e.Err)
	case errors.Is(e.Err, errStreamingUnfit):
		l.Warn("informer: an object does not fit the type; using LIST, which skips it, from now on", "informer", name, "err", e.Err)
	default:
		l.Warn("informer: streaming list failed, using LIST this once", "informer", name, "err", e.Err)
	}
}

// panicked is the error a handler-called event carries for a handler that
// panicked with v.
func panicked(v any) error { return fmt.Errorf("informer: handler panicked: %v", v) }
