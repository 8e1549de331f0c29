package fleet_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/zerokube/zerokube/bench/fleet"
)

// TestMain plays the fake's or a child's role when the benchmark re-runs
// this binary as one (fleet.RoleEnv), and otherwise runs the tests.
func TestMain(m *testing.M) {
	if ran, err := fleet.RunRole(context.Background(), os.Args[1:]); ran {
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// smallFleet starts the fake in a process of its own, loads 60 pods on 12
// nodes, and returns a Run for shape with the short windows of a smoke
// run.
func smallFleet(tb testing.TB, shape string, agents int) *fleet.Run {
	tb.Helper()
	ctx := context.Background()
	srv, err := fleet.StartFake(ctx, fleet.FakeCommand)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(srv.Close)
	c := fleet.Cluster{Nodes: 12, PodsPerNode: 5}
	pods, err := fleet.Load(ctx, srv, c, 0)
	if err != nil {
		tb.Fatal(err)
	}
	objects := c.Pods()
	if shape == fleet.ShapePerNode {
		objects = agents * c.PodsPerNode
	}
	return &fleet.Run{Server: srv, Shape: shape, Agents: agents, Pods: pods, Objects: objects,
		ChurnEvents: 60, ChurnRate: 300, Quiet: 300 * time.Millisecond, Tail: 200 * time.Millisecond,
		IdleWindow: time.Second, Logf: tb.Logf}
}

// BenchmarkFleet runs a small fleet of zerokube agents against the fake
// in a process of its own, with and without snapshots, in both shapes:
// 12 per-node agents, and 4 replicas sharding 60 pods. The figures are the
// fake's CPU for each phase (idle rate discounted), the agents' process's,
// and the fake's peak RSS in the storms. bench/fleet/run.sh runs the same
// harness at 100 and 1,000 agents, against kube-apiserver too, with
// client-go beside it.
func BenchmarkFleet(b *testing.B) {
	for _, sh := range []struct {
		shape  string
		agents int
	}{{fleet.ShapePerNode, 12}, {fleet.ShapeShard, 4}} {
		b.Run(fmt.Sprintf("shape=%s/agents=%d", sh.shape, sh.agents), func(b *testing.B) {
			r := smallFleet(b, sh.shape, sh.agents)
			for _, m := range fleet.ZKModes()[:2] {
				b.Run("mode="+m.Name, func(b *testing.B) {
					var sum fleet.Result
					for range b.N {
						res, err := r.Mode(context.Background(), m)
						if err != nil {
							b.Fatal(err)
						}
						sum.Initial.API += res.Initial.API
						sum.Restart.API += res.Restart.API
						sum.Churn.API += res.Churn.API
						sum.Churn.Client += res.Churn.Client
						sum.Restart.Client += res.Restart.Client
						sum.Restart.APIPeak = max(sum.Restart.APIPeak, res.Restart.APIPeak)
					}
					n := float64(b.N)
					b.ReportMetric(1e3*sum.Initial.API/n, "initial-api-ms")
					b.ReportMetric(1e3*sum.Restart.API/n, "restart-api-ms")
					b.ReportMetric(1e3*sum.Restart.Client/n, "restart-agents-ms")
					b.ReportMetric(1e6*sum.Churn.API/n/float64(r.ChurnEvents), "churn-api-µs/event")
					b.ReportMetric(1e6*sum.Churn.Client/n/float64(r.ChurnEvents), "churn-agents-µs/event")
					b.ReportMetric(float64(sum.Restart.APIPeak)/(1<<20), "restart-api-peak-MiB")
				})
			}
		})
	}
}
