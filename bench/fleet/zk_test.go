package fleet

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
)

// inProcess starts the fake in this process with 4 nodes of 3 pods and
// returns a ChildConfig for it.
func inProcess(t *testing.T, shape string, agents int, opts string) ChildConfig {
	fake := fakeapiservertest.Start(t, fakeapiserver.Options{TLS: true, ShardedListAndWatch: true, Logger: slog.New(slog.DiscardHandler)})
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, fake.WriteKubeconfig(kc))
	srv, err := NewServer("fake", kc, false, func() {}, os.Getpid(), 0)
	require.NoError(t, err)
	_, err = Load(context.Background(), srv, Cluster{Nodes: 4, PodsPerNode: 3}, 0)
	require.NoError(t, err)
	return ChildConfig{Kubeconfig: kc, Shape: shape, Agents: agents, Opts: opts, SnapDir: t.TempDir()}
}

// The modes do what the tables say they do: with snapshots a restart
// lists nothing and resumes every agent; without, every agent lists
// again; each agent holds its node's pods, or its shard.
func TestZKRestart(t *testing.T) {
	for _, tc := range []struct {
		shape, opts  string
		agents       int
		want         int // objects held in all
		start, again string
	}{
		{ShapePerNode, "snap", 3, 9, "3 LISTs in 3 pages, 0 streaming lists, 0 resumed", "0 LISTs in 0 pages, 0 streaming lists, 3 resumed"},
		{ShapePerNode, "snap,notls", 3, 9, "3 LISTs in 3 pages, 0 streaming lists, 0 resumed", "0 LISTs in 0 pages, 0 streaming lists, 3 resumed from snapshots (0 over"},
		{ShapePerNode, "", 3, 9, "3 LISTs in 3 pages, 0 streaming lists, 0 resumed", "3 LISTs in 3 pages, 0 streaming lists, 0 resumed"},
		{ShapePerNode, "stream", 2, 6, "0 LISTs in 0 pages, 2 streaming lists, 0 resumed", "0 LISTs in 0 pages, 2 streaming lists, 0 resumed"},
		{ShapeShard, "snap", 3, 12, "3 LISTs in 3 pages, 0 streaming lists, 0 resumed", "0 LISTs in 0 pages, 0 streaming lists, 3 resumed"},
	} {
		t.Run(fmt.Sprintf("%s/%q", tc.shape, tc.opts), func(t *testing.T) {
			z, err := NewZK(inProcess(t, tc.shape, tc.agents, tc.opts))
			require.NoError(t, err)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			n, err := z.Start(ctx)
			require.NoError(t, err)
			require.Equal(t, tc.want, n)
			require.Contains(t, z.Note(), tc.start)
			require.NoError(t, z.Stop())
			n, err = z.Start(ctx)
			require.NoError(t, err)
			require.Equal(t, tc.want, n)
			require.Contains(t, z.Note(), tc.again)
			require.NoError(t, z.Stop())
		})
	}
}

// Interleaved runs of a mode are judged by their mean, whatever the
// number of runs of each: three of one mode against two of another; the restart
// storm against client-go's LIST mode by issue #40's goal, 0.3×.
func TestAModeRunMoreThanOnceIsJudgedByItsMean(t *testing.T) {
	run := func(mode string, restart float64) Result {
		return Result{Server: "kube", Shape: ShapePerNode, Mode: mode, Agents: 100, Pods: 1000, Restart: Phase{API: restart}}
	}
	var b strings.Builder
	WriteReport(&b, []Result{run("zk-snap", 0.2), run("cg-list", 0.5), run("cg", 3), run("zk-snap", 0.1), run("cg-list", 0.7), run("cg", 3), run("zk-snap", 0.3)}, nil)
	require.Contains(t, b.String(), "| restart storm, apiserver CPU | zk-snap ×3 / cg-list ×2 | 0.2 / 0.6 s | 0.33× | ≤ 0.3× | **missed** |")
	require.Contains(t, b.String(), "| restart storm, apiserver CPU | zk-snap ×3 / cg ×2 | 0.2 / 3 s | 0.07× | ≤ 0.1× | met |")
}
