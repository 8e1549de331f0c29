package main

import (
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
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
			srv := fakeapiserver.Start(t, fakeapiserver.Options{Logger: slog.New(slog.DiscardHandler)})
			res, err := parseResource(tc.resource)
			require.NoError(t, err)
			ch := newChurner(srv, res, tc.namespace, 1)
			require.NoError(t, ch.seed())
			before := srv.Stats()
			for range 200 {
				require.NoError(t, ch.step())
				names, err := ch.names()
				require.NoError(t, err)
				require.GreaterOrEqual(t, len(names), minObjects-1)
				require.LessOrEqual(t, len(names), maxObjects)
			}
			require.Equal(t, seedObjects+200, ch.writeCount())
			require.Equal(t, int64(200), srv.Stats().Writes-before.Writes, "every step commits exactly one write")
		})
	}
}
