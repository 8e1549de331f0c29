package informer_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/snapshot"
)

// recreate closes e's server and starts a new one at the same address,
// with opts and one object: a cluster made anew at the same URL, its
// history started again. It returns the new env.
func recreate(t *testing.T, e *env, opts fakeapiserver.Options) *env {
	t.Helper()
	addr, ok := strings.CutPrefix(e.srv.URL(), "http://")
	require.True(t, ok, e.srv.URL())
	require.NoError(t, e.srv.Close())
	opts.Addr, opts.BookmarkInterval = addr, 50*time.Millisecond
	fresh := newEnv(t, opts)
	require.Equal(t, e.srv.URL(), fresh.srv.URL())
	seed(t, fresh, "new")
	return fresh
}

// oldCluster runs an agent over six objects changed a few times (the
// snapshot's resourceVersion is well past what a new server reaches with
// one object) and stops it, leaving its snapshot in dir.
func oldCluster(t *testing.T, e *env, dir string) string {
	t.Helper()
	seed(t, e, "a", "b", "c", "d", "e", "f")
	for i := range 3 {
		e.put(t, "a", fmt.Sprint(i+1), nil)
	}
	a := startAgent(t, e, dir, nil)
	a.stop()
	saved := a.tr.of(observe.StageSnapshotSaved)
	require.Len(t, saved, 1)
	return saved[0].ResourceVersion
}

// Issue #38: a snapshot saved at resourceVersion 12 with six objects was
// resumed on a new server at the same URL (one object, resourceVersion
// 5): its watch from 12 was accepted and stayed silent, and the cache
// kept six objects that no longer exist. The cluster's id (its
// kube-system namespace's uid) is part of the snapshot's identity: the
// snapshot is rejected, naming the cluster, and the informer lists.
func TestASnapshotIsNotResumedOnAnotherClusterAtTheSameURL(t *testing.T) {
	e, dir := newEnv(t), t.TempDir()
	oldCluster(t, e, dir)
	fresh := recreate(t, e, fakeapiserver.Options{})
	second := startAgent(t, fresh, dir, nil)
	require.Equal(t, []string{"identity"}, second.m.results)
	rejected := second.tr.of(observe.StageSnapshotRejected)
	require.Len(t, rejected, 1)
	var se *snapshot.Error
	require.ErrorAs(t, rejected[0].Err, &se)
	require.Equal(t, "cluster", se.Field, "%v", rejected[0].Err)
	converges(t, fresh, second.inf, &second.h.view)
	require.Equal(t, map[string]string{"new": "0"}, cacheState(second.inf))
}

// The same server, restarted with the informer, is the same cluster: the
// snapshot is resumed as before (the id is read, not made up per run).
func TestTheSameClusterResumesItsSnapshot(t *testing.T) {
	e, dir := newEnv(t), t.TempDir()
	seed(t, e, "a")
	startAgent(t, e, dir, nil).stop()
	second := startAgent(t, e, dir, nil)
	require.Equal(t, []string{"resumed"}, second.m.results)
}

// forbidNamespaces answers 403 to every request for namespaces, as RBAC
// answers an agent allowed only its own resource.
func forbidNamespaces(r *http.Request, _ string) error {
	if strings.Contains(r.URL.Path, "/namespaces/kube-system") && !strings.Contains(r.URL.Path, "/configmaps") {
		return meta.NewStatusError(403, meta.ReasonForbidden, `namespaces "kube-system" is forbidden`)
	}
	return nil
}

// An agent that may not read the kube-system namespace names the cluster
// by its URL alone; the cluster's id is then "", and a snapshot of it is
// resumed on the same server.
func TestWithoutTheRightToReadNamespacesTheURLNamesTheCluster(t *testing.T) {
	e, dir := newEnv(t, fakeapiserver.Options{Intercept: forbidNamespaces}), t.TempDir()
	seed(t, e, "a")
	startAgent(t, e, dir, nil).stop()
	second := startAgent(t, e, dir, nil)
	require.Equal(t, []string{"resumed"}, second.m.results)
}

// failing is a Cluster function that fails its first n calls, as when
// the server is unreachable at start, and then answers id.
func failing(n int, id string) func(*informer.Options[*configMap]) {
	return func(o *informer.Options[*configMap]) {
		var mu sync.Mutex
		o.Snapshot.Cluster = func(context.Context) (string, error) {
			mu.Lock()
			defer mu.Unlock()
			if n > 0 {
				n--
				return "", errors.New("503 from the server")
			}
			return id, nil
		}
	}
}

// named is a Cluster function that always answers id.
func named(id string) func(*informer.Options[*configMap]) {
	return func(o *informer.Options[*configMap]) {
		o.Snapshot.Cluster = func(context.Context) (string, error) { return id, nil }
	}
}

// A cluster id that cannot be read at start does not cost the warm
// restart: the snapshot is loaded (an agent restarted in an outage has its
// cache at once), and the id is asked again before the resume's watch,
// which waits for it. The same cluster resumes; another one gets the
// answer to a resourceVersion outside its history, and the relist at ""
// that follows reconciles the cache.
func TestAClusterIDThatFailsToReadIsCheckedBeforeTheResume(t *testing.T) {
	t.Run("the same cluster", func(t *testing.T) {
		e, dir := newEnv(t), t.TempDir()
		seed(t, e, "a")
		startAgent(t, e, dir, named("c1")).stop()
		second := startAgent(t, e, dir, failing(2, "c1")) // at load, and at the first try to resume
		require.Equal(t, []string{"resumed"}, second.m.results)
		require.Equal(t, snapshotLines("a"), second.settled(t, e, 0))
		require.Empty(t, second.tr.of(observe.StageRelist))
		require.NotEmpty(t, second.tr.of(observe.StageWatchFailed), "the resume waited for the id")
	})
	t.Run("another cluster", func(t *testing.T) {
		e, dir := newEnv(t), t.TempDir()
		seed(t, e, "a", "b")
		startAgent(t, e, dir, named("c1")).stop()
		require.NoError(t, e.srv.Delete(cmGVR, "default", "b"))
		second := startAgent(t, e, dir, failing(1, "c2"))
		require.Equal(t, []string{"resumed"}, second.m.results, "loaded before the id was known")
		converges(t, e, second.inf, &second.h.view)
		relists := second.tr.of(observe.StageRelist)
		require.NotEmpty(t, relists)
		require.Equal(t, observe.CauseTooLargeRV, relists[0].Cause)
		require.Empty(t, relists[0].ResourceVersion, "at the latest")
		require.Contains(t, sorted(second.h.since(0)), "delete b unknown=true", "the other cluster's object is gone")
	})
}

// The id is asked again at the next save when it failed at start, and a
// caller's own Cluster function names the cluster instead of the
// kube-system namespace: a snapshot resumes only where it answers the
// same.
func TestTheClusterIDIsAskedAgainAtTheNextSave(t *testing.T) {
	e, dir := newEnv(t), t.TempDir()
	seed(t, e, "a")
	first := startAgent(t, e, dir, failing(1, "cluster-1"))
	first.stop()
	require.Equal(t, []string{"none"}, first.m.results)
	require.Len(t, first.tr.of(observe.StageSnapshotSaved), 1, "saved once the id could be read")
	second := startAgent(t, e, dir, named("cluster-1"))
	second.stop()
	require.Equal(t, []string{"resumed"}, second.m.results)
	require.Equal(t, []string{"identity"}, startAgent(t, e, dir, named("cluster-2")).m.results)
}

// Issue #38: snapshot.Identity.Request was set but never compared, so a
// snapshot of PartialObjectMetadata resumed an informer that asks for
// whole objects (Transport.FullObjects), and the cache mixed both until
// the next relist.
func TestASnapshotOfMetadataIsNotResumedForWholeObjects(t *testing.T) {
	e, dir := newEnv(t), t.TempDir()
	seed(t, e, "a", "b")
	start := func(full bool) (*informer.Informer[cmMeta, *cmMeta], *loads, context.CancelFunc, chan error) {
		m := &loads{}
		opts := informer.Options[*cmMeta]{
			Snapshot: informer.SnapshotOptions{Dir: dir, Period: -1},
			Observe: informer.ObserveOptions{
				Logger:  quiet(),
				Metrics: m,
			},
		}
		opts.Transport.FullObjects = full
		inf := informer.New[cmMeta](e.client, cmRef, opts)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- inf.Run(ctx) }()
		synced(t, inf)
		return inf, m, cancel, done
	}
	_, _, cancel, done := start(false)
	cancel()
	require.NoError(t, <-done)
	inf, m, cancel, done := start(true)
	defer func() { cancel(); <-done }()
	require.Equal(t, []string{"identity"}, m.results)
	require.Eventually(t, func() bool {
		objs := inf.Lister().List(meta.LabelSelector{})
		for _, o := range objs {
			if o.Kind != "ConfigMap" {
				return false
			}
		}
		return len(objs) == 2
	}, wait, 5*time.Millisecond, "only whole ConfigMaps, no PartialObjectMetadata")
}

// Identity set by the caller names the server; what the informer watches
// is still its own: a snapshot of another label selector is rejected.
func TestACallersIdentityStillComparesTheSelectors(t *testing.T) {
	e, dir := newEnv(t), t.TempDir()
	seed(t, e, "a")
	named := func(sel string) func(*informer.Options[*configMap]) {
		return func(o *informer.Options[*configMap]) {
			o.Name, o.LabelSelector = "same-file", sel
			o.Snapshot.Identity = snapshot.Identity{Server: "prod"}
		}
	}
	startAgent(t, e, dir, named("")).stop()
	second := startAgent(t, e, dir, named("app=web"))
	require.Equal(t, []string{"identity"}, second.m.results)
	var se *snapshot.Error
	require.ErrorAs(t, second.tr.of(observe.StageSnapshotRejected)[0].Err, &se)
	require.Equal(t, "labelSelector", se.Field)
}

// Issue #38 end to end, for an agent that may not read the kube-system
// namespace (the cluster's id is then ""): a snapshot at a resourceVersion
// past the new server's whole history. kube-apiserver accepts a WATCH
// from it and stays silent (conformance: watch/future-resource-version),
// so the informer asks first: its one-item LIST at least as new as the
// snapshot gets 504 ResourceVersionTooLarge, the snapshot is rejected, and
// the cache is the new server's.
func TestARecreatedClusterIsCaughtByItsHistoryWithoutTheClusterID(t *testing.T) {
	e, dir := newEnv(t, fakeapiserver.Options{Intercept: forbidNamespaces}), t.TempDir()
	saved := oldCluster(t, e, dir)
	fresh := recreate(t, e, fakeapiserver.Options{Intercept: forbidNamespaces, TooLargeWait: 50 * time.Millisecond})
	require.Less(t, fresh.srv.ResourceVersion(), rvOf(t, saved), "the new history is behind the snapshot")
	second := startAgent(t, fresh, dir, nil)
	require.Equal(t, []string{"identity"}, second.m.results)
	var se *snapshot.Error
	require.ErrorAs(t, second.tr.of(observe.StageSnapshotRejected)[0].Err, &se)
	require.Equal(t, "resourceVersion", se.Field)
	require.True(t, meta.IsTooLargeResourceVersion(se), "the server's 504 is the cause: %v", se.Err)
	converges(t, fresh, second.inf, &second.h.view)
	require.Equal(t, map[string]string{"new": "0"}, cacheState(second.inf))
	require.Equal(t, []string{"add new=0 initial=true"}, second.h.since(0), "no handler saw the old cluster's objects")
}

func rvOf(t *testing.T, rv string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(rv, 10, 64)
	require.NoError(t, err)
	return n
}

// A cluster restored from a backup older than the snapshot keeps its id
// (the kube-system namespace came back with the backup) but not its
// history: the resourceVersions after the backup are made again, with
// other content. The history check catches it; the informer lists.
func TestASnapshotNewerThanARestoredHistoryIsNotResumed(t *testing.T) {
	e, dir := newEnv(t, fakeapiserver.Options{TooLargeWait: 50 * time.Millisecond}), t.TempDir()
	seed(t, e, "a")
	backup := e.srv.ResourceVersion()
	seed(t, e, "b", "c")
	startAgent(t, e, dir, nil).stop()
	e.srv.Restore(backup)
	second := startAgent(t, e, dir, nil)
	require.Equal(t, []string{"identity"}, second.m.results)
	converges(t, e, second.inf, &second.h.view)
	require.Equal(t, map[string]string{"a": "0"}, cacheState(second.inf))
}

// A server (or a proxy before it) that answers the resume's WATCH with 504
// ResourceVersionTooLarge, as HTTP or as an ERROR event, is answered by a
// relist at "" (the reflector's rule for that 504), which reconciles the
// snapshot's objects with the server's.
func TestAResumeAnsweredTooLargeRelistsAtTheLatest(t *testing.T) {
	for _, asEvent := range []bool{false, true} {
		t.Run(fmt.Sprintf("asEvent=%t", asEvent), func(t *testing.T) {
			e, dir := newEnv(t), t.TempDir()
			seed(t, e, "a", "b")
			startAgent(t, e, dir, nil).stop()
			require.NoError(t, e.srv.Delete(cmGVR, "default", "b"))
			e.put(t, "c", "0", nil)
			e.srv.FailNext(fakeapiserver.Failure{Count: 1, Code: 504, Verb: "watch", AsEvent: asEvent})
			second := startAgent(t, e, dir, nil)
			require.Equal(t, []string{"resumed"}, second.m.results)
			converges(t, e, second.inf, &second.h.view)
			relists := second.tr.of(observe.StageRelist)
			require.NotEmpty(t, relists)
			require.Equal(t, observe.CauseTooLargeRV, relists[0].Cause)
			require.Empty(t, relists[0].ResourceVersion, "at the latest, not at the snapshot's rv")
		})
	}
}

// The history check the server could not answer at start (503) is made
// before the resume's WATCH: on a new history behind the snapshot, its 504
// makes the informer relist at "", and the loaded objects the server does
// not have are deleted.
func TestAHistoryUncheckedAtStartIsCheckedBeforeTheResume(t *testing.T) {
	e, dir := newEnv(t, fakeapiserver.Options{Intercept: forbidNamespaces}), t.TempDir()
	oldCluster(t, e, dir)
	fresh := recreate(t, e, fakeapiserver.Options{Intercept: forbidNamespaces, TooLargeWait: 50 * time.Millisecond})
	fresh.srv.FailNext(fakeapiserver.Failure{Count: 1, Code: 503, Verb: "list"})
	second := startAgent(t, fresh, dir, nil)
	require.Equal(t, []string{"resumed"}, second.m.results, "loaded: the server could not say")
	converges(t, fresh, second.inf, &second.h.view)
	require.Equal(t, map[string]string{"new": "0"}, cacheState(second.inf))
	relists := second.tr.of(observe.StageRelist)
	require.NotEmpty(t, relists)
	require.Equal(t, observe.CauseTooLargeRV, relists[0].Cause)
	failed := second.tr.of(observe.StageWatchFailed)
	require.NotEmpty(t, failed)
	require.True(t, meta.IsTooLargeResourceVersion(failed[0].Err), "the server's own 504: %v", failed[0].Err)
}
