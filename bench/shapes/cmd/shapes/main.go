// Command shapes measures what each request shape costs kube-apiserver
// per object (package bench/shapes): it starts kube-apiserver v1.37.2 and
// etcd (conformance/kube/build.sh's binaries), loads the pods, runs
// -rounds rounds of every shape, each round under the measure lock, and
// appends one JSON line per sample to -out; -report turns such lines into
// the Markdown table docs/agents.md publishes.
//
//	go run ./bench/shapes/cmd/shapes -rounds 3 -out /tmp/shapes.jsonl
//	go run ./bench/shapes/cmd/shapes -report bench/shapes/RESULTS.jsonl
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"os"
	"os/signal"
	"regexp"
	"syscall"
	"time"

	"github.com/zerokube/zerokube/bench/fleet"
	"github.com/zerokube/zerokube/bench/shapes"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// -server fake re-runs this binary as the fake's process (bench/fleet).
	if ran, err := fleet.RunRole(ctx, os.Args[1:]); ran {
		if err != nil {
			log.Fatal(err)
		}
		return
	}
	server := flag.String("server", "kube", "kube (kube-apiserver v1.37.2 + etcd from conformance/kube/build.sh) or fake (fakeapiserver in a process of its own, to try the harness)")
	nodes := flag.Int("nodes", 100, "nodes in the cluster")
	perNode := flag.Int("pods-per-node", 100, "pods on each node")
	podSize := flag.Int("pod-size", 9<<10, "workload pod size in bytes (the client-go comparison's 9 KB pod)")
	rounds := flag.Int("rounds", 3, "rounds of every shape")
	perLock := flag.Int("rounds-per-lock", 2, "rounds run under one hold of -lock (about 1.5 min each at 10,000 pods)")
	lock := flag.String("lock", "/tmp/zerokube-measure.lock", "the measure lock, held by the load and the first rounds, then by -rounds-per-lock rounds at a time; \"\" for none")
	out := flag.String("out", "shapes.jsonl", "append samples here")
	match := flag.String("shapes", "", "run only the shapes whose name matches this regexp")
	seed := flag.Uint64("seed", uint64(time.Now().Unix()), "seed of each round's order")
	report := flag.String("report", "", "only turn this JSON-lines file into Markdown on stdout")
	flag.Parse()
	if *report != "" {
		if err := writeReport(*report); err != nil {
			log.Fatal(err)
		}
		return
	}
	if err := run(ctx, *server, fleet.Cluster{Nodes: *nodes, PodsPerNode: *perNode, PodSize: *podSize}, *rounds, max(*perLock, 1), *lock, *out, *match, *seed); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, server string, cl fleet.Cluster, rounds, perLock int, lock, out, match string, seed uint64) error {
	re, err := regexp.Compile(match)
	if err != nil {
		return err
	}
	var list []shapes.Shape
	for _, s := range shapes.All() {
		if re.MatchString(s.String()) {
			list = append(list, s)
		}
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	var srv *fleet.Server
	switch server {
	case "kube":
		srv, err = fleet.StartKube(ctx)
	case "fake":
		srv, err = fleet.StartFake(ctx, fleet.FakeCommand)
	default:
		err = fmt.Errorf("shapes: -server %q: kube or fake", server)
	}
	if err != nil {
		return err
	}
	defer srv.Close()
	unlock, err := shapes.Lock(lock)
	if err != nil {
		return err
	}
	defer func() { unlock() }()
	start := time.Now()
	if _, err = fleet.Load(ctx, srv, cl, 0); err != nil {
		return err
	}
	logger.Info("loaded", "pods", cl.Pods(), "took", time.Since(start))
	target, err := shapes.Dial(srv.Kubeconfig, cl)
	if err != nil {
		return err
	}
	defer target.Close()
	f, err := os.OpenFile(out, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	r := shapes.Runner{Target: target, Procs: shapes.Procs{APIServer: srv.APIPID, Etcd: srv.EtcdPID}, Shapes: list,
		Seed: seed, Log: logger}
	for round := 1; round <= rounds; round++ {
		if round > 1 && (round-1)%perLock == 0 {
			// Let the other measurements waiting for the lock have it.
			unlock()
			if unlock, err = shapes.Lock(lock); err != nil {
				return err
			}
		}
		t0 := time.Now()
		err := r.Round(ctx, round, func(s shapes.Sample) error { return enc.Encode(s) })
		if ferr := w.Flush(); err == nil {
			err = ferr
		}
		if err != nil {
			return fmt.Errorf("round %d: %w", round, err)
		}
		logger.Info("round done", "round", round, "took", time.Since(t0))
	}
	return nil
}
