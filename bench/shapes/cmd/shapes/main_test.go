package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The command as docs/agents.md runs it, on fakeapiserver and a small
// cluster: it appends a sample per shape and round, and -report turns
// them into the tables.
func TestTheCommandMeasuresAndReports(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the command")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "shapes")
	build := exec.Command("go", "build", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build:\n%s", out)
	samples := filepath.Join(dir, "shapes.jsonl")
	run := exec.Command(bin, "-server", "fake", "-nodes", "2", "-pods-per-node", "3", "-pod-size", "0",
		"-rounds", "2", "-lock", "", "-shapes", "^whole/list-rv0/", "-out", samples)
	out, err = run.CombinedOutput()
	require.NoError(t, err, "%s:\n%s", run, out)
	b, err := os.ReadFile(samples)
	require.NoError(t, err)
	require.Equal(t, 2*8, strings.Count(string(b), "\n"), "a line per shape (8 matched) and round:\n%s", b)
	report := exec.Command(bin, "-report", samples)
	out, err = report.CombinedOutput()
	require.NoError(t, err, "%s:\n%s", report, out)
	require.Contains(t, string(out), "16 samples over 2 rounds")
	require.Contains(t, string(out), "| whole | list-rv0 | per node |")
}
