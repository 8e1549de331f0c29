package main

import (
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
)

func TestChurnStaysWithinItsBoundsAndUsesEveryWrite(t *testing.T) {
	tests := []struct {
		name      string
		resource  string
		namespace string
	}{
		{"pods in default", "pods", "default"},
		{"configmaps, all namespaces", "configmaps", ""},
		{"cluster-scoped namespaces", "namespaces", "default"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: slog.New(slog.DiscardHandler)})
			ch := newChurner(srv, resolved(t, srv, tc.resource), tc.namespace, 1)
			require.NoError(t, ch.seed())
			before := srv.Stats()
			deletes := 0
			prev, err := ch.names()
			require.NoError(t, err)
			for range 200 {
				require.NoError(t, ch.step())
				names, err := ch.names()
				require.NoError(t, err)
				if len(names) < len(prev) {
					deletes++
				}
				prev = names
				require.GreaterOrEqual(t, len(names), minObjects-1)
				require.LessOrEqual(t, len(names), maxObjects)
			}
			require.Equal(t, seedObjects+200, ch.writeCount())
			// A pod's deletion is two writes (deletionTimestamp, then the
			// removal), as on kube-apiserver; a namespace's three (Terminating,
			// the namespace controller's conditions, the finalize that removes
			// it); anything else is one.
			extra := 0
			switch tc.resource {
			case "pods":
				extra = deletes
			case "namespaces":
				extra = 2 * deletes
			}
			require.Equal(t, int64(200+extra), srv.Stats().Writes-before.Writes,
				"every step commits exactly one write, more for a pod's or a namespace's deletion")
		})
	}
}

// The tombstone lesson deletes only an object the informer has cached:
// one it never had would make no tombstone, and the lesson's "the handler
// gets a tombstone" would be false.
func TestTheTombstoneLessonDeletesOnlyACachedObject(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: slog.New(slog.DiscardHandler)})
	ch := newChurner(srv, resolved(t, srv, "pods"), "default", 1)
	require.NoError(t, ch.seed())
	names, err := ch.names()
	require.NoError(t, err)
	none := func(string) bool { return false }
	ch.cached.Store(&none)
	_, err = missedDelete(srv, ch)
	require.ErrorIs(t, err, errNoCachedObject)
	only := func(n string) bool { return n == names[1] }
	ch.cached.Store(&only)
	said, err := missedDelete(srv, ch)
	require.NoError(t, err)
	require.Contains(t, said.in(langEN), "deleted "+names[1]+" ")
}
