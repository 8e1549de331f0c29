package main

import (
	"fmt"
	"sync"
	"time"

	"github.com/zerokube/zerokube/informer/observe"
)

// tracer prints the informer's trace events (observe.Event), one line per hop of the data
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
	lang      lang
	// deltaFIFO: the informer runs client-go's DeltaFIFO (--delta-fifo),
	// not the default in-order queue; the trace names the one it runs.
	deltaFIFO bool
	// graceful tells the handler calls of a graceful deletion's first step
	// apart; nil: the trace does not tell them apart.
	graceful *terminating
	// lessons tells the failures a lesson provoked (nil: no lessons);
	// idle and maxBackoff are the bounds the lessons set, which the
	// trace names when it tells them.
	lessons          *lessonTracker
	idle, maxBackoff time.Duration

	mu           sync.Mutex // guards the fields below
	depth        int        // deltas queued and not yet applied (see queued)
	fromSnapshot bool       // a snapshot was loaded and its batch not yet applied
	firstList    bool       // the list under way is the first: the cache was empty
	// cached are the keys the cache holds, as the store-updated events
	// said: what tells a relisted object's add from its update.
	cached map[string]bool
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

func stageColor(s observe.Stage) string {
	switch s {
	case observe.StageListPage, observe.StageReplace:
		return ansiBlue
	case observe.StageWatchOpened, observe.StageWatchEnded:
		return ansiCyan
	case observe.StageEvent:
		return ansiYellow
	case observe.StageBookmark:
		return ansiGrey
	case observe.StageDeltaQueued:
		return ansiMagenta
	case observe.StageStoreUpdated, observe.StageCacheReplaced, observe.StageResync:
		return ansiGreen
	case observe.StageHandlerCalled, observe.StageSynced:
		return ansiBold + ansiGreen
	case observe.StageSnapshotLoaded, observe.StageSnapshotSaved, observe.StageSnapshotMissing, observe.StageSnapshotSkipped:
		return ansiBold + ansiBlue
	case observe.StageCoalesced:
		return ansiMagenta
	case observe.StageAudited:
		return ansiGreen
	case observe.StageAuditDifference, observe.StageAuditFailed:
		return ansiRed
	case observe.StageRelist, observe.StageBackoff, observe.StageSkipped, observe.StageSnapshotRejected,
		observe.StageListFailed, observe.StageWatchFailed, observe.StageTransformFailed:
		return ansiRed
	}
	return ""
}

// trace prints one event, and under it the shape of the request it sent,
// if any, in the same write: no handler line comes between them.
func (t *tracer) trace(ev observe.Event) {
	now := t.now()
	out := t.line(now, ev.Stage.String(), stageColor(ev.Stage), t.describe(ev))
	if r := ev.Request; r != nil && !(ev.Stage == observe.StageWatchOpened && ev.Streaming) {
		// Each request once: a streaming list's relist and watch-opened
		// carry its one WATCH, which the relist line has shown.
		out += "\n" + t.line(now, "request", stageColor(ev.Stage), requestSaid(*r))
	}
	t.out.printf("%s", out)
}

// note prints a line of the demo's own between the informer's, under
// stage, a name no observe.Stage has.
func (t *tracer) note(stage string, said text) {
	t.out.printf("%s", t.line(t.now(), stage, ansiBold, said))
}

// line is one trace line: the time, the stage (coloured, if the output
// is) and what it says.
func (t *tracer) line(now time.Time, stage, color string, said text) string {
	stage = fmt.Sprintf("%-14s", stage)
	if t.color {
		stage = color + stage + ansiReset
	}
	return fmt.Sprintf("trace %s %s %s", now.Format("15:04:05.000"), stage, said.in(t.lang))
}

// queueName is the delta queue the informer runs, as the trace names it.
func (t *tracer) queueName() text {
	if t.deltaFIFO {
		return say(msg{en: "(DeltaFIFO: deltas grouped per key)", zh: "DeltaFIFO（按键分组的增量）"})
	}
	return say(msg{en: "(fifo.InOrder, client-go's RealFIFO: every delta in arrival order)", zh: "fifo.InOrder（即 client-go 的 RealFIFO：所有增量按到达顺序排队）"})
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
	observe.NopMetrics
	t *tracer
}

func (m depthMetrics) QueueDepth(n int) { m.t.setDepth(n) }

// traceFunc is the informer's Options.Observe.Trace: it prints the event and keeps
// the depth estimate in step.
func (t *tracer) traceFunc() func(observe.Event) {
	return func(ev observe.Event) {
		if ev.Stage == observe.StageStoreUpdated {
			t.applied()
		}
		t.trace(ev)
	}
}
