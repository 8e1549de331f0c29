package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/zerokube/zerokube/informer"
)

// tracer prints the informer's TraceEvents, one line per hop of the data
// path, for --trace. Events arrive synchronously on the goroutine of each
// stage (reflector, processing loop, handler), so printing keeps their
// order within a stage and the lineWriter keeps lines whole.
type tracer struct {
	out   *lineWriter
	color bool
	now   func() time.Time
	// websocket: the informer watches over a websocket (--websocket); the
	// trace says so, since the events look the same either way.
	websocket bool

	mu    sync.Mutex // guards depth
	depth int        // deltas queued and not yet applied (see queued)
}

// ANSI colours by stage: list in blue, watch in cyan, events yellow,
// queue magenta, store and handlers green, trouble red.
const (
	ansiReset   = "\x1b[0m"
	ansiBold    = "\x1b[1m"
	ansiRed     = "\x1b[31m"
	ansiGreen   = "\x1b[32m"
	ansiYellow  = "\x1b[33m"
	ansiBlue    = "\x1b[34m"
	ansiMagenta = "\x1b[35m"
	ansiCyan    = "\x1b[36m"
	ansiGrey    = "\x1b[90m"
)

func stageColor(s informer.Stage) string {
	switch s {
	case informer.StageListPage, informer.StageReplace:
		return ansiBlue
	case informer.StageWatchOpened, informer.StageWatchEnded:
		return ansiCyan
	case informer.StageEvent:
		return ansiYellow
	case informer.StageBookmark:
		return ansiGrey
	case informer.StageDeltaQueued:
		return ansiMagenta
	case informer.StageStoreUpdated, informer.StageCacheReplaced, informer.StageResync:
		return ansiGreen
	case informer.StageHandlerCalled, informer.StageSynced:
		return ansiBold + ansiGreen
	case informer.StageSnapshotLoaded, informer.StageSnapshotSaved:
		return ansiBold + ansiBlue
	case informer.StageRelist, informer.StageBackoff, informer.StageSkipped, informer.StageSnapshotRejected:
		return ansiRed
	}
	return ""
}

// trace prints one event. It is the informer's Options.Trace.
func (t *tracer) trace(ev informer.TraceEvent) {
	detail := t.describe(ev)
	stage := fmt.Sprintf("%-14s", ev.Stage)
	if t.color {
		stage = stageColor(ev.Stage) + stage + ansiReset
	}
	t.out.printf("trace %s %s %s", t.now().Format("15:04:05.000"), stage, detail)
}

// describe says what happened at ev's stage, in the words of doc.go.
func (t *tracer) describe(ev informer.TraceEvent) string {
	switch ev.Stage {
	case informer.StageListPage:
		cont := "no continue token: last page"
		if ev.More {
			cont = "continue token present: more pages follow"
		}
		return fmt.Sprintf("LIST page %d: %d items at resourceVersion %s, %s", ev.Page, ev.Items, ev.ResourceVersion, cont)
	case informer.StageReplace:
		return fmt.Sprintf("Replace(%d items, resourceVersion %s) into the delta queue (depth ≈%d); objects missing from it become tombstones",
			ev.Items, ev.ResourceVersion, t.queued(ev.Items))
	case informer.StageWatchOpened:
		if ev.Streaming {
			return fmt.Sprintf("WATCH opened as a streaming list (sendInitialEvents) from resourceVersion %q%s", ev.ResourceVersion, t.wire())
		}
		return fmt.Sprintf("WATCH opened from resourceVersion %s%s", ev.ResourceVersion, t.wire())
	case informer.StageEvent:
		return fmt.Sprintf("event %s %s at resourceVersion %s", ev.EventType, ev.Key, ev.ResourceVersion)
	case informer.StageBookmark:
		if ev.Op == informer.OpInitialEventsEnd {
			return fmt.Sprintf("BOOKMARK marked initial-events-end: the streaming list is complete at resourceVersion %s; it becomes one Replace", ev.ResourceVersion)
		}
		return fmt.Sprintf("BOOKMARK: resourceVersion is now %s (nothing queued)", ev.ResourceVersion)
	case informer.StageWatchEnded:
		return watchEnded(ev)
	case informer.StageDeltaQueued:
		return fmt.Sprintf("delta %s %s queued (depth ≈%d)", ev.Op, ev.Key, t.queued(1))
	case informer.StageStoreUpdated:
		return storeUpdated(ev)
	case informer.StageCacheReplaced:
		return fmt.Sprintf("cache replaced by the relist in one step: %d objects (readers saw the old list until now, never a mix)", ev.Items)
	case informer.StageResync:
		return fmt.Sprintf("resync due for handler(s) %s: each of the %d cached objects is re-delivered as OnUpdate(obj, obj), no request to the server", ev.Handler, ev.Items)
	case informer.StageHandlerCalled:
		if ev.Op == informer.OpSync {
			return fmt.Sprintf("handler %q called: update %s from a resync, old == new (took %v)", ev.Handler, ev.Key, ev.Duration.Round(time.Microsecond))
		}
		return fmt.Sprintf("handler %q called: %s %s (took %v)", ev.Handler, ev.Op, ev.Key, ev.Duration.Round(time.Microsecond))
	case informer.StageRelist:
		if ev.Cause == informer.CauseSnapshotExpired {
			return fmt.Sprintf("relist (cause: %s): the snapshot's resourceVersion %s has left the server's history (410); "+
				"this list reconciles the cache: deletes become tombstones, changes updates, unchanged objects nothing", ev.Cause, ev.ResourceVersion)
		}
		return fmt.Sprintf("relist (cause: %s) from resourceVersion %q", ev.Cause, ev.ResourceVersion)
	case informer.StageBackoff:
		return fmt.Sprintf("backing off %v after: %s", ev.Duration.Round(time.Millisecond), errText(ev.Err))
	case informer.StageSynced:
		return fmt.Sprintf("synced: %d objects in the cache at resourceVersion %s", ev.Items, ev.ResourceVersion)
	case informer.StageSkipped:
		return fmt.Sprintf("skipped %s: %s", ev.Key, errText(ev.Err))
	}
	if s, ok := describeSnapshot(ev); ok {
		return s
	}
	return fmt.Sprintf("%+v", ev)
}

// storeUpdated explains what the processing stage did with one delta.
func storeUpdated(ev informer.TraceEvent) string {
	switch ev.Op {
	case informer.OpSnapshot:
		return fmt.Sprintf("store %s from the snapshot, as it was at resourceVersion %s: handlers hear an initial add", ev.Key, ev.ResourceVersion)
	case informer.OpReplace:
		return fmt.Sprintf("store %s from the relist at resourceVersion %s: handlers hear add or update", ev.Key, ev.ResourceVersion)
	case informer.OpUnchanged:
		return fmt.Sprintf("store %s unchanged by the relist (same resourceVersion %s): not news, only handlers due a resync hear of it", ev.Key, ev.ResourceVersion)
	case informer.OpTombstone:
		return fmt.Sprintf("store delete %s: the relist no longer has it, deleted while nobody watched (finalStateUnknown)", ev.Key)
	case informer.OpSync:
		return fmt.Sprintf("store %s resync: the cached object, unchanged, goes to the handlers due a resync", ev.Key)
	}
	return fmt.Sprintf("store %s %s (cache updated before any handler hears of it)", ev.Op, ev.Key)
}

// wire says how the watch travels: the events read the same either way.
func (t *tracer) wire() string {
	if t.websocket {
		return " over a websocket (--websocket: one JSON event per message)"
	}
	return " over chunked HTTP (one JSON event per line)"
}

func watchEnded(ev informer.TraceEvent) string {
	if errors.Is(ev.Err, context.Canceled) {
		return fmt.Sprintf("WATCH stopped after %d events: the informer is shutting down (Ctrl-C), no re-watch", ev.Items)
	}
	if ev.Err == nil || errors.Is(ev.Err, io.EOF) {
		return fmt.Sprintf("WATCH closed cleanly by the server after %d events; re-watching from resourceVersion %s", ev.Items, ev.ResourceVersion)
	}
	return fmt.Sprintf("WATCH ended after %d events: %s", ev.Items, errText(ev.Err))
}

func errText(err error) string {
	if err == nil {
		return "no error"
	}
	return oneLine(err)
}

// queued adds n deltas to the depth estimate and returns it. The informer's
// trace events carry no queue depth, so the demo keeps its own count: +1 per
// queued delta, -1 per store update, corrected by the informer's
// QueueDepth gauge after every Pop (see depthMetrics).
func (t *tracer) queued(n int) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.depth += n
	return t.depth
}

// applied counts one delta taken out of the queue by the processing loop.
func (t *tracer) applied() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.depth = max(t.depth-1, 0)
}

// setDepth takes the informer's own gauge.
func (t *tracer) setDepth(n int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.depth = n
}

// depthMetrics feeds the informer's queue-depth gauge to the tracer.
type depthMetrics struct {
	informer.NopMetrics
	t *tracer
}

func (m depthMetrics) QueueDepth(n int) { m.t.setDepth(n) }

// traceFunc is the informer's Options.Trace: it prints the event and keeps
// the depth estimate in step.
func (t *tracer) traceFunc() func(informer.TraceEvent) {
	return func(ev informer.TraceEvent) {
		if ev.Stage == informer.StageStoreUpdated {
			t.applied()
		}
		t.trace(ev)
	}
}
