package fakeapiserver

import (
	"fmt"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zerokube/zerokube/meta"
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
	s := New(Options{Logger: slog.New(slog.DiscardHandler)})
	gvr := meta.GVR{Version: "v1", Resource: "pods"}
	for i := range 10 {
		_, err := s.Create(gvr, fmt.Sprintf(`{"metadata":{"name":"p%d","namespace":"default"}}`, i))
		require.NoError(t, err)
	}
	res, err := s.resource(gvr)
	require.NoError(t, err)
	f := filter{}
	p, err := s.list(t.Context(), res, &f, listOptions{rv: -1, limit: 3})
	require.NoError(t, err)
	s.mu.Lock()
	first := s.snaps.recent[0]
	s.mu.Unlock()
	seen := len(p.items)
	for p.cont != "" {
		tok, err := decodeContinue(p.cont)
		require.NoError(t, err)
		p, err = s.list(t.Context(), res, &f, listOptions{rv: -1, limit: 3, cont: &tok})
		require.NoError(t, err)
		seen += len(p.items)
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
		after func(s *Server, gvr meta.GVR) error
	}{
		{"compaction", func(s *Server, gvr meta.GVR) error {
			// A snapshot at the compaction's own RV is still listable:
			// write once so the compaction passes it.
			_, err := s.Create(gvr, `{"metadata":{"name":"late","namespace":"default"}}`)
			s.Compact(0)
			return err
		}},
		{"trimmed by writes", func(s *Server, gvr meta.GVR) error {
			for i := range 11 {
				if _, err := s.Create(gvr, fmt.Sprintf(`{"metadata":{"name":"n%d","namespace":"default"}}`, i)); err != nil {
					return err
				}
			}
			return nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(Options{Logger: slog.New(slog.DiscardHandler), HistoryEvents: 10})
			gvr := meta.GVR{Version: "v1", Resource: "pods"}
			_, _, err := s.List(gvr, "")
			require.NoError(t, err)
			s.mu.Lock()
			require.Len(t, s.snaps.recent, 1)
			s.mu.Unlock()
			require.NoError(t, tc.after(s, gvr))
			s.mu.Lock()
			defer s.mu.Unlock()
			require.Empty(t, s.snaps.recent)
		})
	}
}
