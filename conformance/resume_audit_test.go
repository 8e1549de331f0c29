package conformance

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/conformance/kubetest"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
)

// Issue #40 on kube-apiserver itself: an agent's next process, resumed
// from the snapshot its predecessor left (which carries that process's
// TLS session), sends one request, its WATCH, where it used to send a
// GET of /version (or, before the session, a GET of the kube-system
// namespace and a LIST of one item) first. The witness is the audit log
// of a kube-apiserver of its own: every request the server received,
// by user agent (each process has its own).
func TestAResumedProcessSendsKubeAPIServerItsWatchAlone(t *testing.T) {
	dir := t.TempDir()
	policy, auditLog := filepath.Join(dir, "audit-policy.yaml"), filepath.Join(dir, "audit.log")
	require.NoError(t, os.WriteFile(policy, []byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n"), 0o600))
	srv := ownServer(t, kubetest.Options{ExtraArgs: []string{
		"--audit-policy-file=" + policy, "--audit-log-path=" + auditLog, "--audit-log-mode=blocking"}})
	tg := realTarget(t, srv)
	ns := tg.namespace(t)
	want := seed(t, tg, ns, 3)

	// process is tg whose clients say ua: a process of the agent.
	process := func(ua string) *target {
		p, cfg := *tg, *tg.cfg
		cfg.UserAgent = ua
		p.cfg = &cfg
		return &p
	}
	opts := informer.Options[*configMap]{Name: "agent", Snapshot: informer.SnapshotOptions{Dir: t.TempDir(), Period: -1}}
	first := startInformer(t, process("agent-first"), ns, opts, nil)
	first.awaitCache(t, want)
	first.stop()

	second := startInformer(t, process("agent-resumed"), ns, opts, nil)
	require.True(t, second.saw(observe.StageSnapshotLoaded), "resumed from the snapshot")
	require.Empty(t, second.relists())
	require.Eventually(t, func() bool { return second.saw(observe.StageWatchOpened) }, 30*time.Second, 10*time.Millisecond)
	second.stop()

	require.Equal(t, []string{"watch /api/v1/namespaces/" + ns + "/configmaps"}, received(t, auditLog, "agent-resumed"),
		"what kube-apiserver received from the resumed process")
	require.Contains(t, received(t, auditLog, "agent-first"), "list /api/v1/namespaces/"+ns+"/configmaps",
		"the first process listed (the log holds its requests too)")
}

// received lists "verb path" of each request the audit log at path has
// from user agent ua, in order.
func received(t *testing.T, path, ua string) []string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev struct {
			Stage      string `json:"stage"`
			Verb       string `json:"verb"`
			RequestURI string `json:"requestURI"`
			UserAgent  string `json:"userAgent"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &ev, json.RejectUnknownMembers(false)), "%s: %s", path, sc.Bytes())
		if ev.Stage != "RequestReceived" || ev.UserAgent != ua {
			continue
		}
		p, _, _ := strings.Cut(ev.RequestURI, "?")
		out = append(out, ev.Verb+" "+p)
	}
	require.NoError(t, sc.Err())
	return out
}
