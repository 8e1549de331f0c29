package main

import (
	"log/slog"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
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
	require.Regexp(t, `(?s)stopped the informer.*released lease default/zerokube-demo.*stopping \(interrupted\)`, first.stderr.String(),
		"the leader's informer stopped before it let the Lease go")
	waitFor(t, second.stderr, regexp.MustCompile(`demo: `+regexp.QuoteMeta(b)+` leads`))
	waitFor(t, second.stdout, adds)
	require.Equal(t, 0, second.stop(t))
}

// TestLeaderElectReportsAFailedSync: a leader whose informer cannot sync
// gives the Lease up and exits with the one-line reason, as without
// --leader-elect, instead of leading with nothing to print.
func TestLeaderElectReportsAFailedSync(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: slog.New(slog.DiscardHandler),
		Tokens: []fakeapiserver.Token{{Value: "leases-only", Resources: []string{"leases"}}}})
	d := startDemo(t, "--kubeconfig", kubeconfigFor(t, srv.URL(), "leases-only"), "--leader-elect")
	select {
	case code := <-d.done:
		close(d.done)
		require.Equal(t, 1, code, "stderr:\n%s", d.stderr.String())
	case <-time.After(waitTimeout):
		t.Fatalf("the demo did not exit; stderr:\n%s", d.stderr.String())
	}
	require.Regexp(t, `(?s)leads \(lease default/zerokube-demo\).*demo: cannot sync v1/pods .*Forbidden`, d.stderr.String())
	require.NotContains(t, d.stderr.String(), "released lease", "the failure is the last line, not a release")
}
