package docs

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// watchSource is the raw output of bench/clientgo's compare for issue 40's
// watch path: each child's CPU over its watch phase on kube-apiserver.
const watchSource = "bench/clientgo/RESULTS-issue40-watch.jsonl"

// watchRecord is the part of a compare line the watch table reads.
type watchRecord struct {
	Date     time.Time `json:"date"`
	Variant  string    `json:"variant"`
	Opts     string    `json:"opts"`
	Events   int       `json:"events"`
	CPU      float64   `json:"watch_cpu_s"`
	Switches int       `json:"watch_switches"`
}

// informer is the record's variant as compare names it (zk-slim:wh1).
func (r watchRecord) informer() string {
	if r.Opts == "" {
		return r.Variant
	}
	return r.Variant + ":" + r.Opts
}

// watchRun is one compare command's records: the source's lines with no
// gap of runGap between them.
type watchRun struct {
	start, end time.Time
	events     int
	order      []string                 // informers, first seen first
	runs       map[string][]watchRecord // by informer
}

// runGap separates two commands' lines: within one, a child starts every
// 10 s or so.
const runGap = 5 * time.Minute

func watchRuns(t *testing.T) []*watchRun {
	t.Helper()
	var out []*watchRun
	for _, r := range jsonLines[watchRecord](t, watchSource) {
		require.Positive(t, r.Events, "%s: a line of %s received no event", watchSource, r.informer())
		if len(out) == 0 || r.Date.Sub(out[len(out)-1].end) > runGap {
			out = append(out, &watchRun{start: r.Date, events: r.Events, runs: map[string][]watchRecord{}})
		}
		run := out[len(out)-1]
		require.Equal(t, run.events, r.Events, "%s: the run from %s mixes event counts", watchSource, run.start)
		if run.runs[r.informer()] == nil {
			run.order = append(run.order, r.informer())
		}
		run.runs[r.informer()] = append(run.runs[r.informer()], r)
		run.end = r.Date
	}
	return out
}

// perEvent is each of informer's runs' µs and context switches an event,
// each sorted.
func (w *watchRun) perEvent(informer string) (us, switches []float64) {
	for _, r := range w.runs[informer] {
		us = append(us, 1e6*r.CPU/float64(r.Events))
		switches = append(switches, float64(r.Switches)/float64(r.Events))
	}
	slices.Sort(us)
	slices.Sort(switches)
	return us, switches
}

// med is the median of sorted v.
func med(v []float64) float64 {
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// us is informer's median µs an event in the run.
func (w *watchRun) us(t *testing.T, informer string) float64 {
	t.Helper()
	v, _ := w.perEvent(informer)
	require.NotEmpty(t, v, "%s: the run from %s has no %s", watchSource, w.start, informer)
	return med(v)
}

// watchBase is what every ratio of the watch table is over: client-go's
// protobuf informer, synced with a paged LIST.
const watchBase = "cg-proto:list"

// watchColumns are the informers with a column of their own.
var watchColumns = []string{watchBase, "zk-slim", "zk-slim:wh1", "zk-slim:wh1+sync"}

// watchRow is the table's row of run w: each column's median µs an event
// (the range of runs), its ratio to client-go's median (the range of
// each run over that median) and the median context switches an event,
// then the other informers' median and ratio.
func watchRow(t *testing.T, w *watchRun) string {
	t.Helper()
	base := w.us(t, watchBase)
	row := fmt.Sprintf("| %s–%s | %d |", w.start.Format("15:04"), w.end.Format("15:04"), len(w.runs[watchBase]))
	for _, inf := range watchColumns {
		us, sw := w.perEvent(inf)
		switch {
		case len(us) == 0:
			row += " — |"
		case inf == watchBase:
			row += fmt.Sprintf(" %s, %.1f |", usCell(us), med(sw))
		default:
			row += fmt.Sprintf(" %s, %.2f× (%s), %.1f |", usCell(us), med(us)/base, span("%.2f", us[0]/base, us[len(us)-1]/base), med(sw))
		}
	}
	var others []string
	for _, inf := range w.order {
		if !slices.Contains(watchColumns, inf) {
			others = append(others, fmt.Sprintf("`%s` %.0f, %.2f×", strings.TrimPrefix(inf, "zk-slim"), w.us(t, inf), w.us(t, inf)/base))
		}
	}
	if len(others) == 0 {
		others = []string{"—"}
	}
	return row + " " + strings.Join(others, "; ") + " |"
}

// usCell is "median (min–max)" of sorted µs.
func usCell(us []float64) string {
	if len(us) == 1 {
		return fmt.Sprintf("%.0f", us[0])
	}
	return fmt.Sprintf("%.0f (%s)", med(us), span("%.0f", us[0], us[len(us)-1]))
}

// runsOf are the runs of events events each, newest first.
func runsOf(runs []*watchRun, events int) []*watchRun {
	var out []*watchRun
	for _, w := range slices.Backward(runs) {
		if w.events == events {
			out = append(out, w)
		}
	}
	return out
}

// at is the run that started at hh:mm.
func at(t *testing.T, runs []*watchRun, hhmm string) *watchRun {
	t.Helper()
	for _, w := range runs {
		if w.start.Format("15:04") == hhmm {
			return w
		}
	}
	require.Failf(t, "no such run", "%s has no run starting at %s", watchSource, hhmm)
	return nil
}

// mustSay is mustContain with every run of white space in doc and want
// read as one space, for figures quoted in wrapped prose.
func mustSay(t *testing.T, doc, want, source string) {
	t.Helper()
	flat := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	require.True(t, strings.Contains(flat(read(t, doc)), flat(want)), "%s does not say %q, which is what %s says", doc, want, source)
}

// TestTheWatchPathFiguresHaveOneSource: bench/README.md's table of the
// watch path per event is the source's runs of 1,000 events, newest
// first, every figure recomputed; its profile's figures are the run of
// 3,000 events, and the prose's figures the same runs' medians.
func TestTheWatchPathFiguresHaveOneSource(t *testing.T) {
	runs := watchRuns(t)
	table := "| run (UTC) | runs of each | client-go protobuf | `zk-slim` (HTTP/2) | `:wh1` | `:wh1+sync` | other rows |\n|---|---|---|---|---|---|---|\n"
	for _, w := range runsOf(runs, 1000) {
		table += watchRow(t, w) + "\n"
	}
	require.True(t, strings.Contains(read(t, "bench/README.md"), table), "bench/README.md's watch table disagrees with %s, which says:\n%s", watchSource, table)

	// The command shown is the latest run's.
	last := runsOf(runs, 1000)[0]
	mustSay(t, "bench/README.md", fmt.Sprintf("-reps %d -events %d", len(last.runs[watchBase]), last.events), watchSource)
	mustContain(t, "bench/README.md", "-variants "+strings.Join(last.order, ",")+"\n", watchSource)

	profiled := runsOf(runs, 3000)
	require.Len(t, profiled, 1, "%s: the profiled run (3,000 events)", watchSource)
	p := profiled[0]
	mustSay(t, "bench/README.md", fmt.Sprintf("(3,000 events at 250/s, one run of each, %s–%s UTC", p.start.Format("15:04"), p.end.Format("15:04")), watchSource)
	mustSay(t, "bench/README.md", fmt.Sprintf("put the children at %.0f, %.0f and %.0f µs an event",
		p.us(t, watchBase), p.us(t, "zk-slim"), p.us(t, "zk-slim:wh1")), watchSource)

	// The prose quotes the runs by their start.
	r1114, r1040, r1145 := at(t, runs, "11:14"), at(t, runs, "10:40"), at(t, runs, "11:45")
	less := func(w *watchRun, from, to string) string {
		return fmt.Sprintf("%.0f → %.0f", w.us(t, from), w.us(t, to))
	}
	cut := func(w *watchRun, from, to string) float64 { return 100 * (1 - w.us(t, to)/w.us(t, from)) }
	switches := func(w *watchRun, inf string) float64 { _, sw := w.perEvent(inf); return med(sw) }
	mustSay(t, "bench/README.md", fmt.Sprintf("%s µs an event (−%.0f%%) and %.1f → %.1f switches in the 11:14 run, the whole client over HTTP/1.1 %s (−%.0f%%) in the 10:40 one",
		less(r1114, "zk-slim", "zk-slim:wh1"), cut(r1114, "zk-slim", "zk-slim:wh1"), switches(r1114, "zk-slim"), switches(r1114, "zk-slim:wh1"),
		less(r1040, "zk-slim", "zk-slim:h1"), cut(r1040, "zk-slim", "zk-slim:h1")), watchSource)
	mustSay(t, "bench/README.md", fmt.Sprintf("(%s and %s with `InlineProcessing` and a synchronous handler, %.1f → %.1f switches)",
		less(r1114, "zk-slim:wh1", "zk-slim:wh1+sync"), less(r1145, "zk-slim:wh1", "zk-slim:wh1+sync"),
		switches(r1114, "zk-slim:wh1"), switches(r1114, "zk-slim:wh1+sync")), watchSource)
	ratio := func(w *watchRun, inf string) float64 { return w.us(t, inf) / w.us(t, watchBase) }
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, w := range runsOf(runs, 1000) {
		lo, hi = math.Min(lo, ratio(w, "zk-slim")), math.Max(hi, ratio(w, "zk-slim"))
	}
	mustSay(t, "bench/README.md", fmt.Sprintf("(%.2f× and %.2f× in the two runs of four), nearly with `WatchHTTP1` alone (%s: −%.0f%% and −%.0f%% against the default), and missed by the default (%s×)",
		ratio(r1114, "zk-slim:wh1+sync"), ratio(r1145, "zk-slim:wh1+sync"),
		bothOrSpan(ratio(r1114, "zk-slim:wh1"), ratio(r1145, "zk-slim:wh1")),
		cut(r1114, "zk-slim", "zk-slim:wh1"), cut(r1145, "zk-slim", "zk-slim:wh1"), span("%.2f", lo, hi)), watchSource)
	mustSay(t, "bench/README.md", fmt.Sprintf("µs of its %.0f (", r1114.us(t, "zk-slim")), watchSource)
	mustSay(t, "bench/README.md", fmt.Sprintf("its informer adds goroutine hops of its own, %.1f switches an event", switches(r1114, watchBase)), watchSource)

	// docs/agents.md (both languages) puts the two cuts in words: about a
	// quarter with WatchHTTP1, two fifths with a synchronous handler too.
	for _, w := range []*watchRun{r1114, r1145} {
		require.InDelta(t, 25, cut(w, "zk-slim", "zk-slim:wh1"), 5, "docs/agents.md: WatchHTTP1 saves about a quarter, by %s's run at %s", watchSource, w.start.Format("15:04"))
		require.InDelta(t, 40, cut(w, "zk-slim", "zk-slim:wh1+sync"), 5, "docs/agents.md: with a synchronous handler about two fifths, by %s's run at %s", watchSource, w.start.Format("15:04"))
	}
	mustSay(t, "docs/agents.md", "falls by about a quarter, by about two fifths with `Options.Process.InlineProcessing`", watchSource)
	mustSay(t, "docs/agents.zh-CN.md", "大约少四分之一，再加上 `Options.Process.InlineProcessing` 和同步的事件处理函数，大约少五分之二", watchSource)
}

// bothOrSpan writes two ratios as the prose does: "0.53× in both" when
// they print alike, else their span.
func bothOrSpan(a, b float64) string {
	if s := span("%.2f", a, b); !strings.Contains(s, "–") {
		return s + "× in both"
	}
	return span("%.2f", a, b) + "×"
}
