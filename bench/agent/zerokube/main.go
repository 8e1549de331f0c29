// Command zerokube is the minimal per-node agent of the footprint
// comparison (bench/fleet, "footprint"): it lists and watches the pods of
// one node, by field selector spec.nodeName as a DaemonSet's agent does,
// and prints how many there are once synced and whenever the count
// changes. bench/clientgo/cmd/cgagent is the same agent written with
// client-go.
//
//	zerokube -node node-0001 [-server URL -token-file FILE -ca-file FILE]
//
// It is an agent of a DaemonSet: without -server it takes the pod's
// in-cluster config (apiclient.InCluster), and the flags give the same
// three things (the server, a token file, a CA file) to an agent run
// outside a cluster, as the footprint benchmark runs it. It reads no
// kubeconfig, so it does not link package kubeconfig and its YAML parser
// (bench/README.md, "The agent's footprint"). -node defaults to
// $NODE_NAME, which a DaemonSet sets from spec.nodeName with the downward
// API.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/meta"
)

// pod is what the agent keeps of a pod: its name, namespace, uid,
// resourceVersion and labels, its node and its phase.
type pod struct {
	meta.SlimMeta `json:"metadata"`
	Spec          struct {
		NodeName string `json:"nodeName"`
	} `json:"spec"`
	Status struct {
		Phase string `json:"phase"`
	} `json:"status"`
}

func main() {
	server := flag.String("server", "", "the API server's URL (default: in-cluster)")
	tokenFile := flag.String("token-file", "", "with -server: a file holding the bearer token")
	caFile := flag.String("ca-file", "", "with -server: the server's CA certificates (PEM)")
	node := flag.String("node", os.Getenv("NODE_NAME"), "the node whose pods to watch")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, config(*server, *tokenFile, *caFile), *node); err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		os.Exit(1)
	}
}

// config is the flags' config, or the in-cluster one without -server.
func config(server, tokenFile, caFile string) func() (*apiclient.Config, error) {
	if server == "" {
		return apiclient.InCluster
	}
	return func() (*apiclient.Config, error) {
		return &apiclient.Config{Host: server, BearerTokenFile: tokenFile, TLS: apiclient.TLSConfig{CAFile: caFile}}, nil
	}
}

func run(ctx context.Context, config func() (*apiclient.Config, error), node string) error {
	if node == "" {
		return errors.New("no node: set -node or NODE_NAME")
	}
	start := time.Now()
	cfg, err := config()
	if err != nil {
		return err
	}
	c, err := apiclient.New(cfg)
	if err != nil {
		return err
	}
	inf := informer.New[pod](c, apiclient.Ref{GVR: meta.GVR{Version: "v1", Resource: "pods"}},
		informer.Options[*pod]{
			FieldSelector: "spec.nodeName=" + node,
			Observe:       informer.ObserveOptions{Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))},
		})
	// The count is printed once the sync is, then whenever it changes.
	var count, printed atomic.Int64
	var ready atomic.Bool
	printed.Store(-1)
	show := func() {
		if n := count.Load(); ready.Load() && printed.Swap(n) != n {
			fmt.Printf("%d pods on %s\n", n, node)
		}
	}
	_, err = inf.AddHandler(informer.HandlerFuncs[*pod]{
		AddFunc:    func(*pod, bool) { count.Add(1); show() },
		DeleteFunc: func(*pod, bool) { count.Add(-1); show() },
	}, informer.HandlerOptions{})
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	if err := inf.WaitForSync(ctx); err != nil {
		return err
	}
	fmt.Printf("synced in %s\n", time.Since(start).Round(time.Millisecond))
	ready.Store(true)
	show()
	return <-done
}
