package informer

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/snapshot"
	"github.com/zerokube/zerokube/watchstream"
)

// TestOnlyTheObserversCountAndLog keeps each happening said once: outside
// observers.go no file of the package calls a counter of observe.Metrics
// or writes a log line; a happening is an emit, and the metrics and the
// log hear it from there. (The gauges sample states, not happenings; the
// factory's two lines are the factory's, not an informer's.)
func TestOnlyTheObserversCountAndLog(t *testing.T) {
	counters := map[string]bool{"ListCall": true, "WatchCall": true, "Relist": true, "WatchEvent": true,
		"HandlerCall": true, "HandlerPanic": true, "Coalesced": true, "Skipped": true,
		"SnapshotLoaded": true, "SnapshotSaved": true}
	logs := map[string]bool{"Debug": true, "Info": true, "Warn": true, "Error": true, "Log": true, "LogAttrs": true}
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || name == "observers.go" {
			continue
		}
		src, err := os.ReadFile(name)
		require.NoError(t, err)
		f, err := parser.ParseFile(fset, name, src, 0)
		require.NoError(t, err)
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			recv := strings.ToLower(exprString(sel.X))
			switch {
			case counters[sel.Sel.Name] && strings.Contains(recv, "metrics"):
				t.Errorf("%s: %s.%s counts a happening directly: emit an observe.Event instead (observers.go counts it)",
					fset.Position(call.Pos()), exprString(sel.X), sel.Sel.Name)
			case logs[sel.Sel.Name] && strings.HasSuffix(recv, "log") && name != "factory.go":
				t.Errorf("%s: %s.%s logs a happening directly: emit an observe.Event instead (observers.go logs it)",
					fset.Position(call.Pos()), exprString(sel.X), sel.Sel.Name)
			}
			return true
		})
	}
	require.Greater(t, checked, 20, "the package's files were read")
}

func exprString(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return exprString(e.X) + "." + e.Sel.Name
	}
	return ""
}

// recorder is a Metrics that writes down every counter call.
type recorder struct {
	observe.NopMetrics
	mu    sync.Mutex
	calls []string
}

func (r *recorder) add(s string) { r.mu.Lock(); r.calls = append(r.calls, s); r.mu.Unlock() }
func (r *recorder) ListCall(err error) {
	r.add("ListCall " + errWord(err))
}
func (r *recorder) WatchCall(err error)                      { r.add("WatchCall " + errWord(err)) }
func (r *recorder) Relist(c observe.RelistCause)             { r.add("Relist " + c.String()) }
func (r *recorder) WatchEvent(t meta.EventType)              { r.add("WatchEvent " + string(t)) }
func (r *recorder) HandlerCall(h string, _, _ time.Duration) { r.add("HandlerCall " + h) }
func (r *recorder) HandlerPanic(h string)                    { r.add("HandlerPanic " + h) }
func (r *recorder) Coalesced(h string)                       { r.add("Coalesced " + h) }
func (r *recorder) Skipped(reason string)                    { r.add("Skipped " + reason) }
func (r *recorder) SnapshotLoaded(result string)             { r.add("SnapshotLoaded " + result) }
func (r *recorder) SnapshotSaved(err error, _ int64, _ time.Duration) {
	r.add("SnapshotSaved " + errWord(err))
}

func errWord(err error) string {
	if err != nil {
		return "err"
	}
	return "ok"
}

// TestEachHappeningMovesItsCounterAndItsLogLine: the metrics and log
// observers, stage by stage; a stage that moves nothing says so.
func TestEachHappeningMovesItsCounterAndItsLogLine(t *testing.T) {
	boom := errors.New("boom")
	undecodable := &watchstream.DecodeError{Problem: watchstream.Undecodable, Err: boom}
	corrupt := &snapshot.Error{Reason: snapshot.ReasonCorrupt}
	for _, tc := range []struct {
		ev    observe.Event
		count string // "" for none
		log   string // the level and message, "" for none
	}{
		{observe.Event{Stage: observe.StageListPage}, "ListCall ok", ""},
		{observe.Event{Stage: observe.StageListFailed, Err: boom}, "ListCall err", ""},
		{observe.Event{Stage: observe.StageWatchOpened}, "WatchCall ok", ""},
		{observe.Event{Stage: observe.StageWatchFailed, Err: boom}, "WatchCall err", ""},
		{observe.Event{Stage: observe.StageWatchFailed, Err: errStreamingRejected}, "WatchCall err", "WARN informer: streaming list unsupported, using LIST from now on"},
		{observe.Event{Stage: observe.StageRelist, Cause: observe.CauseInitial}, "Relist initial", ""},
		{observe.Event{Stage: observe.StageRelist, Cause: observe.CauseWatchGone}, "Relist watch-gone", "INFO informer: relisting"},
		{observe.Event{Stage: observe.StageRelist, Cause: observe.CauseStreamingFallback, Err: errNoStreamingEnd}, "Relist streaming-fallback", "WARN informer: streaming list cut short, using LIST this once"},
		{observe.Event{Stage: observe.StageRelist, Cause: observe.CauseStreamingFallback, Err: errStreamingUnfit}, "Relist streaming-fallback", "WARN informer: an object does not fit the type; using LIST, which skips it, from now on"},
		{observe.Event{Stage: observe.StageRelist, Cause: observe.CauseStreamingFallback, Err: boom}, "Relist streaming-fallback", "WARN informer: streaming list failed, using LIST this once"},
		{observe.Event{Stage: observe.StageEvent, EventType: meta.Added}, "WatchEvent ADDED", ""},
		{observe.Event{Stage: observe.StageEvent, EventType: "SURPRISE"}, "WatchEvent SURPRISE", "ERROR informer: unknown watch event type"},
		{observe.Event{Stage: observe.StageBookmark}, "WatchEvent BOOKMARK", ""},
		{observe.Event{Stage: observe.StageWatchEnded, Err: errIdle}, "", "INFO informer: watch idle, reopening"},
		// Only a quiet watch is "idle": one that ended otherwise, a stall
		// included, is logged by its backoff, if it is a failure.
		{observe.Event{Stage: observe.StageWatchEnded, Err: boom}, "", ""},
		{observe.Event{Stage: observe.StageWatchEnded, Err: &watchstream.DecodeError{Problem: watchstream.Stalled, Err: watchstream.ErrStalled}}, "", ""},
		{observe.Event{Stage: observe.StageBackoff, Err: boom}, "", "WARN informer: list/watch failed, backing off"},
		{observe.Event{Stage: observe.StageHandlerCalled, Handler: "h"}, "HandlerCall h", ""},
		{observe.Event{Stage: observe.StageHandlerCalled, Handler: "h", Err: panicked("x")}, "HandlerPanic h,HandlerCall h", "ERROR informer: handler panicked"},
		{observe.Event{Stage: observe.StageCoalesced, Handler: "h"}, "Coalesced h", ""},
		{observe.Event{Stage: observe.StageSkipped, Err: boom}, "Skipped wrong-kind", "ERROR informer: skipping object of the wrong kind"},
		{observe.Event{Stage: observe.StageSkipped, Err: undecodable}, "Skipped undecodable", "ERROR informer: skipping an object that does not fit the type (Options.Decode.SkipUndecodable)"},
		{observe.Event{Stage: observe.StageTransformFailed, Err: boom}, "", "ERROR informer: transform failed; keeping the object as received"},
		{observe.Event{Stage: observe.StageSnapshotLoaded}, "SnapshotLoaded resumed", "INFO informer: resumed from snapshot"},
		{observe.Event{Stage: observe.StageSnapshotMissing}, "SnapshotLoaded none", "INFO informer: no snapshot saved, listing"},
		{observe.Event{Stage: observe.StageSnapshotRejected, Err: corrupt}, "SnapshotLoaded corrupt", "WARN informer: snapshot rejected, listing instead"},
		{observe.Event{Stage: observe.StageSnapshotRejected, Err: boom}, "SnapshotLoaded error", "WARN informer: snapshot rejected, listing instead"},
		{observe.Event{Stage: observe.StageSnapshotSaved}, "SnapshotSaved ok", "DEBUG informer: snapshot saved"},
		{observe.Event{Stage: observe.StageSnapshotSaved, Err: boom}, "SnapshotSaved err", "WARN informer: saving a snapshot failed"},
		{observe.Event{Stage: observe.StageSnapshotSaved, Err: context.Canceled}, "SnapshotSaved err", ""},
		{observe.Event{Stage: observe.StageSnapshotSkipped, Err: errStillQueued}, "", "INFO informer: no snapshot at stop"},
		{observe.Event{Stage: observe.StageDeltaQueued}, "", ""},
		{observe.Event{Stage: observe.StageStoreUpdated}, "", ""},
		{observe.Event{Stage: observe.StageSynced}, "", ""},
	} {
		t.Run(tc.ev.String(), func(t *testing.T) {
			m, lines := &recorder{}, &logLines{}
			var traced []observe.Event
			o := observers{name: "i", trace: func(e observe.Event) { traced = append(traced, e) }, metrics: m,
				counted: true, log: slog.New(lines)}
			o.emit(tc.ev)
			require.Equal(t, []observe.Event{tc.ev}, traced, "the trace hears every happening as it is")
			require.Equal(t, tc.count, strings.Join(m.calls, ","))
			require.Equal(t, tc.log, strings.Join(lines.lines, ","))
		})
	}
}

// logLines is a slog.Handler that keeps "LEVEL message" of each record.
type logLines struct{ lines []string }

func (l *logLines) Enabled(context.Context, slog.Level) bool { return true }
func (l *logLines) Handle(_ context.Context, r slog.Record) error {
	l.lines = append(l.lines, r.Level.String()+" "+r.Message)
	return nil
}
func (l *logLines) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logLines) WithGroup(string) slog.Handler      { return l }
