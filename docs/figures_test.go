package docs

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Every figure the README, docs/agents.md and bench/README.md publish is a
// copy of a cell of one source: a results file a script writes (with
// -write), or for older runs the record that keeps them. The tests here
// read each source and fail when a copy differs, so a re-run that changes
// a figure fails until its copies follow.
const (
	// comparisonSource: the client-go comparison against kube-apiserver,
	// written by bench/clientgo/run.sh.
	comparisonSource = "bench/RESULTS.md"
	// fleetSource: the fleet and the minimal agent's footprint, written
	// by bench/fleet/run.sh.
	fleetSource = "bench/fleet/RESULTS.md"
	// footprintSource: the minimal agent's footprint against the floor
	// agent, as go build makes it and static (issue 40, item 4).
	footprintSource = "bench/fleet/RESULTS-footprint.md"
	// scaleSource: the 10,000 / 50,000 / 100,000-pod run (JSON), kept in
	// the record of earlier runs.
	scaleSource = "bench/HISTORY.md"
	// jsonSource: issue #23's run, the last to measure zerokube in JSON.
	jsonSource = "bench/RESULTS-issue23.md"
)

// table is a Markdown table of a source.
type table struct {
	path   string
	header []string
	rows   [][]string
}

// tableAfter is the first Markdown table from the first line of path
// that starts with the last marker (the table's own header, or a line
// above it), each marker searched for after the one before it.
func tableAfter(t *testing.T, path string, markers ...string) table {
	t.Helper()
	src := read(t, path)
	for _, m := range markers {
		i := strings.Index("\n"+src, "\n"+m)
		require.GreaterOrEqual(t, i, 0, "%s has no line starting %q after %q", path, m, markers)
		src = src[i:]
	}
	tb := table{path: path}
	for _, line := range strings.Split(src, "\n") {
		if !strings.HasPrefix(line, "|") {
			if tb.header != nil {
				break
			}
			continue
		}
		cells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|"), "|")
		for k := range cells {
			cells[k] = strings.TrimSpace(cells[k])
		}
		switch {
		case tb.header == nil:
			tb.header = cells
		case strings.HasPrefix(line, "|---"):
		default:
			tb.rows = append(tb.rows, cells)
		}
	}
	require.NotEmpty(t, tb.rows, "%s: no table after %q", path, markers)
	return tb
}

// col is the index of the column named name.
func (tb table) col(t *testing.T, name string) int {
	t.Helper()
	for i, h := range tb.header {
		if h == name {
			return i
		}
	}
	require.Failf(t, "no such column", "%s: a table has no column %q (it has %q)", tb.path, name, tb.header)
	return -1
}

// cell is the named column of the row whose cells in the key columns
// are the given values (key column name, then value, repeated).
func (tb table) cell(t *testing.T, name string, key ...string) string {
	t.Helper()
	c := tb.col(t, name)
rows:
	for _, r := range tb.rows {
		for k := 0; k+1 < len(key); k += 2 {
			if i := tb.col(t, key[k]); i >= len(r) || r[i] != key[k+1] {
				continue rows
			}
		}
		require.Less(t, c, len(r), "%s: row %q is short", tb.path, r)
		return r[c]
	}
	require.Failf(t, "no such row", "%s: no row with %q", tb.path, key)
	return ""
}

// median is a cell's first number: "733.3 (729.8–736.6)" is 733.3.
func median(t *testing.T, cell string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(strings.TrimSuffix(strings.Fields(cell)[0], "×"), 64)
	require.NoError(t, err, "cell %q", cell)
	return f
}

// span writes two figures as the docs do, "lo–hi", each with format.
func span(format string, a, b float64) string {
	lo, hi := fmt.Sprintf(format, math.Min(a, b)), fmt.Sprintf(format, math.Max(a, b))
	if lo == hi {
		return lo
	}
	return lo + "–" + hi
}

// kb writes bytes as the docs do: 0.73 KB under one, 5.1 KB over.
func kb(b float64) string {
	if b < 1000 {
		return fmt.Sprintf("%.2f", b/1000)
	}
	return fmt.Sprintf("%.1f", b/1000)
}

// mustContain fails unless doc holds want, naming the source it copies.
func mustContain(t *testing.T, doc, want, source string) {
	t.Helper()
	require.True(t, strings.Contains(read(t, doc), want), "%s does not say %q, which is what %s says", doc, want, source)
}

// figure is one row of the comparison's "In short" table: µs of CPU per
// synced pod, and the total over client-go protobuf's in the same mode.
type figure struct{ client, apiserver, total, ratio string }

// comparisonFigures reads the source's "In short" table, keyed by
// "informer:mode" as it names them (zk-slim:list, cg-proto:stream, …).
func comparisonFigures(t *testing.T) map[string]figure {
	t.Helper()
	tb := tableAfter(t, comparisonSource, "In short (medians, µs of CPU per synced pod")
	figs := map[string]figure{}
	for _, r := range tb.rows {
		if r[tb.col(t, "pods")] == "10000" {
			figs[r[tb.col(t, "informer")]] = figure{r[tb.col(t, "client")], r[tb.col(t, "apiserver")],
				r[tb.col(t, "client + apiserver")], strings.TrimSuffix(r[tb.col(t, "× client-go protobuf")], "×")}
		}
	}
	require.Len(t, figs, 12, "the %s table's rows", comparisonSource)
	return figs
}

// TestFiguresHaveOneSource: the README's comparison table is the source's
// "In short" table.
func TestFiguresHaveOneSource(t *testing.T) {
	figs := comparisonFigures(t)
	cell := func(f figure) string {
		return f.client + " | " + f.apiserver + " | " + f.total + " (" + f.ratio + "×)"
	}

	readme := read(t, "README.md")
	for name, keys := range map[string][2]string{
		"client-go | JSON":                        {"cg-json:list", "cg-json:stream"},
		"client-go | protobuf":                    {"cg-proto:list", "cg-proto:stream"},
		"zerokube meta.Raw | protobuf":            {"zk-raw:list", "zk-raw:stream"},
		"zerokube SlimMeta + 3 fields | protobuf": {"zk-slim:list", "zk-slim:stream"},
		"zerokube metadata only | protobuf":       {"zk-meta:list", "zk-meta:stream"},
		"client-go metadata informer | protobuf":  {"cg-meta:list", "cg-meta:stream"},
	} {
		want := "| " + name + " | " + cell(figs[keys[0]]) + " | " + cell(figs[keys[1]]) + " |"
		require.True(t, strings.Contains(readme, want), "README.md's row %q disagrees with %s, which says:\n%s", name, comparisonSource, want)
	}

}

// TestTheReadmesHeadlineFiguresHaveOneSource: the figures the README gives
// beside its table (a watch event, the heap a pod keeps, the minimal
// agent) are their sources' cells.
func TestTheReadmesHeadlineFiguresHaveOneSource(t *testing.T) {
	kube := tableAfter(t, comparisonSource, "### Server: a real kube-apiserver")
	retained := func(v string) string { return kb(median(t, kube.cell(t, "retained / object (B)", "informer", v))) }
	mustContain(t, "README.md", fmt.Sprintf("retained a pod: `SlimMeta` %s KB, `meta.Raw` %s KB, client-go's typed pods %s KB",
		retained("zk-slim:list"), retained("zk-raw:list"), retained("cg-proto:list")), comparisonSource)

	targets := tableAfter(t, comparisonSource, "Targets of issue #23")
	watch := func(mode string) float64 {
		return median(t, targets.cell(t, "ratio", "target", "watch client CPU / event", "zerokube / client-go", "zk-slim:"+mode+" / cg-proto:"+mode))
	}
	mustContain(t, "README.md", "a watch event: SlimMeta's client "+span("%.2f", watch("list"), watch("stream"))+"×", comparisonSource)

	// The restart storm's figure is the rollout's: TestTheRolloutFiguresHaveOneSource.

	fp := tableAfter(t, footprintSource, "## As `go build` makes them", "Minimal per-node agent")
	onKube := func(col, who string) string { return fp.cell(t, col, "server", "kube-apiserver v1.37.2", "agent", who) }
	onFake := func(col, who string) string { return fp.cell(t, col, "server", "fakeapiserver", "agent", who) }
	for _, who := range []string{"zerokube", "client-go"} {
		require.Equal(t, onKube("binary (MB)", who), onFake("binary (MB)", who), "%s: %s's binary differs between the servers", footprintSource, who)
	}
	mustContain(t, "README.md", fmt.Sprintf("minimal agent %s MB, %s MiB idle on kube-apiserver, %s MiB on the fake (client-go's %s MB, %s and %s MiB)",
		onKube("binary (MB)", "zerokube"), onKube("RSS after idle (MiB)", "zerokube"), onFake("RSS after idle (MiB)", "zerokube"),
		onKube("binary (MB)", "client-go"), onKube("RSS after idle (MiB)", "client-go"), onFake("RSS after idle (MiB)", "client-go")), footprintSource)
}

// TestTheSizingGuidesFiguresHaveOneSource: docs/agents.md's memory columns
// are the scale run's, its watch column and the CPU a watch costs the
// current comparison's, its JSON figures issue #23's.
func TestTheSizingGuidesFiguresHaveOneSource(t *testing.T) {
	scale := tableAfter(t, scaleSource, "## Side by side with client-go (as the README published it")
	figs := comparisonFigures(t)
	kube := tableAfter(t, comparisonSource, "### Server: a real kube-apiserver")
	watch := func(v string) (list, stream float64) {
		return median(t, kube.cell(t, "watch CPU / event (µs)", "informer", v+":list")),
			median(t, kube.cell(t, "watch CPU / event (µs)", "informer", v+":stream"))
	}
	metric := scale.header[0]
	for _, c := range []struct{ row, scaleCol, variant string }{
		{"`SlimMeta` + 3 fields", "zerokube, `SlimMeta` + 3 fields", "zk-slim"},
		{"whole `ObjectMeta` + 3 fields", "zerokube, whole `ObjectMeta` + 3 fields", ""},
		{"`meta.Raw` (the JSON kept, without managedFields)", "zerokube `meta.Raw`", "zk-raw"},
		{"client-go's typed pods, for scale", "client-go, protobuf", "cg-proto"},
	} {
		sync, perEvent := "", "—"
		if c.variant != "" {
			f := figs[c.variant+":list"]
			sync = f.client + " + " + f.apiserver + " µs"
			perEvent = span("%.0f", first(watch(c.variant)), second(watch(c.variant))) + " µs"
		} else {
			// Measured in JSON only, in the scale run: its range over the sizes.
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, v := range strings.Split(strings.TrimSuffix(scale.cell(t, c.scaleCol, metric, "sync CPU per pod"), " µs"), " / ") {
				f, err := strconv.ParseFloat(v, 64)
				require.NoError(t, err, "%s: sync CPU %q", scaleSource, v)
				lo, hi = math.Min(lo, f), math.Max(hi, f)
			}
			sync = "not measured in protobuf (" + span("%.0f", lo, hi) + " µs client in JSON)"
		}
		mustContain(t, "docs/agents.md", "| "+c.row+" | "+scale.cell(t, c.scaleCol, metric, "heap retained per pod")+" | "+
			scale.cell(t, c.scaleCol, metric, "peak RSS during the sync")+" | "+sync+" | "+perEvent+" |",
			scaleSource+" (memory) and "+comparisonSource+" (CPU)")
	}

	list, stream := watch("zk-slim")
	mustContain(t, "docs/agents.md", "A watch event costs "+span("%.2f", list/1000, stream/1000)+" ms at 250 events a second", comparisonSource)
	mustContain(t, "docs/agents.md", "changes 100 times a second spends\n  "+span("%.1f", list/100, stream/100)+"% of a core", comparisonSource)

	short := tableAfter(t, jsonSource, "In short (medians, µs of CPU per synced pod")
	at := func(col, pods, informer string) float64 {
		return median(t, short.cell(t, col, "pods", pods, "informer", informer))
	}
	mustContain(t, "docs/agents.md", fmt.Sprintf("protobuf with `SlimMeta` (%s µs a pod)\n  and the API server almost twice (%s µs a pod)",
		span("%.0f", at("client", "10000", "zk-slim:json"), at("client", "50000", "zk-slim:json")),
		span("%.0f", at("apiserver", "10000", "zk-slim:json"), at("apiserver", "50000", "zk-slim:json"))), jsonSource)
	mustContain(t, "docs/agents.md", fmt.Sprintf("a paged LIST (%.0f µs a pod in protobuf, %.0f\n  in JSON)",
		at("apiserver", "10000", "zk-slim:stream"), at("apiserver", "10000", "zk-slim:stream+json")), jsonSource)
}

func first(a, _ float64) float64  { return a }
func second(_, b float64) float64 { return b }

// TestTheReadmesCommandsReproduceTheirSources: each command the README
// names for its figures is a command its source records having run (the
// comparison's "-variants readme" standing for the twelve rows of the
// source's "In short" table), and run as shown it writes under TMPDIR,
// leaving the source alone.
func TestTheReadmesCommandsReproduceTheirSources(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash on PATH")
	}
	var readmeVariants []string
	short := tableAfter(t, comparisonSource, "In short (medians, µs of CPU per synced pod")
	for _, r := range short.rows {
		readmeVariants = append(readmeVariants, r[short.col(t, "informer")])
	}
	// The first table under each source's title says what ran.
	title := map[string]string{comparisonSource: "## Side by side with client-go", fleetSource: "# Fleet benchmark results"}
	recorded := func(source string) string {
		require.Contains(t, title, source, "README.md names a source this test does not know")
		for _, r := range tableAfter(t, source, title[source]).rows {
			if len(r) == 2 && r[0] == "command" {
				return strings.ReplaceAll(r[1], `"`, "")
			}
		}
		require.Failf(t, "no command", "%s records no command under %q", source, title[source])
		return ""
	}
	figures := tableAfter(t, "README.md", "| figures | source | command | time |")
	require.Len(t, figures.rows, 3, "the README's figures and their commands")
	for _, r := range figures.rows {
		cmd := strings.Trim(r[figures.col(t, "command")], "`")
		source := regexp.MustCompile(`^\[([^]]+)\]`).FindStringSubmatch(r[figures.col(t, "source")])
		require.NotNil(t, source, "README.md: the source of %q is not a link", cmd)
		require.Regexp(t, `^\d+ min$`, r[figures.col(t, "time")], "README.md: how long %q takes", cmd)

		tmp := t.TempDir()
		run := exec.Command("bash", "-c", cmd+" -dry-run")
		run.Dir, run.Env = root, append(os.Environ(), "TMPDIR="+tmp, "ZEROKUBE_RESULTS=")
		out, err := run.CombinedOutput()
		require.NoError(t, err, "README.md's %q with -dry-run:\n%s", cmd, out)
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			require.True(t, strings.HasPrefix(line, "would write: "+tmp+"/"), "README.md's %q would write %q, outside TMPDIR", cmd, line)
		}

		if strings.Contains(cmd, "-footprint-only") {
			continue // the footprint is measured before the fleet, by any fleet command
		}
		if source[1] == rolloutSource {
			continue // its run's own command: TestTheRolloutFiguresHaveOneSource
		}
		full := strings.ReplaceAll(strings.ReplaceAll(cmd, `"`, ""), "-variants readme", "-variants "+strings.Join(readmeVariants, ","))
		had := strings.ReplaceAll(recorded(source[1]), "-append ", "")
		require.True(t, strings.Contains(had, full), "README.md's %q is not a command %s records:\n%s", cmd, source[1], had)
	}
}

// TestTheBenchReadmesCopiesHaveOneSource: bench/README.md's table of
// issue 32's targets and its footprint table are their sources' cells.
func TestTheBenchReadmesCopiesHaveOneSource(t *testing.T) {
	figs := comparisonFigures(t)
	ratio := func(tb table, key ...string) string {
		return fmt.Sprintf("%.2f×", median(t, tb.cell(t, "ratio", key...)))
	}
	rng := func(tb table, key ...string) string {
		lo, hi, ok := strings.Cut(tb.cell(t, "range", key...), "–")
		require.True(t, ok, "%s: range of %q", tb.path, key)
		return span("%.2f", median(t, lo), median(t, hi))
	}
	t23 := tableAfter(t, comparisonSource, "Targets of issue #23")
	watch := func(mode string) []string {
		return []string{"target", "watch client CPU / event", "zerokube / client-go", "zk-slim:" + mode + " / cg-proto:" + mode}
	}
	t32 := tableAfter(t, comparisonSource, "Targets of issue #32")
	meta := func(mode, of string) []string {
		return []string{"zerokube / client-go", "zk-meta:" + mode + " / " + of + ":" + mode}
	}
	for _, want := range []string{
		fmt.Sprintf("| `SlimMeta` client ≤ 15 µs a pod | %s (before: 34) | %s |", figs["zk-slim:list"].client, figs["zk-slim:stream"].client),
		fmt.Sprintf("| watch client CPU per event ≤ 0.5×, `SlimMeta` | %s (%s) | %s (%s) |",
			ratio(t23, watch("list")...), rng(t23, watch("list")...), ratio(t23, watch("stream")...), rng(t23, watch("stream")...)),
		fmt.Sprintf("| metadata only, client + apiserver ≤ 0.3× of client-go protobuf | %s (8 runs; range %s) | %s (%s) |",
			ratio(t32, meta("list", "cg-proto")...), rng(t32, meta("list", "cg-proto")...),
			ratio(t32, meta("stream", "cg-proto")...), rng(t32, meta("stream", "cg-proto")...)),
		fmt.Sprintf("| metadata only ≤ client-go's metadata informer | %s | %s |", ratio(t32, meta("list", "cg-meta")...), ratio(t32, meta("stream", "cg-meta")...)),
	} {
		mustContain(t, "bench/README.md", want, comparisonSource)
	}

	built := tableAfter(t, footprintSource, "## As `go build` makes them", "Minimal per-node agent")
	static := tableAfter(t, footprintSource, "## Static", "Minimal per-node agent")
	builtX := tableAfter(t, footprintSource, "## As `go build` makes them", "Each agent over client-go's")
	staticX := tableAfter(t, footprintSource, "## Static", "Each agent over client-go's")
	for _, server := range []string{"kube-apiserver v1.37.2", "fakeapiserver"} {
		c := func(tb table, col, agent string) string { return tb.cell(t, col, "server", server, "agent", agent) }
		for _, agent := range []string{"zerokube", "client-go", "floor"} {
			mustContain(t, "bench/README.md", fmt.Sprintf("| %s | %s | %s MB | %s MiB | %s MiB | %s MiB |", server, agent,
				c(built, "binary (MB)", agent), c(built, "RSS after idle (MiB)", agent), c(built, "of which anonymous (MiB)", agent),
				c(static, "RSS after idle (MiB)", agent)), footprintSource)
		}
		// The targets' columns are in bold in the zerokube row.
		for agent, b := range map[string]string{"zerokube": "**", "floor": ""} {
			mustContain(t, "bench/README.md", fmt.Sprintf("| %s | %s / client-go | %s%s%s | %s%s%s | %s | %s%s%s |", server, agent,
				b, c(builtX, "binary", agent), b, b, c(builtX, "RSS after idle", agent), b, c(builtX, "anonymous", agent),
				b, c(staticX, "RSS after idle", agent), b), footprintSource)
		}
	}
}

// TestTheFakesComparisonFiguresHaveOneSource: what bench/README.md says
// of the comparison against the fake is the fake's "In short" table.
func TestTheFakesComparisonFiguresHaveOneSource(t *testing.T) {
	short := tableAfter(t, comparisonSource, "### Server: cmd/fakeapiserver", "In short (medians, µs of CPU per synced pod")
	c := func(col, informer string) string { return short.cell(t, col, "pods", "10000", "informer", informer) }
	mustContain(t, "bench/README.md", fmt.Sprintf("paged\nLIST, `SlimMeta` %s µs, client-go %s; streaming, %s and %s.",
		c("client", "zk-slim:list"), c("client", "cg-proto:list"), c("client", "zk-slim:stream"), c("client", "cg-proto:stream")), comparisonSource)
	mustContain(t, "bench/README.md", fmt.Sprintf("so a JSON LIST costs it %s µs\na pod, a protobuf one %s (transcoded for each request) and\nPartialObjectMetadata %s:",
		c("apiserver", "cg-json:list"), c("apiserver", "cg-proto:list"), c("apiserver", "zk-meta:list")), comparisonSource)
}

// nth is the index of the n-th column (from 1) named name: the fleet's
// storm tables name the initial and the restart storm's columns alike.
func (tb table) nth(t *testing.T, name string, n int) int {
	t.Helper()
	for i, h := range tb.header {
		if h == name {
			if n--; n == 0 {
				return i
			}
		}
	}
	require.Failf(t, "no such column", "%s: a table has no column %q number %d (it has %q)", tb.path, name, n, tb.header)
	return -1
}

// TestTheFakesFleetFiguresHaveOneSource: bench/README.md's table of the
// fleet against the fake is the fleet source's, row by row.
func TestTheFakesFleetFiguresHaveOneSource(t *testing.T) {
	sections := map[string]string{
		"100 per node":       "**fakeapiserver, one agent per node, its node's pods by field selector: 100 agents, 1000 pods**",
		"1,000 per node":     "**fakeapiserver, one agent per node, its node's pods by field selector: 1000 agents, 10000 pods**",
		"10 shards of 1,000": "**fakeapiserver, replicas sharding every pod (shardSelector): 10 agents, 1000 pods**",
	}
	copied := tableAfter(t, "bench/README.md", "### fakeapiserver", "| shape | mode |")
	shape := ""
	for _, r := range copied.rows {
		if s := r[copied.col(t, "shape")]; s != "" {
			shape = s
		}
		require.Contains(t, sections, shape, "bench/README.md's fleet table has a shape its source does not")
		mode := r[copied.col(t, "mode")]
		storm := tableAfter(t, fleetSource, sections[shape], "| mode | initial sync by")
		steady := tableAfter(t, fleetSource, sections[shape], "| mode | quiet")
		s := func(col string, n int) string {
			for _, sr := range storm.rows {
				if sr[0] == mode {
					return sr[storm.nth(t, col, n)]
				}
			}
			require.Failf(t, "no such row", "%s: no %s row %q", fleetSource, shape, mode)
			return ""
		}
		ratio := "1"
		if mode != "cg" {
			mine, err := strconv.ParseFloat(s("apiserver CPU (s)", 2), 64)
			require.NoError(t, err)
			for _, sr := range storm.rows {
				if sr[0] == "cg" {
					cg, err := strconv.ParseFloat(sr[storm.nth(t, "apiserver CPU (s)", 2)], 64)
					require.NoError(t, err)
					ratio = fmt.Sprintf("%.2f×", mine/cg)
				}
			}
		}
		want := []string{s("initial sync by", 1), s("apiserver CPU (s)", 1), s("agents CPU (s)", 1),
			s("restart by", 1), s("apiserver CPU (s)", 2), ratio, s("agents CPU (s)", 2),
			steady.cell(t, "apiserver µs / event", "mode", mode), steady.cell(t, "agents µs / event", "mode", mode),
			steady.cell(t, "agents RSS (MiB)", "mode", mode)}
		require.Equal(t, want, r[2:], "bench/README.md's fleet row %s %s disagrees with %s", shape, mode, fleetSource)
	}
}

// TestTheAgentGuidesFootprintHasOneSource: docs/agents.md and its
// translation give the minimal agent's footprint on both servers, as
// RESULTS-footprint.md has it (line breaks aside).
func TestTheAgentGuidesFootprintHasOneSource(t *testing.T) {
	built := tableAfter(t, footprintSource, "## As `go build` makes them", "Minimal per-node agent")
	static := tableAfter(t, footprintSource, "## Static", "Minimal per-node agent")
	builtX := tableAfter(t, footprintSource, "## As `go build` makes them", "Each agent over client-go's")
	staticX := tableAfter(t, footprintSource, "## Static", "Each agent over client-go's")
	const kube, fake = "kube-apiserver v1.37.2", "fakeapiserver"
	c := func(tb table, col, server string) string {
		return tb.cell(t, col, "server", server, "agent", "zerokube")
	}
	// One figure stands for both servers where the doc says "on either".
	for _, x := range []struct {
		tb  table
		col string
	}{{static, "RSS after idle (MiB)"}, {builtX, "binary"}, {builtX, "RSS after idle"}, {staticX, "RSS after idle"}} {
		require.Equal(t, c(x.tb, x.col, kube), c(x.tb, x.col, fake), "%s: zerokube's %q differs between the servers; the docs say one figure", footprintSource, x.col)
	}
	flat := func(doc string) string { return strings.Join(strings.Fields(read(t, doc)), " ") }
	for doc, format := range map[string]string{
		"docs/agents.md":       "is %s MB and holds %s MiB idle on kube-apiserver v1.37.2, %s MiB on fakeapiserver (%s MiB on either built `CGO_ENABLED=0`), %s and %s (%s) of the same agent written with client-go on either server",
		"docs/agents.zh-CN.md": "每节点代理是 %s MB，空闲时在 kube-apiserver v1.37.2 上占 %s MiB RSS，在 fakeapiserver 上占 %s MiB（用 `CGO_ENABLED=0` 构建，两者都是 %s MiB），在两种服务器上都分别是用 client-go 写的同一个代理的 %s 和 %s（%s）",
	} {
		want := fmt.Sprintf(format, c(built, "binary (MB)", kube), c(built, "RSS after idle (MiB)", kube), c(built, "RSS after idle (MiB)", fake),
			c(static, "RSS after idle (MiB)", kube), c(builtX, "binary", kube), c(builtX, "RSS after idle", kube), c(staticX, "RSS after idle", kube))
		require.True(t, strings.Contains(flat(doc), want), "%s does not say %q, which is what %s says", doc, want, footprintSource)
	}
}
