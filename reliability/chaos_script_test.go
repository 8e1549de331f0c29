package reliability

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/meta"
)

// convergeWithin bounds the wait for convergence once the faults stop. A
// 429 makes the reflector wait its Retry-After (1 s) and -race slows all.
const convergeWithin = 30 * time.Second

// run plays the scenario's script, then checks convergence.
func (sc *scenario) run(t *testing.T, tot *chaosTotals) {
	sc.start(t)
	steps := 150 + sc.rnd.IntN(250)
	late := newView("late", 0)
	for step := range steps {
		if step == steps/2 {
			_, err := sc.inf.AddHandler(late, informer.HandlerOptions{})
			require.NoError(t, err)
			sc.views = append(sc.views, late)
		}
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
	sc.srv.SetLatency(0)
	sc.srv.SetBookmarks(true)
	stopped := time.Now()
	if os.Getenv("ZEROKUBE_CHAOS_TRACE") != "" {
		t.Logf("%s script done", stopped.Format("15:04:05.000"))
	}
	want, converged := sc.awaitConvergence()
	tot.maxConverge = max(tot.maxConverge, time.Since(stopped))
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
	sc.mu.Lock()
	for c, n := range sc.causes {
		tot.byCause[c] += n
	}
	sc.mu.Unlock()
	tot.watchEnds += sc.watchEnds.Load()
	for _, v := range sc.views {
		tot.anomalies += v.anomalies.Load()
		tot.rvBack += v.rvBack.Load()
		tot.handlerCalls += v.calls.Load()
		if b := v.bad(); b != "" {
			t.Logf("first protocol anomaly: %s", b)
		}
	}
	t.Logf("%d writes, %d faults %v, %d relists, %d watch ends; converged=%t in %s; %d objects",
		sc.writes, faults, stats.Faults, sc.relists.Load(), sc.watchEnds.Load(), converged,
		time.Since(stopped).Round(time.Millisecond), len(want))
	if !converged {
		tot.divergences++
		t.Errorf("no convergence within %s of the last fault (replay: ZEROKUBE_CHAOS_SEED=%d)\n  store: %s",
			convergeWithin, sc.seed, diff(want, storeState(sc.inf)))
		for _, v := range sc.views {
			t.Errorf("  handler %s: %s", v.name, diff(storeState(sc.inf), v.snapshot()))
		}
	}
	for _, v := range sc.views {
		require.Zero(t, v.rvBack.Load(), "handler %s saw a resourceVersion go backwards: %s", v.name, v.bad())
	}
}

// awaitConvergence polls until the cache equals the server and every view
// equals the cache; it returns the server's state and whether that held.
func (sc *scenario) awaitConvergence() (state, bool) {
	deadline := time.Now().Add(convergeWithin)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		want := sc.serverState()
		if sc.converged(want) {
			return want, true
		}
		if time.Now().After(deadline) {
			return want, false
		}
		<-tick.C
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
		_, err = sc.srv.Create(cmGVR, obj)
		require.NoError(t, err)
		sc.writes++
		return
	}
	var m map[string]any
	require.NoError(t, cur.DecodeInto(&m))
	md := m["metadata"].(map[string]any)
	delete(md, "resourceVersion") // unconditional: the script is the only writer
	switch r := sc.rnd.IntN(100); {
	case r < 45:
		m["data"] = map[string]string{"v": fmt.Sprint(sc.writes)}
	case r < 65:
		md["labels"] = map[string]string{selectorLabel: sc.inOut()}
	case r < 90 || !sc.held[key]:
		require.NoError(t, sc.srv.Delete(cmGVR, ns, name))
		sc.writes++
		return
	default:
		delete(md, "finalizers")
		delete(sc.held, key)
	}
	_, err = sc.srv.Update(cmGVR, m)
	require.NoError(t, err)
	sc.writes++
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

// fault injects one random fault.
func (sc *scenario) fault() {
	s, r := sc.srv, sc.rnd
	switch r.IntN(13) {
	case 0:
		s.DropWatches()
	case 1:
		s.CutWatches()
	case 2:
		s.Compact(0)
		sc.compactMidList.Store(r.IntN(2) == 0)
	case 3:
		s.StallWatches()
	case 4:
		s.Restart()
	case 5:
		// Few at a time: failures not yet consumed when the script ends
		// still fail requests, and a 429 or 504 makes the reflector wait the
		// server's 1 s hint.
		s.FailNext(fakeapiserver.Failure{Count: 1 + r.IntN(2), Code: []int{500, 503, 500, 503, 429}[r.IntN(5)],
			Verb: []string{"list", "watch", ""}[r.IntN(3)]})
	case 6:
		if r.IntN(3) == 0 {
			s.FailNext(fakeapiserver.Failure{Count: 1, Code: 504, Verb: "list"})
		} else {
			s.FailNext(fakeapiserver.Failure{Count: 1, Code: 500, Verb: "watch"})
		}
	case 7:
		s.FailNext(fakeapiserver.Failure{Count: 1 + r.IntN(2), Code: 410, Verb: []string{"list", "watch"}[r.IntN(2)]})
	case 8:
		s.InjectMalformedEvent()
	case 9:
		s.SetBookmarks(r.IntN(2) == 0)
	case 10:
		s.SetLatency(time.Duration(r.IntN(15)) * time.Millisecond)
	case 11, 12:
		s.InjectFrame([]byte(chaosFrames[r.IntN(len(chaosFrames))]))
	}
}
