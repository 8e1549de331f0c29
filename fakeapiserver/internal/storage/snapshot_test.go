package storage

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSnapshotCacheKeepsTheMostRecentlyUsed(t *testing.T) {
	a, b := &Resource{Kind: "A"}, &Resource{Kind: "B"}
	for _, tc := range []struct {
		name      string
		put       []int64 // RVs of res a, in order
		touch     int64   // an RV asked for after the puts (0: none)
		compacted int64
		want      []int64 // RVs still cached, most recent first
	}{
		{name: "one", put: []int64{5}, want: []int64{5}},
		{name: "newest first", put: []int64{5, 6, 7}, want: []int64{7, 6, 5}},
		{name: "bounded", put: []int64{1, 2, 3, 4, 5, 6}, want: []int64{6, 5, 4, 3}},
		{name: "a get is a use", put: []int64{1, 2, 3, 4}, touch: 1, want: []int64{1, 4, 3, 2}},
		{name: "compacted ones go", put: []int64{1, 2, 3, 4}, compacted: 3, want: []int64{4, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c snapshotCache
			for _, rv := range tc.put {
				c.put(&snapshot{res: a, rv: rv})
			}
			if tc.touch != 0 {
				require.NotNil(t, c.get(a, tc.touch, tc.compacted))
			}
			require.Nil(t, c.get(b, tc.put[0], tc.compacted), "another resource at the same RV is not a hit")
			var got []int64
			for _, sn := range c.recent {
				got = append(got, sn.rv)
			}
			require.Equal(t, tc.want, got)
		})
	}
}

func TestSnapshotScopeCutsTheNamespaceAndStart(t *testing.T) {
	pods := &Resource{Kind: "Pod", Namespaced: true}
	keys := []string{"a/x", "b/p1", "b/p2", "b/p3", "b0/q", "ba/r", "c/z"}
	sn := &snapshot{res: pods}
	for _, k := range keys {
		sn.entries = append(sn.entries, entry{key: k})
	}
	for _, tc := range []struct {
		ns, start string
		want      []string
	}{
		{"", "", keys},
		{"", "b/p2\x00", keys[3:]},
		{"b", "", []string{"b/p1", "b/p2", "b/p3"}},
		{"b", "b/p1\x00", []string{"b/p2", "b/p3"}},
		{"b", "b/p3\x00", nil},
		{"b0", "", []string{"b0/q"}},
		{"nope", "", nil},
	} {
		t.Run(fmt.Sprintf("%s|%q", tc.ns, tc.start), func(t *testing.T) {
			var got []string
			for _, e := range sn.scope(tc.ns, tc.start) {
				got = append(got, e.key)
			}
			require.Equal(t, tc.want, got)
		})
	}
}

// TestListPagesReuseOneSnapshot checks the point of the cache: every page
// of a list, and a second list at the same RV, share one sorted snapshot.
func TestListPagesReuseOneSnapshot(t *testing.T) {
	s, pods := newTestStore(Options{})
	for i := range 10 {
		create(t, s, pods, "default", fmt.Sprintf("p%d", i))
	}
	var f Filter
	p, err := s.List(t.Context(), pods, &f, ListOptions{RV: -1, Limit: 3})
	require.NoError(t, err)
	s.mu.Lock()
	first := s.snaps.recent[0]
	s.mu.Unlock()
	seen := len(p.Items)
	for p.Continue != "" {
		tok, err := DecodeContinue(p.Continue)
		require.NoError(t, err)
		p, err = s.List(t.Context(), pods, &f, ListOptions{RV: -1, Limit: 3, Continue: &tok})
		require.NoError(t, err)
		seen += len(p.Items)
	}
	require.Equal(t, 10, seen)
	s.mu.Lock()
	defer s.mu.Unlock()
	require.Len(t, s.snaps.recent, 1)
	require.Same(t, first, s.snaps.recent[0])
}

// TestCompactionReleasesSnapshots checks that a snapshot lives no longer
// than the history it was built from: compaction or a write that trims the
// history drops it at once, not at the next list.
func TestCompactionReleasesSnapshots(t *testing.T) {
	for _, tc := range []struct {
		name  string
		after func(t *testing.T, s *Store, pods *Resource)
	}{
		{"compaction", func(t *testing.T, s *Store, pods *Resource) {
			// A snapshot at the compaction's own RV is still listable:
			// write once so the compaction passes it.
			create(t, s, pods, "default", "late")
			s.Compact(0)
		}},
		{"trimmed by writes", func(t *testing.T, s *Store, pods *Resource) {
			for i := range 11 {
				create(t, s, pods, "default", fmt.Sprintf("n%d", i))
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, pods := newTestStore(Options{HistoryEvents: 10})
			_, err := s.List(t.Context(), pods, &Filter{}, ListOptions{RV: -1})
			require.NoError(t, err)
			s.mu.Lock()
			require.Len(t, s.snaps.recent, 1)
			s.mu.Unlock()
			tc.after(t, s, pods)
			s.mu.Lock()
			defer s.mu.Unlock()
			require.Empty(t, s.snaps.recent)
		})
	}
}
