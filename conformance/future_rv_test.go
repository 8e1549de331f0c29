package conformance

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/conformance/kubetest"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/snapshot"
)

// A resourceVersion the server's history has not reached: what a client
// holds after the cluster behind a URL was made anew or restored from an
// older backup (issue #38). A snapshot's resume depends on these answers:
// the WATCH is accepted and says nothing, so only the LIST can tell.
var futureScenarios = []scenario{
	{name: "watch/future-resource-version", run: func(t *testing.T, tg *target, o *obs) {
		ns := tg.namespace(t)
		rv := rvNum(makeConfigMaps(t, tg, ns, 1))
		start := time.Now()
		w := tg.watch(t, "/api/v1/namespaces/"+ns+"/configmaps?watch=1&allowWatchBookmarks=true&timeoutSeconds=2&resourceVersion="+
			strconv.FormatUint(rv+1_000_000, 10))
		o.add("watch %d", w.code)
		for ev, ok := w.next(t); ok; ev, ok = w.next(t) {
			o.add("event %s", describe(o, ev))
		}
		// Ended by its timeout, not at once: silent, not refused.
		o.add("ended after its timeout: %t", time.Since(start) >= 1500*time.Millisecond)
	}},
	{name: "watch/near-future-resource-version", run: func(t *testing.T, tg *target, o *obs) {
		// Once the history reaches it, the watch sends what comes after
		// it, and nothing at or before it. (How many writes fall before it
		// depends on what else the server writes meanwhile: not observed.)
		ns := tg.namespace(t)
		p := "/api/v1/namespaces/" + ns + "/configmaps"
		from := rvNum(makeConfigMaps(t, tg, ns, 1)) + 2
		w := tg.watch(t, p+"?watch=1&resourceVersion="+strconv.FormatUint(from, 10))
		o.add("watch %d", w.code)
		for _, name := range []string{"w1", "w2", "w3", "sentinel"} {
			tg.must(t, 201, "POST", p, cmJSON(name))
		}
		newer := true
		for _, ev := range w.until(t, "sentinel") {
			newer = newer && rvNum(at(ev.Object, "metadata.resourceVersion")) > from
		}
		o.add("the sentinel came; every event before it is newer than the watch's rv: %t", newer)
	}},
	{name: "list/future-resource-version-one-item", run: func(t *testing.T, tg *target, o *obs) {
		// What the informer asks to check a snapshot's resourceVersion:
		// one item at least as new as it.
		ns := tg.namespace(t)
		rv := rvNum(makeConfigMaps(t, tg, ns, 1))
		p := "/api/v1/namespaces/" + ns + "/configmaps?limit=1&resourceVersionMatch=NotOlderThan&resourceVersion="
		r := tg.do(t, "GET", p+strconv.FormatUint(rv+1_000_000, 10), "")
		o.add("%s", status(r))
		r = tg.do(t, "GET", p+strconv.FormatUint(rv, 10), "")
		o.add("at the last write's rv: %d items=%s", r.code, names(r.body))
	}},
}

// withoutWatchCache are the observations of futureScenarios that differ
// without the watch cache: etcd answers the LIST at once (with the cache,
// after about 3 s of waiting for it to catch up) and gives no retry hint.
var withoutWatchCache = map[string][]string{
	"list/future-resource-version-one-item": {
		`504 Status/Timeout details{name=<none> group=<none> kind=<none> cause{ResourceVersionTooLarge <none> "Too large resource version"}}`,
		`at the last write's rv: 200 items=c0`,
	},
}

// TestAFutureResourceVersionWithoutTheWatchCache runs futureScenarios on a
// kube-apiserver of its own started with --watch-cache=false, where
// WATCH and LIST are served by etcd, not by the watch cache: the answers
// must be the documented ones but for withoutWatchCache (the shared
// server, with its watch cache, runs them in TestConformance).
func TestAFutureResourceVersionWithoutTheWatchCache(t *testing.T) {
	srv := ownServer(t, kubetest.Options{ExtraArgs: []string{"--watch-cache=false"}})
	for _, sc := range futureScenarios {
		t.Run(sc.name, func(t *testing.T) {
			want, ok := withoutWatchCache[sc.name]
			if !ok {
				want = documented[sc.name]
			}
			require.Equal(t, want, observeScenario(t, realTarget(t, srv), sc))
		})
	}
}

// Issue #38 on both servers: a snapshot that is not of the cluster behind
// the URL is not resumed, and the cache converges to the server's state
// by a list. Made here by rewriting the snapshot: one whose
// resourceVersion is past the server's whole history (a cluster made anew
// or restored from an older backup, which a WATCH would not reveal), and
// one of another cluster's id (the kube-system namespace's uid).
func TestInformerRejectsASnapshotOfAnotherHistory(t *testing.T) {
	for name, change := range map[string]func(t *testing.T, h *snapshot.Header){
		"history": func(_ *testing.T, h *snapshot.Header) {
			h.ResourceVersion = strconv.FormatUint(rvNum(h.ResourceVersion)+1_000_000, 10)
		},
		"cluster": func(t *testing.T, h *snapshot.Header) {
			require.NotEmpty(t, h.Cluster, "the snapshot carries the cluster's id")
			h.Cluster = "00000000-0000-4000-8000-000000000000"
		},
	} {
		t.Run(name, func(t *testing.T) {
			onBoth(t, func(t *testing.T, tg *target) {
				ns := tg.namespace(t)
				want := seed(t, tg, ns, 3)
				dir := t.TempDir()
				opts := informer.Options[*configMap]{Name: "informer", Snapshot: informer.SnapshotOptions{Dir: dir, Period: -1}}
				startInformer(t, tg, ns, opts, nil).stop()
				rewriteSnapshot(t, dir, "informer", func(h *snapshot.Header) { change(t, h) })
				tg.must(t, 200, "DELETE", "/api/v1/namespaces/"+ns+"/configmaps/cm-000", "")
				delete(want, "cm-000")
				second := startInformer(t, tg, ns, opts, nil)
				require.True(t, second.saw(observe.StageSnapshotRejected), "the snapshot is not resumed")
				require.False(t, second.saw(observe.StageSnapshotLoaded))
				require.Equal(t, []string{"initial"}, second.relists())
				second.awaitCache(t, want)
			})
		})
	}
}

// asAgent returns tg as the service account "agent" of ns, allowed by a
// Role only to read configmaps in ns, as a namespaced agent commonly is
// (kube-apiserver only: the fake has no RBAC).
func asAgent(t *testing.T, tg *target, ns string) *target {
	t.Helper()
	tg.must(t, 201, "POST", "/api/v1/namespaces/"+ns+"/serviceaccounts", `{"metadata":{"name":"agent"}}`)
	rbac := "/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns
	tg.must(t, 201, "POST", rbac+"/roles", `{"metadata":{"name":"agent"},"rules":[{"apiGroups":[""],`+
		`"resources":["configmaps"],"verbs":["get","list","watch"]}]}`)
	tg.must(t, 201, "POST", rbac+"/rolebindings", `{"metadata":{"name":"agent"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io",`+
		`"kind":"Role","name":"agent"},"subjects":[{"kind":"ServiceAccount","name":"agent","namespace":"`+ns+`"}]}`)
	r := tg.do(t, "POST", "/api/v1/namespaces/"+ns+"/serviceaccounts/agent/token", `{"spec":{"expirationSeconds":3600}}`)
	require.Contains(t, []int{200, 201}, r.code, "TokenRequest: %s", r.raw)
	token := str(at(r.body, "status.token"))
	cfg := *tg.cfg
	cfg.BearerToken = token
	return &target{name: tg.name + " as agent", url: tg.url, token: token, http: tg.http, cfg: &cfg}
}

// An agent that may not GET the kube-system namespace (RBAC: 403) names
// the cluster by its URL: its snapshots carry no cluster id and are
// resumed on the same server. The history check needs only its right to
// list, and still rejects a snapshot past the server's history.
func TestAnAgentThatMayNotReadNamespacesStillChecksTheHistory(t *testing.T) {
	tg := realTarget(t, realServer(t))
	ns := tg.namespace(t)
	want := seed(t, tg, ns, 3)
	agent := asAgent(t, tg, ns)
	require.Equal(t, 403, agent.do(t, "GET", "/api/v1/namespaces/kube-system", "").code)
	dir := t.TempDir()
	opts := informer.Options[*configMap]{Name: "informer", Snapshot: informer.SnapshotOptions{Dir: dir, Period: -1}}
	startInformer(t, agent, ns, opts, nil).stop()

	second := startInformer(t, agent, ns, opts, nil)
	require.True(t, second.saw(observe.StageSnapshotLoaded), "resumed on the same server")
	require.Empty(t, second.relists())
	second.stop()

	rewriteSnapshot(t, dir, "informer", func(h *snapshot.Header) {
		require.Empty(t, h.Cluster, "no cluster id for an agent that may not read it")
		h.ResourceVersion = strconv.FormatUint(rvNum(h.ResourceVersion)+1_000_000, 10)
	})
	third := startInformer(t, agent, ns, opts, nil)
	require.True(t, third.saw(observe.StageSnapshotRejected))
	require.Equal(t, []string{"initial"}, third.relists())
	third.awaitCache(t, want)
}
