//go:build unix

package main

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// lessonDeadline is how soon a lesson must show its effect after a press,
// the tenth as the first: a class waits that long, no longer. The slowest
// lesson is the stall: the watch's idle bound under the lessons (5 s),
// then a backoff of at most 1.2 s.
const lessonDeadline = 10 * time.Second

// presses is how many times in a row each lesson is pressed.
const presses = 10

// lessonEffect is what the page must show after one press of a lesson
// button, as JavaScript over the log rows that came after the press
// (after(stage) lists them: rows are "tr.<box> <stage>" with data-seq).
type lessonEffect struct {
	action string
	effect string
}

// lessonEffects: every fault button of the page, and what it must show.
// Each watch-breaking lesson must also end with a watch open again
// (recovered), so that the next press finds one to break.
var lessonEffects = []lessonEffect{
	{"cut-watch", `after("watch-ended").some((r) => r.textContent.includes("“Cut the watch”"))`},
	{"drop-watches", `after("watch-ended").length > 0`},
	{"compact", `result().startsWith("compact: history compacted up to resourceVersion")`},
	{"compact-cut", `after("relist").some((r) => r.textContent.includes("watch-gone"))`},
	{"missed-delete", `after("handler-called").some((r) => r.textContent.includes("finalStateUnknown=true"))`},
	{"fail-lists-503", `after("list-failed").filter((r) => r.textContent.includes("503")).length >= 3`},
	{"fail-lists-429", `after("list-failed").filter((r) => r.textContent.includes("429")).length >= 2`},
	{"stall", `after("watch-ended").some((r) => r.textContent.includes("“Stall the watch”"))`},
	{"restart", `after("watch-ended").length > 0`},
	{"drop-event", `after("audit-difference").some((r) => r.textContent.includes("unseen-change")) &&
		after("relist").some((r) => r.textContent.includes("audit"))`},
}

// lessonGroups share the lessons between demos pressed side by side,
// each with its own informer and browser, so that the slowest lessons (the
// stall's idle bound, the 503's backoffs, the 429's Retry-After, the
// audit's period: per ten presses about 53, 41, 33 and 27 s) are waited
// out at the same time: about 75 s instead of 215. The presses wait on
// timers, not on a CPU, so three demos fit on two cores.
var lessonGroups = [][]string{
	{"stall", "missed-delete", "compact"},
	{"fail-lists-503", "drop-event"},
	{"fail-lists-429", "compact-cut", "cut-watch", "restart", "drop-watches"},
}

// TestEveryLessonTakesEffectOnTheTenthPress presses each lesson button of
// the live page ten times in a row, as a class does, each press once the
// reflector watches again: every press must show its effect, and the
// watch come back, within lessonDeadline. Regression: with client-go's
// bounds the backoff grew with each press (0.98 s, 5.1 s, 18 s, 53 s) and
// a stalled watch showed nothing for 3 minutes.
func TestEveryLessonTakesEffectOnTheTenthPress(t *testing.T) {
	if testing.Short() {
		t.Skip("presses each lesson ten times: about 75 s (-short skips it)")
	}
	// Beside the package's other tests that wait on timers (t.Parallel):
	// it is the package's longest, and waits on timers too.
	t.Parallel()
	bin := requireChromium(t)
	effects := map[string]string{}
	for _, l := range lessonEffects {
		effects[l.action] = l.effect
	}
	grouped := 0
	for _, g := range lessonGroups {
		grouped += len(g)
	}
	require.Equal(t, len(lessonEffects), grouped, "every lesson in one group")
	// The groups run at once whatever -parallel says (t.Run from one
	// goroutine per group, as reliability's matrix does): -parallel is
	// GOMAXPROCS, 2 here, and bounds CPU-bound tests, which these are not.
	var wg sync.WaitGroup
	for i, group := range lessonGroups {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(fmt.Sprint("demo-", i), func(t *testing.T) { pressGroup(t, bin, group, effects) })
		}()
	}
	wg.Wait()
}

// pressGroup presses each lesson of group ten times on a demo of its own.
func pressGroup(t *testing.T, bin string, group []string, effects map[string]string) {
	b, _ := openLivePage(t, bin, "--ui", "127.0.0.1:0", "--churn-interval", "500ms", "--resync=0", "--tombstone-after=0")
	b.waitJS(t, "the pipeline, synced", `document.getElementById("refl-state").dataset.state === "watching" &&
		document.getElementById("cache-synced").textContent === "yes"`)
	b.eval(t, `(window.zk = {
		seq: () => +(document.querySelector("#log tr:last-child")?.dataset.seq || 0),
		after: (seq, stage) => [...document.querySelectorAll("#log tr." + stage)].filter((r) => +r.dataset.seq > seq),
		result: () => document.getElementById("action-result").textContent,
	}, 0)`)
	for _, action := range group {
		pressTenTimes(t, b, action, effects[action])
	}
}

// pressTenTimes presses the button of action presses times, each once the
// last press took effect and the watch is back, and checks the effect
// comes within lessonDeadline.
func pressTenTimes(t *testing.T, b *browser, action, effect string) {
	t.Helper()
	watching := `document.getElementById("refl-state").dataset.state === "watching"`
	var took []time.Duration
	for press := 1; press <= presses; press++ {
		seq := b.evalInt(t, `zk.seq()`)
		b.evalInt(t, fmt.Sprintf(`(document.getElementById("action-result").textContent = "", document.querySelector('button[data-action=%q]').click(), 0)`, action))
		start := time.Now()
		cond := fmt.Sprintf(`((after, result) => (%s))((stage) => zk.after(%d, stage), zk.result)`, effect, seq)
		b.waitWithin(t, lessonDeadline, fmt.Sprintf("press %d of %s taking effect", press, action), cond)
		// Recovered: a watch opened after the press (or, for a lesson
		// that breaks none, the one open still watching).
		recovered := fmt.Sprintf(`%s && (zk.after(%d, "watch-opened").length > 0 || %q === "compact")`, watching, seq, action)
		b.waitWithin(t, lessonDeadline-time.Since(start), fmt.Sprintf("the watch back after press %d of %s", press, action), recovered)
		took = append(took, time.Since(start).Round(10*time.Millisecond))
		said := strings.Trim(string(b.eval(t, `zk.result()`)), `"`)
		if strings.Contains(said, "no watch was open") {
			t.Fatalf("press %d of %s found no watch to act on although the page showed one watching: %s", press, action, said)
		}
	}
	t.Logf("%s: effect and watch back after each of %d presses in %v", action, presses, took)
}

// waitWithin is waitJS with its own deadline.
func (b *browser) waitWithin(t *testing.T, d time.Duration, what, cond string) {
	t.Helper()
	deadline := time.Now().Add(d)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		v, cdpErr := b.tryEval(t, "(() => { try { return !!("+cond+") } catch (e) { return false } })()")
		if cdpErr == nil && string(v) == "true" {
			return
		}
		if time.Now().After(deadline) {
			box := b.eval(t, `document.getElementById("box-reflector").innerText + "\n" + document.getElementById("action-result").textContent`)
			t.Fatalf("the page did not show %s within %v; reflector box:\n%s", what, d, box)
		}
		<-tick.C
	}
}
