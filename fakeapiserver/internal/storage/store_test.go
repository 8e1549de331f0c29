package storage

import (
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/zerokube/zerokube/meta"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// newTestStore returns a store with a "default" namespace, and the pods
// resource to write to.
func newTestStore(o Options) (*Store, *Resource) {
	ns := &Resource{GVR: meta.GVR{Version: "v1", Resource: "namespaces"}, Kind: "Namespace"}
	pods := &Resource{GVR: meta.GVR{Version: "v1", Resource: "pods"}, Kind: "Pod", Namespaced: true}
	o.Namespaces = ns
	o.Logger = slog.New(slog.DiscardHandler)
	o.Now = time.Now
	if o.HistoryEvents == 0 {
		o.HistoryEvents = 1000
	}
	o.HistoryAge, o.WatchBuffer, o.TooLargeWait = time.Hour, 100, time.Second
	s := New(o)
	if _, err := s.Create(ns, map[string]any{"metadata": map[string]any{"name": "default"}}); err != nil {
		panic(err)
	}
	return s, pods
}

func create(t *testing.T, s *Store, res *Resource, ns, name string) *Object {
	t.Helper()
	o, err := s.Create(res, map[string]any{"metadata": map[string]any{"name": name, "namespace": ns}})
	require.NoError(t, err)
	return o
}

// frames drains what is queued on w.
func frames(w *Watcher) []string {
	var out []string
	for {
		select {
		case f := <-w.Frames():
			out = append(out, string(f))
		default:
			return out
		}
	}
}

func TestCreateNeedsTheNamespaceAndAFreeKey(t *testing.T) {
	s, pods := newTestStore(Options{})
	create(t, s, pods, "default", "a")
	_, err := s.Create(pods, map[string]any{"metadata": map[string]any{"name": "a", "namespace": "default"}})
	require.ErrorContains(t, err, "already exists")
	_, err = s.Create(pods, map[string]any{"metadata": map[string]any{"name": "a", "namespace": "nope"}})
	require.ErrorContains(t, err, `namespaces "nope" not found`)
}

// TestUpdateThatChangesNothingIsNotWritten: invariant 2 of the package.
func TestUpdateThatChangesNothingIsNotWritten(t *testing.T) {
	s, pods := newTestStore(Options{})
	o := create(t, s, pods, "default", "a")
	st, err := s.Watch(t.Context(), pods, Filter{}, WatchOptions{RV: o.RV()})
	require.NoError(t, err)
	defer s.RemoveWatcher(st.W)
	got, err := s.Update(pods, "default", "a", func(cur *Object) (map[string]any, bool, error) {
		return cur.Decode(), false, nil
	})
	require.NoError(t, err)
	require.Same(t, o, got)
	require.Equal(t, o.RV(), s.RV())
	require.Empty(t, frames(st.W))
}

// TestUpdateThatDeletesIsOneWrite: invariant 3.
func TestUpdateThatDeletesIsOneWrite(t *testing.T) {
	s, pods := newTestStore(Options{})
	o, err := s.Create(pods, map[string]any{"metadata": map[string]any{"name": "a", "namespace": "default",
		"finalizers": []any{"x"}}})
	require.NoError(t, err)
	st, err := s.Watch(t.Context(), pods, Filter{}, WatchOptions{RV: o.RV()})
	require.NoError(t, err)
	defer s.RemoveWatcher(st.W)
	got, err := s.Update(pods, "default", "a", func(cur *Object) (map[string]any, bool, error) {
		m := cur.Decode()
		delete(MetadataOf(m), "finalizers")
		return m, true, nil
	})
	require.NoError(t, err)
	require.Equal(t, o.RV(), got.RV(), "the answer is at the previous RV")
	require.Empty(t, got.Raw().Finalizers)
	require.Equal(t, o.RV()+1, s.RV())
	f := frames(st.W)
	require.Len(t, f, 1)
	require.Contains(t, f[0], `"type":"DELETED"`)
	require.Contains(t, f[0], `"finalizers":["x"]`, "the DELETED event is the last stored state")
	require.Contains(t, f[0], fmt.Sprintf(`"resourceVersion":"%d"`, o.RV()+1))
	_, err = s.Get(pods, "default", "a")
	require.ErrorContains(t, err, "not found")
}

func TestDeletingANamespaceDeletesItsObjects(t *testing.T) {
	s, pods := newTestStore(Options{})
	create(t, s, pods, "default", "a")
	create(t, s, pods, "default", "b")
	_, err := s.Delete(s.opts.Namespaces, "", "default", nil)
	require.NoError(t, err)
	p, err := s.List(t.Context(), pods, &Filter{}, ListOptions{RV: -1})
	require.NoError(t, err)
	require.Empty(t, p.Items)
	require.Equal(t, int64(6), s.RV(), "namespace, two pods, and three deletions")
}

func TestWatchFromACompactedRVIsTooOld(t *testing.T) {
	s, pods := newTestStore(Options{})
	create(t, s, pods, "default", "a")
	create(t, s, pods, "default", "b")
	s.Compact(0)
	_, err := s.Watch(t.Context(), pods, Filter{}, WatchOptions{RV: 1})
	require.ErrorAs(t, err, new(TooOldError))
}

func TestNoCreateInATerminatingNamespace(t *testing.T) {
	s, pods := newTestStore(Options{})
	_, err := s.Update(s.opts.Namespaces, "", "default", func(cur *Object) (map[string]any, bool, error) {
		m := cur.Decode()
		MetadataOf(m)["deletionTimestamp"] = "2026-12-03T00:00:00Z"
		return m, false, nil
	})
	require.NoError(t, err)
	_, err = s.Create(pods, map[string]any{"metadata": map[string]any{"name": "a", "namespace": "default"}})
	require.ErrorContains(t, err, `pods "a" is forbidden: unable to create new content in namespace default because it is being terminated`)
}
