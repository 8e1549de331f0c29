package docs

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The rollout's figures: the fleet's restart storms on kube-apiserver,
// per-node agents resumed from snapshots against client-go (issue 40,
// item 2). rolloutRaw holds every run's lines as `fleet -out` appended
// them; rolloutSource has one section per run, `fleet -report` of that
// run's lines under "## Run N" and the command that ran it.
const (
	rolloutRaw    = "bench/fleet/RESULTS-rollout.jsonl"
	rolloutSource = "bench/fleet/RESULTS-rollout.md"
)

// rolloutLine is the part of a fleet line the rollout's figures read.
type rolloutLine struct {
	Server  string `json:"server"`
	Shape   string `json:"shape"`
	Mode    string `json:"mode"`
	Agents  int    `json:"agents"`
	Restart struct {
		API float64 `json:"api_cpu_s"` // its idle rate discounted
	} `json:"restart"`
}

// rolloutRun is one fleet command's lines: one section of the source.
type rolloutRun struct {
	n       int // the section's number, "## Run n"
	command string
	lines   []rolloutLine
}

// sectionTitle starts a run's section in the source.
var sectionTitle = regexp.MustCompile(`(?m)^## Run (\d+)\b`)

// rolloutRuns splits the raw lines into the source's runs: each section's
// storm table has a row per line, in order, whose mode and restart CPU
// are the line's; every line belongs to a section.
func rolloutRuns(t *testing.T) []rolloutRun {
	t.Helper()
	lines := jsonLines[rolloutLine](t, rolloutRaw)
	src := read(t, rolloutSource)
	var runs []rolloutRun
	for _, m := range sectionTitle.FindAllStringSubmatch(src, -1) {
		n, err := strconv.Atoi(m[1])
		require.NoError(t, err)
		storm := tableAfter(t, rolloutSource, m[0], "| mode | initial sync by")
		section := src[strings.Index(src, m[0]):]
		cmd := regexp.MustCompile("(?m)^`((?:fleet|bench/fleet/run\\.sh) [^`]+)`").FindStringSubmatch(section)
		require.NotNil(t, cmd, "%s: %s names no fleet or bench/fleet/run.sh command at the start of a line", rolloutSource, m[0])
		run := rolloutRun{n: n, command: cmd[1]}
		for _, r := range storm.rows {
			require.NotEmpty(t, lines, "%s: %s has more rows than %s has lines", rolloutSource, m[0], rolloutRaw)
			l := lines[0]
			lines = lines[1:]
			require.Equal(t, r[0], l.Mode, "%s: %s's rows are not the next lines of %s", rolloutSource, m[0], rolloutRaw)
			require.Equal(t, r[storm.nth(t, "apiserver CPU (s)", 2)], fmt.Sprintf("%.2f", l.Restart.API),
				"%s: %s's restart storm of %s is not its line's in %s", rolloutSource, m[0], l.Mode, rolloutRaw)
			require.Equal(t, "kube-apiserver v1.37.2", l.Server, "%s: a line of %s", rolloutRaw, m[0])
			require.Equal(t, "pernode", l.Shape, "%s: a line of %s", rolloutRaw, m[0])
			require.True(t, len(run.lines) == 0 || run.lines[0].Agents == l.Agents, "%s: %s mixes fleet sizes", rolloutRaw, m[0])
			run.lines = append(run.lines, l)
		}
		runs = append(runs, run)
	}
	require.Empty(t, lines, "%s has %d lines after the last section of %s: add its section (fleet -report of those lines)", rolloutRaw, len(lines), rolloutSource)
	require.NotEmpty(t, runs, "%s has no \"## Run\" section", rolloutSource)
	return runs
}

// mean is the restart storm's mean apiserver CPU over mode's storms in the
// run, and whether it ran.
func (r rolloutRun) mean(mode string) (float64, bool) {
	sum, n := 0.0, 0
	for _, l := range r.lines {
		if l.Mode == mode {
			sum, n = sum+l.Restart.API, n+1
		}
	}
	return sum / float64(max(n, 1)), n > 0
}

// agents writes the run's fleet size as the docs do: 1,000.
func (r rolloutRun) agents() string {
	s := strconv.Itoa(r.lines[0].Agents)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// client-go's two modes, over which zerokube's are priced: its LIST mode
// and its default (a streaming list).
const cgList, cgDefault = "cg-list", "cg"

// ratios is mode's mean over client-go's in the run, LIST mode first,
// each where the run has it: "0.83× of cg-list, 0.35× of cg".
func (r rolloutRun) ratios(mode string) string {
	mine, _ := r.mean(mode)
	var out []string
	for _, cg := range []string{cgList, cgDefault} {
		if base, ok := r.mean(cg); ok {
			out = append(out, fmt.Sprintf("%.2f× of %s", mine/base, cg))
		}
	}
	return strings.Join(out, ", ")
}

// cell is mode's cell of the run in bench/README.md's rollout table.
func (r rolloutRun) cell(mode string) string {
	v, ok := r.mean(mode)
	switch {
	case !ok:
		return "—"
	case mode == cgList || mode == cgDefault || r.ratios(mode) == "":
		return fmt.Sprintf("%.2f s", v)
	}
	return fmt.Sprintf("%.2f s: %s", v, r.ratios(mode))
}

// latest is the last run with mode.
func latest(t *testing.T, runs []rolloutRun, mode string) rolloutRun {
	t.Helper()
	for i := len(runs) - 1; i >= 0; i-- {
		if _, ok := runs[i].mean(mode); ok {
			return runs[i]
		}
	}
	require.Failf(t, "no such run", "%s has no run of %s", rolloutRaw, mode)
	return rolloutRun{}
}

// TestTheRolloutFiguresHaveOneSource: bench/README.md's rollout table,
// one column per run it shows (the latest among them), one row per mode,
// each cell the mode's mean restart storm and its ratios to client-go's
// in that run, is what the raw lines say; so are the prose's figures and
// the README's headline, which quotes the latest run of the current
// resume (zk-snap) and names that run's command.
func TestTheRolloutFiguresHaveOneSource(t *testing.T) {
	runs := rolloutRuns(t)
	byN := map[int]rolloutRun{}
	for _, r := range runs {
		byN[r.n] = r
	}

	tb := tableAfter(t, "bench/README.md", "### What a resumed agent costs kube-apiserver", "| restart from |")
	column := regexp.MustCompile(`^run (\d+): ([\d,]+) agents\b`)
	var shown []rolloutRun
	for _, h := range tb.header[2:] {
		m := column.FindStringSubmatch(h)
		require.NotNil(t, m, "bench/README.md: the rollout table's column %q does not start \"run N: A agents\"", h)
		n, _ := strconv.Atoi(m[1])
		r, ok := byN[n]
		require.True(t, ok, "bench/README.md: the rollout table's column %q is no run of %s", h, rolloutSource)
		require.Equal(t, r.agents(), m[2], "bench/README.md: the rollout table's column %q: the run's agents", h)
		shown = append(shown, r)
	}
	require.Equal(t, runs[len(runs)-1].n, shown[len(shown)-1].n, "bench/README.md: the rollout table's last column is not %s's latest run", rolloutSource)

	modes := map[string]bool{}
	for _, row := range tb.rows {
		m := regexp.MustCompile("^`([^`]+)`").FindStringSubmatch(row[0])
		require.NotNil(t, m, "bench/README.md: the rollout row %q does not start with its mode", row[0])
		modes[m[1]] = true
		for k, r := range shown {
			require.Equal(t, r.cell(m[1]), strings.ReplaceAll(row[2+k], "**", ""),
				"bench/README.md: the rollout table's %s in run %d disagrees with %s", m[1], r.n, rolloutRaw)
		}
	}
	for _, r := range shown {
		for _, l := range r.lines {
			require.True(t, modes[l.Mode], "bench/README.md: the rollout table has no row for %s, which run %d ran", l.Mode, r.n)
		}
	}

	// What the session saved, in the runs of its first version beside the
	// snapshots without it: 100 agents, then 1,000.
	saved := map[int][]float64{}
	for _, r := range runs {
		v1, ok1 := r.mean("zk-snap-v1")
		notls, ok2 := r.mean("zk-snap-notls")
		if ok1 && ok2 {
			saved[r.lines[0].Agents] = append(saved[r.lines[0].Agents], v1/notls)
		}
	}
	spanOf := func(v []float64) string {
		require.NotEmpty(t, v, "%s: no run of zk-snap-v1 beside zk-snap-notls", rolloutRaw)
		lo, hi := v[0], v[0]
		for _, x := range v {
			lo, hi = min(lo, x), max(hi, x)
		}
		return span("%.2f", lo, hi)
	}
	mustSay(t, "bench/README.md", fmt.Sprintf("the session cuts a resumed agent's cost to %s× (100 agents) and %s× (1,000) of what it was",
		spanOf(saved[100]), spanOf(saved[1000])), rolloutRaw)

	// The README's headline: the latest run of zk-snap, and its command.
	r := latest(t, runs, "zk-snap")
	require.Contains(t, r.command, "-shapes pernode", "%s: run %d", rolloutSource, r.n)
	// The run's fleet flags, whether it ran fleet itself or through run.sh.
	flags := regexp.MustCompile(`^(?:fleet -server kube -cgfleet \S+ -out \S+|bench/fleet/run\.sh -servers "?kube"? -no-footprint) (.*)$`).FindStringSubmatch(r.command)
	require.NotNil(t, flags, "%s: run %d's command %q is neither fleet's against kube nor run.sh's with -no-footprint", rolloutSource, r.n, r.command)
	ratios := strings.NewReplacer("of cg-list", "of client-go's LIST mode", "of cg", "of its default").Replace(r.ratios("zk-snap"))
	mustContain(t, "README.md", fmt.Sprintf("| %s per-node agents restarting at once from snapshots: kube-apiserver %s (run %d) | [%s](%s) | `bench/fleet/run.sh -servers kube -no-footprint %s` |",
		r.agents(), ratios, r.n, rolloutSource, rolloutSource, flags[1]), rolloutSource)
}
