package shapes

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/zerokube/zerokube/bench/fleet"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeTarget loads cl on a fakeapiserver and returns the Target over it,
// as the command makes it over kube-apiserver.
func fakeTarget(t *testing.T, cl fleet.Cluster) Target {
	t.Helper()
	fake := fakeapiservertest.Start(t)
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, fake.WriteKubeconfig(kc))
	srv, err := fleet.NewServer("fakeapiserver", kc, false, func() {}, 0, 0)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	_, err = fleet.Load(ctx, srv, cl, 0)
	require.NoError(t, err)
	target, err := Dial(kc, cl)
	require.NoError(t, err)
	t.Cleanup(target.Close)
	return target
}

// Every shape reads every pod exactly once: cluster-wide in one request,
// per node in one request per node, each node's own pods.
func TestEveryShapeReadsEveryPodOnce(t *testing.T) {
	cl := fleet.Cluster{Nodes: 3, PodsPerNode: 4}
	target := fakeTarget(t, cl)
	shapes := All()
	require.Len(t, shapes, 48)
	seen := map[string]bool{}
	for _, s := range shapes {
		require.False(t, seen[s.String()], "two shapes named %s", s)
		seen[s.String()] = true
		objects, requests, err := Do(t.Context(), target, s)
		require.NoError(t, err, s.String())
		require.Equal(t, cl.Pods(), objects, s.String())
		want := 1
		if s.PerNode {
			want = cl.Nodes
		}
		require.Equal(t, want, requests, s.String())
	}
}

// A round writes one sample per shape, in an order of its own, each
// with the objects it read; Report tabulates them.
func TestRoundSamplesEveryShape(t *testing.T) {
	cl := fleet.Cluster{Nodes: 2, PodsPerNode: 3}
	r := Runner{Target: fakeTarget(t, cl), Procs: Procs{APIServer: os.Getpid()}, Shapes: All()[:8],
		Idle: time.Millisecond, Seed: 1}
	var got []Sample
	for round := 1; round <= 2; round++ {
		require.NoError(t, r.Round(t.Context(), round, func(s Sample) error { got = append(got, s); return nil }))
	}
	require.Len(t, got, 16)
	var first, second []string
	for _, s := range got {
		require.Equal(t, cl.Pods(), s.Objects, s.Shape)
		require.GreaterOrEqual(t, s.Client, 0.0, s.Shape)
		if s.Round == 1 {
			first = append(first, s.Shape)
		} else {
			second = append(second, s.Shape)
		}
	}
	require.ElementsMatch(t, first, second)
	require.NotEqual(t, first, second, "the rounds ran the shapes in the same order")
	md := Report(got)
	require.Contains(t, md, "16 samples over 2 rounds")
	row := "| whole | list-rv0 | cluster-wide |"
	require.Contains(t, md, row)
	line := md[strings.Index(md, row):]
	line = line[:strings.Index(line, "\n")]
	require.Equal(t, 4, strings.Count(line, "–"), "protobuf, gzip or not, and JSON, gzip or not, were all run: %s", line)
}
