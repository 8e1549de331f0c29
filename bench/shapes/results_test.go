package shapes

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The committed results are the report of their samples: RESULTS.md ends
// with what `shapes -report RESULTS.jsonl` prints, so its tables (and the
// copy docs/agents.md carries) are figures of the run recorded beside
// them, not edited by hand.
func TestTheResultsAreTheReportOfTheirSamples(t *testing.T) {
	samples, err := ReadSamples("RESULTS.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, samples)
	md, err := os.ReadFile("RESULTS.md")
	require.NoError(t, err)
	require.True(t, strings.HasSuffix(string(md), Report(samples)),
		"RESULTS.md does not end with the report of RESULTS.jsonl; write it again with `go run ./bench/shapes/cmd/shapes -report bench/shapes/RESULTS.jsonl`")
	shapes := map[string]bool{}
	for _, s := range samples {
		shapes[s.Shape] = true
	}
	require.Len(t, shapes, len(All()), "every shape was measured")
}
