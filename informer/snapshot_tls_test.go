package informer_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/apiclient/websocket"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
)

// requestLog records what reaches a server: each request's method, path
// and query, and whether its connection resumed a TLS session.
type requestLog struct {
	mu   sync.Mutex
	reqs []string
}

func (l *requestLog) intercept(r *http.Request, _ string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reqs = append(l.reqs, r.Method+" "+r.URL.Path+"?"+r.URL.RawQuery+resumedMark(r))
	return nil
}

func resumedMark(r *http.Request) string {
	if r.TLS != nil && r.TLS.DidResume {
		return " (resumed)"
	}
	return ""
}

// since returns the requests after the first n.
func (l *requestLog) since(n int) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.reqs[n:]...)
}

func (l *requestLog) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.reqs)
}

// tlsEnv is a fake server over TLS whose requests l records.
func tlsEnv(t *testing.T, l *requestLog, addr string) *env {
	t.Helper()
	return newEnv(t, fakeapiserver.Options{TLS: true, Addr: addr, BookmarkInterval: 50 * time.Millisecond, Intercept: l.intercept})
}

// process is e with a client of its own, as a restarted agent's process
// makes one: no connection, no TLS session.
func process(t *testing.T, e *env) *env {
	t.Helper()
	c, err := apiclient.New(fakeapiservertest.ClientConfig(e.srv))
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	return &env{srv: e.srv, client: c}
}

// Issue #40: a resumed agent cost kube-apiserver a full TLS handshake, a
// GET of the kube-system namespace (the cluster's id) and a LIST of one
// item (the history check) before its WATCH. The snapshot now carries
// the client's TLS session; the next process offers it on the connection
// of its WATCH, sent before any of the snapshot is used, and a connection
// that resumed it, which only the server process that issued it can do,
// needs no check: the WATCH is the only request the server sees (the
// log has the API requests; the server's count has every one, a GET of
// /version included).
// The same over websocket, whose dials share the client's TLS config,
// and for a streaming-list informer, whose resume says
// sendInitialEvents=false.
func TestAResumedTLSSessionIsAllTheCheckASnapshotNeeds(t *testing.T) {
	t.Run("http", func(t *testing.T) { testAResumedTLSSessionIsAllTheCheck(t, nil) })
	t.Run("websocket", func(t *testing.T) {
		testAResumedTLSSessionIsAllTheCheck(t, func(o *informer.Options[*configMap]) { o.Transport.Websocket = websocket.Dialer{} })
	})
	t.Run("streaming list", func(t *testing.T) {
		testAResumedTLSSessionIsAllTheCheck(t, func(o *informer.Options[*configMap]) { o.Sync.StreamingList = true })
	})
}

func testAResumedTLSSessionIsAllTheCheck(t *testing.T, tweak func(*informer.Options[*configMap])) {
	l := &requestLog{}
	e, dir := tlsEnv(t, l, "127.0.0.1:0"), t.TempDir()
	seed(t, e, "a", "b")
	startAgent(t, process(t, e), dir, tweak).stop()

	n, all := l.len(), e.srv.Stats().Requests
	second := startAgent(t, process(t, e), dir, tweak)
	require.Equal(t, []string{"resumed"}, second.m.results)
	require.Eventually(t, func() bool { return len(second.tr.of(observe.StageWatchOpened)) > 0 }, wait, time.Millisecond)
	require.Equal(t, int64(1), e.srv.Stats().Requests-all, "one HTTP request in all: %q", l.since(n))
	e.put(t, "a", "1", nil)
	converges(t, e, second.inf, &second.h.view)
	second.stop()
	reqs := l.since(n)
	require.Len(t, reqs, 1, "one request, the WATCH: %q", reqs)
	require.Contains(t, reqs[0], "watch=1")
	require.True(t, strings.HasSuffix(reqs[0], "(resumed)"), "its connection resumed the saved session: %q", reqs[0])

	// The snapshot the second process saved names the cluster as the
	// first's did, with a session of its own for the third.
	n = l.len()
	third := startAgent(t, process(t, e), dir, tweak)
	require.Equal(t, []string{"resumed"}, third.m.results)
	require.Eventually(t, func() bool { return len(third.tr.of(observe.StageWatchOpened)) > 0 }, wait, time.Millisecond)
	require.Len(t, l.since(n), 1, "%q", l.since(n))
	require.True(t, strings.HasSuffix(l.since(n)[0], "(resumed)"), "%q", l.since(n))
}

// A server process that cannot read the session (here a new cluster at
// the same address, as after it is made anew) gets a full handshake, and
// the checks the session would have spared are made: the snapshot of the
// old cluster is rejected before any of it is used, and the informer
// lists.
func TestASessionTheServerDoesNotTakeLeavesTheChecksToBeMade(t *testing.T) {
	l := &requestLog{}
	e, dir := tlsEnv(t, l, "127.0.0.1:0"), t.TempDir()
	oldCluster(t, process(t, e), dir)
	addr := strings.TrimPrefix(e.srv.URL(), "https://")
	require.NoError(t, e.srv.Close())
	fresh := tlsEnv(t, l, addr)
	seed(t, fresh, "new")

	n := l.len()
	second := startAgent(t, process(t, fresh), dir, nil)
	converges(t, fresh, second.inf, &second.h.view)
	require.Equal(t, map[string]string{"new": "0"}, cacheState(second.inf))
	reqs := strings.Join(l.since(n), "\n")
	require.NotContains(t, reqs, "(resumed)", "another server process cannot read the ticket")
	require.Contains(t, reqs, "/namespaces/kube-system", "the cluster's id was read")
	require.NotEmpty(t, second.tr.of(observe.StageListPage), "the informer listed the new cluster")
	require.Equal(t, []string{"identity"}, second.m.results, "rejected at load, never handed to the handlers")
}

// With NoTLSSession the snapshot carries no session (a snapshot stored
// less privately than the client's key): the next process checks the
// snapshot with its questions, as without TLS.
func TestNoTLSSessionKeepsTheSessionOutOfTheSnapshot(t *testing.T) {
	l := &requestLog{}
	e, dir := tlsEnv(t, l, "127.0.0.1:0"), t.TempDir()
	seed(t, e, "a")
	startAgent(t, process(t, e), dir, func(o *informer.Options[*configMap]) { o.Snapshot.NoTLSSession = true }).stop()

	n := l.len()
	second := startAgent(t, process(t, e), dir, nil)
	require.Equal(t, []string{"resumed"}, second.m.results)
	require.Eventually(t, func() bool { return len(second.tr.of(observe.StageWatchOpened)) > 0 }, wait, time.Millisecond)
	reqs := strings.Join(l.since(n), "\n")
	require.Contains(t, reqs, "/namespaces/kube-system")
	require.Contains(t, reqs, "limit=1")
	require.NotContains(t, reqs, "(resumed)")
}

// An agent stopped before its resume's WATCH answered writes no snapshot
// (nothing moved) and so asks nothing more: not the cluster's id, which
// the session it offered would have vouched for. (It never synced: the
// snapshot waits for the server's word, which that WATCH's connection
// carries.)
func TestAStopBeforeTheResumeAnsweredAsksNothing(t *testing.T) {
	l := &requestLog{}
	var hold sync.Once
	held := make(chan struct{})
	block := func(r *http.Request, verb string) error {
		err := l.intercept(r, verb)
		if r.URL.Query().Get("watch") == "1" && r.TLS.DidResume {
			hold.Do(func() { close(held) })
			<-r.Context().Done() // the agent stops meanwhile
		}
		return err
	}
	e, dir := newEnv(t, fakeapiserver.Options{TLS: true, BookmarkInterval: 50 * time.Millisecond, Intercept: block}), t.TempDir()
	seed(t, e, "a")
	startAgent(t, process(t, e), dir, nil).stop()

	n := l.len()
	second := launchAgent(t, process(t, e), dir, nil)
	<-held
	second.stop()
	reqs := l.since(n)
	require.Len(t, reqs, 1, "the WATCH only: %q", reqs)
	require.Empty(t, second.tr.of(observe.StageSnapshotSaved))
}

// The resume's WATCH is sent before the snapshot is used, to offer the
// session on its connection; another server process of the same cluster
// (restarted at the same address, its history as far on) cannot read the
// session and so does not vouch for the snapshot: that WATCH is dropped
// unread, the history is asked (the cluster's id is the caller's here),
// and the snapshot, which passes, is resumed with a WATCH of its own.
func TestAWatchWhoseSessionWasNotResumedIsDroppedUnread(t *testing.T) {
	l := &requestLog{}
	e, dir := tlsEnv(t, l, "127.0.0.1:0"), t.TempDir()
	named := func(o *informer.Options[*configMap]) { o.Snapshot.Identity.Cluster = "one" }
	seed(t, e, "a", "b")
	startAgent(t, process(t, e), dir, named).stop()
	addr := strings.TrimPrefix(e.srv.URL(), "https://")
	require.NoError(t, e.srv.Close())
	restarted := tlsEnv(t, l, addr)
	seed(t, restarted, "a", "b")
	restarted.put(t, "a", "1", nil)

	n := l.len()
	second := startAgent(t, process(t, restarted), dir, named)
	require.Equal(t, []string{"resumed"}, second.m.results)
	converges(t, restarted, second.inf, &second.h.view)
	require.Equal(t, []string{"snapshot a=0", "snapshot b=0", "update a 0→1"}, second.h.since(0), "the resume's WATCH brought what changed since the snapshot")
	reqs := l.since(n)
	shape := make([]string, len(reqs))
	for i, r := range reqs {
		switch {
		case strings.HasSuffix(r, "(resumed)"):
			shape[i] = "resumed?"
		case strings.Contains(r, "watch=1"):
			shape[i] = "WATCH"
		case strings.Contains(r, "limit=1&"):
			shape[i] = "history"
		default:
			shape[i] = r
		}
	}
	require.Equal(t, []string{"WATCH", "history", "WATCH"}, shape,
		"the WATCH that offered the session (dropped), the check, then the resume's own WATCH: %q", reqs)
	require.Len(t, second.tr.of(observe.StageWatchOpened), 1, "the reflector took one WATCH")
}

// A cluster id the caller gives (SnapshotOptions.Identity.Cluster) costs
// no request and is compared at load, TLS session or not: a snapshot
// named for another cluster is rejected even by the server process that
// would resume its session.
func TestACallersClusterIDIsComparedDespiteTheSession(t *testing.T) {
	l := &requestLog{}
	e, dir := tlsEnv(t, l, "127.0.0.1:0"), t.TempDir()
	seed(t, e, "a")
	named := func(id string) func(*informer.Options[*configMap]) {
		return func(o *informer.Options[*configMap]) { o.Snapshot.Identity.Cluster = id }
	}
	startAgent(t, process(t, e), dir, named("one")).stop()
	second := startAgent(t, process(t, e), dir, named("two"))
	require.Equal(t, []string{"identity"}, second.m.results)
	rejected := second.tr.of(observe.StageSnapshotRejected)
	require.Len(t, rejected, 1)
	require.ErrorContains(t, rejected[0].Err, "cluster")
}

// The WATCH that carried the resumed session is the reflector's, answer
// and all: a refused one is what a refused resume's WATCH is (a 410, as
// a status or an ERROR event: a relist from the snapshot's
// resourceVersion, snapshot-expired; a 500 or 429: the resume again after
// a backoff), the snapshot is never checked by other requests (the
// session vouched for it), and the cache ends as the server's.
func TestTheSessionsWatchAnswersTheResume(t *testing.T) {
	for _, tc := range []struct {
		name    string
		fail    fakeapiserver.Failure
		relists []observe.RelistCause
	}{
		{"410 status", fakeapiserver.Failure{Code: 410}, []observe.RelistCause{observe.CauseSnapshotExpired}},
		{"410 event", fakeapiserver.Failure{Code: 410, AsEvent: true}, []observe.RelistCause{observe.CauseSnapshotExpired}},
		{"500", fakeapiserver.Failure{Code: 500}, nil},
		{"429", fakeapiserver.Failure{Code: 429, RetryAfter: time.Millisecond}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := &requestLog{}
			e, dir := tlsEnv(t, l, "127.0.0.1:0"), t.TempDir()
			seed(t, e, "a", "b")
			startAgent(t, process(t, e), dir, nil).stop()
			e.put(t, "b", "1", nil)

			n := l.len()
			fail := tc.fail
			fail.Count, fail.Verb = 1, "watch"
			e.srv.FailNext(fail)
			second := startAgent(t, process(t, e), dir, nil)
			require.Equal(t, []string{"resumed"}, second.m.results)
			converges(t, e, second.inf, &second.h.view)
			require.Equal(t, map[string]string{"a": "0", "b": "1"}, cacheState(second.inf))
			var causes []observe.RelistCause
			for _, ev := range second.tr.of(observe.StageRelist) {
				causes = append(causes, ev.Cause)
			}
			require.Equal(t, tc.relists, causes)
			reqs := l.since(n)
			require.True(t, strings.HasSuffix(reqs[0], "(resumed)") && strings.Contains(reqs[0], "watch=1"),
				"the first request is the WATCH that resumed the session: %q", reqs)
			for _, r := range reqs {
				require.NotContains(t, r, "/namespaces/kube-system", "the session vouched: %q", reqs)
				require.NotContains(t, r, "limit=1&", "the session vouched: %q", reqs)
			}
		})
	}
}

// Informers sharing a client (a factory's) resume together: their
// snapshots carry the same session, which the first connection resumes,
// and each informer's WATCH on that connection is vouched for by it; none
// asks the checks. Given the same session again, the client keeps what
// it knows of it.
func TestInformersSharingAClientResumeWithOneWatchEach(t *testing.T) {
	l := &requestLog{}
	e, dir := tlsEnv(t, l, "127.0.0.1:0"), t.TempDir()
	seed(t, e, "a", "b")
	named := func(name string) func(*informer.Options[*configMap]) {
		return func(o *informer.Options[*configMap]) { o.Name = name }
	}
	first := process(t, e)
	one, two := startAgent(t, first, dir, named("one")), startAgent(t, first, dir, named("two"))
	one.stop()
	two.stop()

	n, all := l.len(), e.srv.Stats().Requests
	next := process(t, e)
	one, two = launchAgent(t, next, dir, named("one")), launchAgent(t, next, dir, named("two"))
	synced(t, one.inf)
	synced(t, two.inf)
	require.Equal(t, []string{"resumed"}, one.m.results)
	require.Equal(t, []string{"resumed"}, two.m.results)
	require.Eventually(t, func() bool {
		return len(one.tr.of(observe.StageWatchOpened)) > 0 && len(two.tr.of(observe.StageWatchOpened)) > 0
	}, wait, time.Millisecond)
	reqs := l.since(n)
	require.Len(t, reqs, 2, "a WATCH each, no check: %q", reqs)
	require.Equal(t, int64(2), e.srv.Stats().Requests-all, "%q", reqs)
	for _, r := range reqs {
		require.Contains(t, r, "watch=1")
	}
}

// A WATCH that reached no server vouches for nothing, whatever the client
// knows of the session: here a second informer of a process whose first
// one resumed the session starts while the server is down (the client
// still says the session was resumed, by a connection now gone), and the
// cluster that comes up at the address is another one. The snapshot is
// loaded as in any outage and its checks are asked before its WATCH:
// the other cluster's id rules it out, and the informer lists that
// cluster. Vouched for by the old resumption, its WATCH from the old
// resourceVersion would have been accepted and the cache kept objects
// that cluster never had.
func TestAWatchNoServerAnsweredVouchesForNothing(t *testing.T) {
	l := &requestLog{}
	e, dir := tlsEnv(t, l, "127.0.0.1:0"), t.TempDir()
	seed(t, e, "a", "b", "c", "d", "e", "f")
	for i := range 3 {
		e.put(t, "a", fmt.Sprint(i+1), nil)
	}
	named := func(name string) func(*informer.Options[*configMap]) {
		return func(o *informer.Options[*configMap]) { o.Name = name }
	}
	// Clients that take the next server's certificate too (a new
	// server's fake CA is new; a real cluster's CA would be the same).
	insecure := func() *env {
		cfg := fakeapiservertest.ClientConfig(e.srv)
		cfg.TLS = apiclient.TLSConfig{Insecure: true}
		c, err := apiclient.New(cfg)
		require.NoError(t, err)
		t.Cleanup(c.CloseIdleConnections)
		return &env{srv: e.srv, client: c}
	}
	first := insecure()
	startAgent(t, first, dir, named("one")).stop()
	startAgent(t, first, dir, named("two")).stop()

	next := insecure()
	one := startAgent(t, next, dir, named("one"))
	require.Equal(t, []string{"resumed"}, one.m.results)
	require.True(t, next.client.TLSResumed())
	one.stop()
	addr := strings.TrimPrefix(e.srv.URL(), "https://")
	require.NoError(t, e.srv.Close())

	two := launchAgent(t, next, dir, named("two"))
	require.Eventually(t, func() bool { return len(two.tr.of(observe.StageSnapshotLoaded)) > 0 }, wait, time.Millisecond,
		"loaded in the outage")
	other := tlsEnv(t, l, addr)
	seed(t, other, "new")
	other.client = next.client // the same process, reconnecting
	converges(t, other, two.inf, &two.h.view)
	require.Equal(t, map[string]string{"new": "0"}, cacheState(two.inf))
}
