//go:build unix

package bench_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// scriptWrites runs a results script of bench/ with -dry-run and returns
// the files it says it would write, as absolute paths. TMPDIR is the
// test's own directory, so a default run's files land there.
func scriptWrites(t *testing.T, tmp, script string, args ...string) []string {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash on PATH")
	}
	cmd := exec.Command("bash", append([]string{script, "-dry-run"}, args...)...)
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "ZEROKUBE_RESULTS=")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s %s -dry-run:\n%s", script, strings.Join(args, " "), out)
	var files []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f, ok := strings.CutPrefix(line, "would write: ")
		require.True(t, ok, "%s printed %q", script, line)
		if !filepath.IsAbs(f) {
			f = filepath.Join("..", f)
		}
		abs, err := filepath.Abs(f)
		require.NoError(t, err)
		files = append(files, abs)
	}
	require.NotEmpty(t, files, "%s names no file it writes", script)
	return files
}

// TestResultScriptsWriteCommittedResultsOnlyWhenAsked: a benchmark run
// started to look at the numbers must not replace the results the docs'
// figures come from; only -write rewrites them. Regression: bench/run.sh
// and bench/clientgo/run.sh overwrote bench/RESULTS.md unless given -out.
func TestResultScriptsWriteCommittedResultsOnlyWhenAsked(t *testing.T) {
	bench, err := filepath.Abs(".")
	require.NoError(t, err)
	for _, c := range []struct {
		script    string
		args      []string
		committed []string // what -write rewrites, under bench/
	}{
		{"bench/run.sh", nil, []string{"RESULTS.md", "RESULTS.txt"}},
		{"bench/run.sh", []string{"-from", "old.txt"}, []string{"RESULTS.md", "RESULTS.txt"}},
		{"bench/clientgo/run.sh", nil, []string{"clientgo/RESULTS.jsonl", "clientgo/RESULTS.env", "RESULTS.md"}},
		{"bench/clientgo/run.sh", []string{"-append", "-servers", "fake"}, []string{"clientgo/RESULTS.jsonl", "clientgo/RESULTS.env", "RESULTS.md"}},
		{"bench/clientgo/run.sh", []string{"-report-only"}, []string{"RESULTS.md"}},
		{"bench/fleet/run.sh", nil, []string{"fleet/RESULTS.jsonl", "fleet/RESULTS.env", "fleet/RESULTS.md"}},
		{"bench/fleet/run.sh", []string{"-append", "-agents", "1000"}, []string{"fleet/RESULTS.jsonl", "fleet/RESULTS.env", "fleet/RESULTS.md"}},
		{"bench/fleet/run.sh", []string{"-report-only"}, []string{"fleet/RESULTS.md"}},
	} {
		name := c.script + " " + strings.Join(c.args, " ")
		tmp := t.TempDir()
		for _, f := range scriptWrites(t, tmp, c.script, c.args...) {
			require.True(t, strings.HasPrefix(f, tmp+string(filepath.Separator)),
				"%s without -write would write %s, outside TMPDIR (%s)", name, f, tmp)
		}
		var want []string
		for _, f := range c.committed {
			want = append(want, filepath.Join(bench, f))
		}
		require.ElementsMatch(t, want, scriptWrites(t, tmp, c.script, append([]string{"-write"}, c.args...)...),
			"what %s -write rewrites", name)
	}
}
