package main

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLeaderElectOneDemoPrintsTheOtherWaitsAndTakesOver: two demos with
// --leader-elect on one server (a demo --serve): the first leads and
// prints the article's lines, the second says who leads and prints
// nothing; interrupting the first stops its informer, releases the Lease,
// and the second takes over and prints.
func TestLeaderElectOneDemoPrintsTheOtherWaitsAndTakesOver(t *testing.T) {
	server := startDemo(t, "--serve", "--churn=false")
	kubeconfig := waitFor(t, server.stderr, regexp.MustCompile(`demo: kubeconfig (\S+)`))[1]
	adds := regexp.MustCompile(`(?s)(Add:  default/example-\S+\n.*){3}`)

	first := startDemo(t, "--kubeconfig", kubeconfig, "--leader-elect")
	a := waitFor(t, first.stderr, regexp.MustCompile(`demo: (\S+) leads \(lease default/zerokube-demo\)`))[1]
	waitFor(t, first.stdout, adds)

	second := startDemo(t, "--kubeconfig", kubeconfig, "--leader-elect")
	waits := waitFor(t, second.stderr, regexp.MustCompile(`demo: (\S+) leads; (\S+) waits`))
	require.Equal(t, a, waits[1], "the second demo sees the first lead")
	b := waits[2]
	require.Empty(t, second.stdout.String(), "the waiting demo prints nothing")

	require.Equal(t, 0, first.stop(t))
	require.Regexp(t, `(?s)stopped the informer.*released lease default/zerokube-demo.*interrupted, shutting down`, first.stderr.String(),
		"the leader's informer stopped before it let the Lease go")
	waitFor(t, second.stderr, regexp.MustCompile(`demo: `+regexp.QuoteMeta(b)+` leads`))
	waitFor(t, second.stdout, adds)
	require.Equal(t, 0, second.stop(t))
}
