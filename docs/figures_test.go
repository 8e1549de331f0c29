package docs

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// figuresSource is the one place the client-go comparison's figures come
// from: the "In short" table bench/run.sh writes into bench/RESULTS.md.
// Every copy of them in the README and docs/agents.md is checked against
// it, so a re-run that changes them fails here until the copies follow.
const figuresSource = "bench/RESULTS.md"

// figure is one row of the source: µs of CPU per synced pod, and the
// total over client-go protobuf's in the same mode.
type figure struct{ client, apiserver, total, ratio string }

// comparisonFigures reads the source's "In short" table, keyed by
// "informer:mode" as it names them (zk-slim:list, cg-proto:stream, …).
func comparisonFigures(t *testing.T) map[string]figure {
	t.Helper()
	src := read(t, figuresSource)
	i := strings.Index(src, "\nIn short (medians, µs of CPU per synced pod")
	require.GreaterOrEqual(t, i, 0, "%s has no \"In short\" table", figuresSource)
	row := regexp.MustCompile(`(?m)^\| 10000 \| [^|]+ \| (\S+) \| \S+ \| (\d+) \| (\d+) \| (\d+) \| ([\d.]+)× \|$`)
	figs := map[string]figure{}
	for _, line := range strings.Split(src[i:], "\n")[1:] {
		if line == "" && len(figs) > 0 {
			break
		}
		if m := row.FindStringSubmatch(line); m != nil {
			figs[m[1]] = figure{m[2], m[3], m[4], m[5]}
		}
	}
	require.Len(t, figs, 12, "the %s table's rows", figuresSource)
	return figs
}

// TestFiguresHaveOneSource: the README's comparison table and the sync CPU
// of docs/agents.md's sizing table are the source's figures. Regression:
// the two pages gave different figures for the same 10,000-pod LIST.
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
		require.True(t, strings.Contains(readme, want), "README.md's row %q disagrees with %s, which says:\n%s", name, figuresSource, want)
	}

	agents := read(t, "docs/agents.md")
	for name, key := range map[string]string{
		"`SlimMeta` + 3 fields":                             "zk-slim:list",
		"`meta.Raw` (the JSON kept, without managedFields)": "zk-raw:list",
		"client-go's typed pods, for scale":                 "cg-proto:list",
	} {
		row := regexp.MustCompile(`(?m)^\| ` + regexp.QuoteMeta(name) + ` \|.*\| (\d+) \+ (\d+) µs \|[^|]*\|$`).FindStringSubmatch(agents)
		require.NotNil(t, row, "docs/agents.md has no sizing row %q with a sync CPU", name)
		require.Equal(t, []string{figs[key].client, figs[key].apiserver}, row[1:],
			"docs/agents.md's sync CPU of %q disagrees with %s's %s", name, figuresSource, key)
	}
}
