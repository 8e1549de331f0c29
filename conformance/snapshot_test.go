package conformance

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/snapshot"
)

// Warm restart (issue #17) on both servers: an informer started on the
// snapshot its predecessor left resumes without any list and hears what
// changed meanwhile; once the snapshot's resourceVersion has left the
// server's history, it relists (cause snapshot-expired) and the cache
// converges all the same.
func TestInformerResumesFromItsSnapshot(t *testing.T) {
	onBoth(t, func(t *testing.T, tg *target) {
		ns, other := tg.namespace(t), tg.namespace(t)
		want := seed(t, tg, ns, 10)
		dir := t.TempDir()
		opts := informer.Options[*configMap]{Name: "informer", Snapshot: informer.SnapshotOptions{Dir: dir, Period: -1}}
		p := "/api/v1/namespaces/" + ns + "/configmaps"
		change := func(update, remove, create string) {
			tg.must(t, 200, "PATCH", p+"/"+update, `{"data":{"k":"v1"}}`, "Content-Type", "application/merge-patch+json")
			tg.must(t, 200, "DELETE", p+"/"+remove, "")
			tg.must(t, 201, "POST", p, obj(`{"metadata":{"name":%q},"data":{"k":"v0"}}`, create))
			want[update] = "v1"
			delete(want, remove)
			want[create] = "v0"
		}

		first := startInformer(t, tg, ns, opts, nil)
		first.stop()
		change("cm-001", "cm-002", "new-1")

		second := startInformer(t, tg, ns, opts, nil)
		require.True(t, second.saw(observe.StageSnapshotLoaded), "resumed from the snapshot")
		require.Empty(t, second.relists(), "no list of any kind")
		second.awaitCache(t, want)
		second.stop()
		require.True(t, second.saw(observe.StageSnapshotSaved))

		// A long downtime, made short: the snapshot now says it is at
		// resourceVersion 1. Only the fake can be made to forget that in
		// bounded time: kube-apiserver v1.37.2 serves a watch from RV 1
		// out of its watch cache, replaying every event since the cache
		// started (observed: ADDED, MODIFIED, DELETED, no 410), however
		// far etcd has compacted; the cache drops events only after
		// minutes.
		if tg.fake == nil {
			t.Log("the snapshot-expired relist is checked on the fake only: kube-apiserver's watch cache still has RV 1")
			return
		}
		change("cm-003", "cm-004", "new-2")
		ageSnapshot(t, dir, "informer", "1")
		tg.expire(t, other, func() bool {
			s := tg.watch(t, p+"?watch=1&resourceVersion=1")
			defer s.close()
			return s.code == 410 || s.must(t).Type == "ERROR"
		})
		third := startInformer(t, tg, ns, opts, nil)
		third.awaitCache(t, want)
		require.Equal(t, []string{"snapshot-expired"}, third.relists())
	})
}

// ageSnapshot rewrites the snapshot called name in dir as if it had been
// taken at rv.
func ageSnapshot(t *testing.T, dir, name, rv string) {
	rewriteSnapshot(t, dir, name, func(h *snapshot.Header) { h.ResourceVersion = rv })
}

// rewriteSnapshot rewrites the header of the snapshot called name in dir.
func rewriteSnapshot(t *testing.T, dir, name string, change func(*snapshot.Header)) {
	t.Helper()
	store := snapshot.Dir{Path: dir}
	rc, err := store.Load(t.Context(), name)
	require.NoError(t, err)
	sr, err := snapshot.NewReader(rc, snapshot.ReadOptions{})
	require.NoError(t, rc.Close())
	require.NoError(t, err)
	h := sr.Header()
	_, items, err := snapshot.LoadFrom[configMap](t.Context(), store, name, h.Identity, snapshot.ReadOptions{})
	require.NoError(t, err)
	// A snapshot of another history was taken against another server
	// process, which the TLS session saved with it could not resume (the
	// informer would take a resumed session as proof of the history).
	h.TLSSession = nil
	change(&h)
	require.NoError(t, snapshot.SaveTo(t.Context(), store, name, h, items))
}

// saw reports whether the informer traced stage.
func (r *run) saw(stage observe.Stage) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.ContainsFunc(r.stages, func(ev observe.Event) bool { return ev.Stage == stage })
}

// last is the last trace event of stage (zero if none).
func (r *run) last(stage observe.Stage) observe.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.stages) - 1; i >= 0; i-- {
		if r.stages[i].Stage == stage {
			return r.stages[i]
		}
	}
	return observe.Event{}
}
