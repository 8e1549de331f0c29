package reliability

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/zerokube/zerokube/fakeapiserver"
)

// chaosFault is one kind of fault a scenario may draw. inject arms or
// injects it; whether it reached the informer (was exercised) is recorded
// by sc.hit, from inject's own result, from the server's fault log or from
// what the informer did next.
type chaosFault struct {
	name string
	// finding names the finding of issue 13 that the fault found: the
	// informer before its fix fails scenarios that draw it.
	finding string
	inject  func(sc *scenario)
}

// chaosFaults are the faults scenarios draw from, with equal weight.
var chaosFaults = []chaosFault{
	{name: "drop-watches", inject: func(sc *scenario) { sc.hitIf("drop-watches", sc.srv.DropWatches()) }},
	{name: "cut-watch", inject: func(sc *scenario) { sc.hitIf("cut-watch", sc.srv.CutWatches()) }},
	{name: "stall", inject: func(sc *scenario) { sc.hitIf("stall", sc.srv.StallWatches()) }},
	{name: "restart", inject: func(sc *scenario) { sc.srv.Restart() }}, // hit: the fault log's connections
	{name: "compact", inject: func(sc *scenario) { sc.compacts.Add(1); sc.srv.Compact(0) }},
	{name: "malformed-event", inject: func(sc *scenario) {
		if sc.rnd.IntN(3) == 0 {
			sc.hitIf("malformed-event", sc.srv.InjectMalformedEvent())
		} else {
			sc.hitIf("malformed-event", sc.srv.InjectFrame([]byte(chaosFrames[sc.rnd.IntN(len(chaosFrames))])))
		}
	}},
	{name: "stop-bookmarks", inject: func(sc *scenario) {
		sc.srv.SetBookmarks(false)
		sc.hitIf("stop-bookmarks", sc.srv.Stats().ActiveWatchers)
		sc.undoIn(5+sc.rnd.IntN(40), func() { sc.srv.SetBookmarks(true) })
	}},
	{name: "latency", inject: func(sc *scenario) {
		sc.srv.SetLatency(time.Duration(1+sc.rnd.IntN(15)) * time.Millisecond)
		sc.undoIn(5+sc.rnd.IntN(40), func() { sc.srv.SetLatency(0) })
	}},
	// Few at a time: a 429 or 504 makes the reflector wait the server's 1 s
	// hint.
	{name: "fail-500", inject: func(sc *scenario) { sc.fail(500, 1+sc.rnd.IntN(2), false) }},
	{name: "fail-503", inject: func(sc *scenario) { sc.fail(503, 1+sc.rnd.IntN(2), false) }},
	{name: "fail-429", inject: func(sc *scenario) { sc.fail(429, 1, false) }},
	{name: "fail-410", inject: func(sc *scenario) { sc.fail(410, 1+sc.rnd.IntN(2), false) }},
	{name: "fail-410-event", inject: func(sc *scenario) { sc.fail(410, 1+sc.rnd.IntN(2), true) }},
	{name: "fail-504", inject: func(sc *scenario) {
		sc.srv.FailNext(fakeapiserver.Failure{Count: 1, Code: 504, Verb: "list"})
	}},
	{name: "fail-504-event", inject: func(sc *scenario) {
		// A streaming list at a resourceVersion the server has not reached.
		sc.srv.FailNext(fakeapiserver.Failure{Count: 1, Code: 504, Verb: "watch", AsEvent: true, QueryContains: "sendInitialEvents=true"})
	}},
	{name: "compact-mid-list", inject: func(sc *scenario) { sc.srv.CompactBetweenPages(1) }},
	{name: "cut-streaming-list", inject: func(sc *scenario) { sc.srv.CutStreamingLists(1) }},
	{name: "restore", inject: (*scenario).restore},

	{name: "watch-410-forever", finding: "1 (a 410 on every watch is a hot loop)", inject: func(sc *scenario) {
		sc.srv.FailNext(fakeapiserver.Failure{Count: fakeapiserver.Forever, Code: 410, Verb: "watch", AsEvent: true, Match: plainWatch})
		sc.undoIn(10+sc.rnd.IntN(40), sc.srv.ClearFaults)
	}},
	{name: "undecodable", finding: "3 (an undecodable event wedges the informer)", inject: (*scenario).undecodable},
	{name: "compact-every-page", finding: "4 (a 410 on a continue token restarts the paged list)", inject: func(sc *scenario) {
		sc.srv.CompactBetweenPages(fakeapiserver.Forever)
		sc.undoIn(10+sc.rnd.IntN(40), func() { sc.srv.CompactBetweenPages(0) })
	}},
	{name: "fail-410-unknown-reason", finding: "8 (a 410 with an unrecognised reason is not Gone)", inject: func(sc *scenario) {
		sc.srv.FailNext(fakeapiserver.Failure{Count: 1, Code: 410, Verb: []string{"list", "watch"}[sc.rnd.IntN(2)],
			Reason: "SomethingNew", AsEvent: sc.rnd.IntN(2) == 0})
	}},
}

// fault injects one random fault and records that it was drawn.
func (sc *scenario) fault() {
	f := sc.faults[sc.rnd.IntN(len(sc.faults))]
	sc.mu.Lock()
	sc.drawn[f.name]++
	sc.mu.Unlock()
	f.inject(sc)
}

func (sc *scenario) fail(code, n int, event bool) {
	verb := []string{"list", "watch", ""}[sc.rnd.IntN(3)]
	if event {
		verb = "watch"
	}
	sc.srv.FailNext(fakeapiserver.Failure{Count: n, Code: code, Verb: verb, AsEvent: event})
}

// hit records that fault name reached the informer.
func (sc *scenario) hit(name string) {
	sc.mu.Lock()
	sc.exercised[name]++
	sc.mu.Unlock()
}

func (sc *scenario) hitIf(name string, affected int) {
	if affected > 0 {
		sc.hit(name)
	}
}

// undoIn runs undo after n more steps of the script (or at its end).
func (sc *scenario) undoIn(n int, undo func()) {
	sc.undos = append(sc.undos, pendingUndo{at: sc.step + n, undo: undo})
}

type pendingUndo struct {
	at   int
	undo func()
}

// runUndos runs the undos due at the current step, or all with all set.
func (sc *scenario) runUndos(all bool) {
	keep := sc.undos[:0]
	for _, u := range sc.undos {
		if all || u.at <= sc.step {
			u.undo()
		} else {
			keep = append(keep, u)
		}
	}
	sc.undos = keep
}

// restore takes the server's resourceVersion back, as an etcd restore
// does, without losing a ConfigMap write: the writes undone are k
// namespaces created for the purpose (the informer watches ConfigMaps),
// once the informer has seen a resourceVersion past them. While restored,
// the informer's reads at its resourceVersion ask for the future (504 on a
// LIST, an ERROR event on a streaming list, silence on a WATCH); then the
// server writes k namespaces again and catches up, as a lagging API server
// does.
func (sc *scenario) restore() {
	x := sc.srv.ResourceVersion()
	k := 1 + sc.rnd.IntN(4)
	sc.srv.SetBookmarks(true) // the informer learns of the namespaces' RVs from bookmarks only
	sc.bump(k)
	sc.await(func() bool { return sc.informerRV.Load() > x }, 300*time.Millisecond)
	n := sc.exercisedN("restore")
	sc.restoredTo.Store(sc.srv.Restore(x))
	sc.await(func() bool { return sc.exercisedN("restore") > n }, 300*time.Millisecond)
	sc.restoredTo.Store(0)
	sc.bump(k)
}

// bump creates n namespaces, moving the resourceVersion without a
// ConfigMap write.
func (sc *scenario) bump(n int) {
	for range n {
		name := fmt.Sprintf("chaos-bump-%d", sc.bumps.Add(1))
		if _, err := sc.srv.Create(nsGVR, map[string]any{"metadata": map[string]any{"name": name}}); err != nil {
			panic(err) // a fresh name in a fake server: cannot fail
		}
	}
}

// undecodable stores an object the informer's type cannot decode (a
// number where it declares a string), and fixes or deletes it a few steps
// later.
func (sc *scenario) undecodable() {
	ns := sc.names[sc.rnd.IntN(len(sc.names))]
	name := fmt.Sprintf("bad-%d", sc.rnd.IntN(3))
	obj := map[string]any{"metadata": map[string]any{"name": name, "namespace": ns,
		"labels": map[string]string{selectorLabel: sc.inOut()}}, "data": map[string]any{"v": sc.step}}
	if _, err := sc.srv.PutUnchecked(cmGVR, obj); err != nil {
		panic(err)
	}
	sc.undoIn(3+sc.rnd.IntN(30), func() {
		if sc.rnd.IntN(2) == 0 {
			_ = sc.srv.Delete(cmGVR, ns, name) // gone already when drawn twice
			return
		}
		obj["data"] = map[string]string{"v": "fixed"}
		_, _ = sc.srv.Update(cmGVR, obj)
	})
}

// await waits for cond, re-checked whenever the informer reports progress,
// for at most d; a fault that did not reach the informer in time is simply
// not exercised.
func (sc *scenario) await(cond func() bool, d time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	for {
		ch := sc.progress.wait()
		if cond() {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
	}
}

func (sc *scenario) exercisedN(name string) int {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.exercised[name]
}

// faultLog is the fake server's logger: it reads the server's fault
// records to learn which armed faults went off.
type faultLog struct {
	slog.Handler // discards
	sc           *scenario
}

func (h faultLog) Enabled(context.Context, slog.Level) bool { return true }

func (h faultLog) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "fakeapiserver: fault" {
		return nil
	}
	a := map[string]string{}
	r.Attrs(func(at slog.Attr) bool { a[at.Key] = at.Value.String(); return true })
	sc := h.sc
	switch f := a["fault"]; f {
	case "fail":
		name := "fail-" + a["code"]
		if a["event"] == "true" {
			name += "-event"
		}
		if a["reason"] != "" && a["reason"] != "Expired" && a["code"] == "410" {
			name = "fail-410-unknown-reason"
		}
		sc.hit(name)
		if sc.forever410() && name == "fail-410-event" {
			sc.hit("watch-410-forever")
		}
	case "restart":
		if n, _ := strconv.Atoi(a["connections"]); n > 0 {
			sc.hit(f)
		}
	case "compact-mid-list":
		sc.hit(f)
		sc.hit("compact-every-page") // the same effect; only one of them is drawn per step
	case "latency", "cut-streaming-list":
		sc.hit(f)
	}
	sc.progress.fire()
	return nil
}

func (h faultLog) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h faultLog) WithGroup(string) slog.Handler      { return h }

func (sc *scenario) forever410() bool {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.drawn["watch-410-forever"] > 0
}
