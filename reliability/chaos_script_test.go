package reliability

import (
	"context"
	"fmt"
	"maps"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/meta"
)

// convergeWithin bounds the wait for convergence once the faults stop. A
// 429 makes the reflector wait its Retry-After (1 s) and -race slows all.
const convergeWithin = 30 * time.Second

// run plays the scenario's script, then checks the oracle.
func (sc *scenario) run(t *testing.T, tot *chaosTotals) {
	sc.start(t)
	steps := 150 + sc.rnd.IntN(250)
	late := newView("late", 0)
	late.changed = sc.progress
	for sc.step = 0; sc.step < steps; sc.step++ {
		if sc.step == steps/2 {
			_, err := sc.inf.AddHandler(late, informer.HandlerOptions{})
			require.NoError(t, err)
			sc.views = append(sc.views, late)
		}
		sc.runUndos(false)
		if sc.rnd.IntN(100) < 12 {
			sc.fault()
		} else {
			sc.write(t)
		}
		if sc.rnd.IntN(3) == 0 {
			// Pace the script so that faults land at every stage of the
			// informer (listing, watching, dispatching, backing off) rather
			// than all before it has started.
			time.Sleep(time.Duration(sc.rnd.IntN(4000)) * time.Microsecond)
		}
	}
	sc.runUndos(true)
	sc.srv.ClearFaults()
	sc.tail(t)
	stopped := time.Now()
	if os.Getenv("ZEROKUBE_CHAOS_TRACE") != "" {
		t.Logf("%s script done", stopped.Format("15:04:05.000"))
	}
	want, converged := sc.awaitConvergence()
	tot.maxConverge = max(tot.maxConverge, time.Since(stopped))
	sc.report(t, tot, converged, time.Since(stopped), len(want))
	if !converged {
		tot.divergences++
		t.Errorf("no convergence within %s of the last fault (replay: ZEROKUBE_CHAOS_SEED=%d)\n  store: %s",
			convergeWithin, sc.seed, diff(want, storeState(sc.inf)))
		for _, v := range sc.views {
			t.Errorf("  handler %s: %s", v.name, diff(storeState(sc.inf), v.snapshot()))
		}
	}
	sc.checkOracle(t)
}

// tail ends the script with the server healthy: a clean restart of the
// watch, an object created and left alone, then a burst of updates to
// another. The informer must deliver them all: the first event of a fresh
// watch (no later write repairs its loss), and the last of a burst that
// the bounded handler queues coalesce.
func (sc *scenario) tail(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if sc.srv.DropWatches() > 0 {
		_ = sc.srv.AwaitWatchers(ctx, 1) // a stuck informer fails the convergence below, not here
	}
	sc.put(t, "tail-first", "0", true)
	sc.put(t, "tail-burst", "0", true)
	for i := range 5 {
		sc.put(t, "tail-burst", fmt.Sprint(i+1), false)
	}
	// Objects created and deleted at once, with no fault left to relist:
	// a lost Delete leaves one in the cache for good.
	for i := range 10 {
		name := fmt.Sprintf("tail-blink-%d", i)
		sc.put(t, name, "0", true)
		require.NoError(t, sc.srv.Delete(cmGVR, sc.names[0], name))
		sc.writes++
	}
}

// put creates or updates an object of the first namespace that every
// shape selects.
func (sc *scenario) put(t *testing.T, name, v string, create bool) {
	obj := map[string]any{"metadata": map[string]any{"name": name, "namespace": sc.names[0],
		"labels": map[string]string{selectorLabel: "in"}}, "data": map[string]string{"v": v}}
	var err error
	if create {
		_, err = sc.srv.Create(cmGVR, obj)
	} else {
		_, err = sc.srv.Update(cmGVR, obj)
	}
	require.NoError(t, err)
	sc.writes++
}

// report adds the scenario to the totals and logs it.
func (sc *scenario) report(t *testing.T, tot *chaosTotals, converged bool, took time.Duration, objects int) {
	stats := sc.srv.Stats()
	var faults int64
	for k, n := range stats.Faults {
		faults += n
		tot.byFault[k] += n
	}
	tot.scenarios++
	tot.writes += sc.writes
	tot.faults += faults
	tot.relists += sc.relists.Load()
	tot.lists += sc.lists.Load()
	tot.watchEnds += sc.watchEnds.Load()
	sc.mu.Lock()
	for c, n := range sc.causes {
		tot.byCause[c] += n
	}
	for f, n := range sc.drawn {
		tot.drawn[f] += n
	}
	for f, n := range sc.exercised {
		tot.exercised[f] += n
	}
	drawn, exercised := maps.Clone(sc.drawn), maps.Clone(sc.exercised)
	sc.mu.Unlock()
	for _, v := range sc.views {
		tot.anomalies += v.anomalies.Load()
		tot.rvBack += v.rvBack.Load()
		tot.handlerCalls += v.calls.Load()
	}
	t.Logf("%d writes, %d faults drawn %v, reached the informer %v; %d relists, %d LISTs, %d watch ends; converged=%t in %s; %d objects",
		sc.writes, faults, drawn, exercised, sc.relists.Load(), sc.lists.Load(), sc.watchEnds.Load(), converged,
		took.Round(time.Millisecond), objects)
}

// checkOracle asserts what must hold besides convergence: every handler's
// history valid, LISTs within the backoff's bound, and the faults drawn
// having reached the informer.
func (sc *scenario) checkOracle(t *testing.T) {
	for _, v := range sc.views {
		assert.Zero(t, v.anomalies.Load(), "handler %s got a notification its history does not allow: %s (replay: ZEROKUBE_CHAOS_SEED=%d)", v.name, v.bad(), sc.seed)
		assert.Zero(t, v.rvBack.Load(), "handler %s saw a resourceVersion go backwards: %s", v.name, v.bad())
	}
	for _, bad := range sc.checkDeletes() {
		t.Errorf("%s (replay: ZEROKUBE_CHAOS_SEED=%d)", bad, sc.seed)
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	var drawn, reached int
	for f, n := range sc.drawn {
		drawn += n
		if sc.exercised[f] > 0 {
			reached++
		}
	}
	// Every list-and-watch cycle waits the backoff (at least Initial), but
	// for at most two immediate relists after a 410; each fault can end a
	// cycle early.
	elapsed := time.Since(sc.started)
	bound := int64(elapsed/chaosBackoff.Initial) + 3*int64(drawn) + 10
	assert.LessOrEqual(t, sc.lists.Load(), bound, "LISTs in %s with %d faults: a hot loop (replay: ZEROKUBE_CHAOS_SEED=%d)",
		elapsed.Round(time.Millisecond), drawn, sc.seed)
	if drawn > 0 {
		assert.Positive(t, reached, "none of the faults drawn %v reached the informer (replay: ZEROKUBE_CHAOS_SEED=%d)", sc.drawn, sc.seed)
	}
}

// awaitConvergence waits until the cache equals the server and every view
// equals the cache, re-checking whenever the informer or a handler does
// something; it returns the server's state and whether that held within
// convergeWithin.
func (sc *scenario) awaitConvergence() (state, bool) {
	deadline := time.NewTimer(convergeWithin)
	defer deadline.Stop()
	for {
		ch := sc.progress.wait()
		want := sc.serverState()
		if sc.converged(want) {
			return want, true
		}
		select {
		case <-ch:
		case <-deadline.C:
			return want, false
		}
	}
}

func (sc *scenario) converged(want state) bool {
	if diff(want, storeState(sc.inf)) != "" {
		return false
	}
	for _, v := range sc.views {
		if diff(want, v.snapshot()) != "" {
			return false
		}
	}
	return true
}

// serverState is what the informer must hold: every ConfigMap of the
// scenario's namespaces (terminating ones included) that its selector
// selects.
func (sc *scenario) serverState() state {
	out := state{}
	for _, ns := range sc.names {
		if sc.shape.fieldSel && ns == excludedNS {
			continue
		}
		items, _, err := sc.srv.List(cmGVR, ns)
		if err != nil {
			panic(err) // the namespaces are never deleted
		}
		for _, r := range items {
			if sc.shape.selector && r.Labels[selectorLabel] != "in" {
				continue
			}
			out[meta.Key(r)] = r.ResourceVersion
		}
	}
	return out
}

// write makes one random change: a create, an update of the data, a label
// change that moves the object in or out of the selector, a delete (which
// only marks an object that holds a finalizer), or the release of a
// finalizer (which completes a pending delete).
func (sc *scenario) write(t *testing.T) {
	ns := sc.names[sc.rnd.IntN(len(sc.names))]
	name := fmt.Sprintf("cm-%d", sc.rnd.IntN(12))
	key := ns + "/" + name
	cur, err := sc.srv.Get(cmGVR, ns, name)
	if err != nil {
		require.True(t, meta.IsNotFound(err), "%v", err)
		obj := map[string]any{"metadata": map[string]any{"name": name, "namespace": ns,
			"labels": map[string]string{selectorLabel: sc.inOut()}}, "data": map[string]string{"v": "0"}}
		if sc.rnd.IntN(4) == 0 {
			obj["metadata"].(map[string]any)["finalizers"] = []string{"chaos.zerokube.io/hold"}
			sc.held[key] = true
		}
		created, err := sc.srv.Create(cmGVR, obj)
		require.NoError(t, err)
		sc.writes++
		if !sc.held[key] && sc.rnd.IntN(6) == 0 {
			// Short-lived: its ADDED and DELETED likely reach the queue
			// together, where a queue that drops the Delete of a key with
			// a pending Add would keep it until a relist.
			require.NoError(t, sc.srv.Delete(cmGVR, ns, name))
			sc.writes++
			if sc.visible(ns, created.Labels[selectorLabel]) {
				sc.left(created.UID)
			}
		}
		return
	}
	var m map[string]any
	require.NoError(t, cur.DecodeInto(&m))
	md := m["metadata"].(map[string]any)
	delete(md, "resourceVersion") // unconditional: the script is the only writer
	wasVisible := sc.visible(ns, cur.Labels[selectorLabel])
	leaves := false // the write ends the object's life in the informer's view
	switch r := sc.rnd.IntN(100); {
	case r < 45:
		m["data"] = map[string]string{"v": fmt.Sprint(sc.writes)}
	case r < 65:
		label := sc.inOut()
		md["labels"] = map[string]string{selectorLabel: label}
		leaves = wasVisible && !sc.visible(ns, label)
	case r < 90 || !sc.held[key]:
		require.NoError(t, sc.srv.Delete(cmGVR, ns, name))
		sc.writes++
		if wasVisible && !sc.held[key] {
			sc.left(cur.UID)
		}
		return
	default:
		delete(md, "finalizers")
		delete(sc.held, key)
		leaves = wasVisible && cur.DeletionTimestamp != nil
	}
	_, err = sc.srv.Update(cmGVR, m)
	require.NoError(t, err)
	sc.writes++
	if leaves {
		sc.left(cur.UID)
	}
}

func (sc *scenario) inOut() string {
	if sc.rnd.IntN(2) == 0 {
		return "in"
	}
	return "out"
}

// Frames a hostile or broken server might send mid-watch.
var chaosFrames = []string{
	`{"type":"ADDED","object":{"metadata":{"name":"trunc` + "\n", // truncated: the next frame makes it garbage
	`{"type":"ERROR","object":{"foo":1}}` + "\n",                 // an ERROR that is not a Status
	`{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Expired","code":410,"message":"too old resource version"}}` + "\n",
	"\x00\x01garbage\n",
}
