// Command cgagent is the minimal per-node agent of the footprint
// comparison written with client-go, as its users write one: a typed
// clientset, a SharedInformerFactory narrowed to one node's pods by field
// selector spec.nodeName, and a handler counting them; it prints how many
// there are once synced and whenever the count changes.
// bench/agent/zerokube is the same agent written with zerokube.
//
//	cgagent -node node-0001 [-server URL -token-file FILE -ca-file FILE]
//
// Without -server it uses the in-cluster config (rest.InClusterConfig); the
// flags give the same three things to an agent run outside a cluster, as
// bench/agent/zerokube takes them. -node defaults to $NODE_NAME.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

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
func config(server, tokenFile, caFile string) func() (*rest.Config, error) {
	if server == "" {
		return rest.InClusterConfig
	}
	return func() (*rest.Config, error) {
		return &rest.Config{Host: server, BearerTokenFile: tokenFile, TLSClientConfig: rest.TLSClientConfig{CAFile: caFile}}, nil
	}
}

func run(ctx context.Context, config func() (*rest.Config, error), node string) error {
	if node == "" {
		return errors.New("no node: set -node or NODE_NAME")
	}
	start := time.Now()
	cfg, err := config()
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.FieldSelector = "spec.nodeName=" + node }))
	inf := factory.Core().V1().Pods().Informer()
	// The count is printed once the sync is, then whenever it changes.
	var count, printed atomic.Int64
	var ready atomic.Bool
	printed.Store(-1)
	show := func() {
		if n := count.Load(); ready.Load() && printed.Swap(n) != n {
			fmt.Printf("%d pods on %s\n", n, node)
		}
	}
	_, err = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { count.Add(1); show() },
		DeleteFunc: func(any) { count.Add(-1); show() },
	})
	if err != nil {
		return err
	}
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return ctx.Err()
	}
	fmt.Printf("synced in %s\n", time.Since(start).Round(time.Millisecond))
	ready.Store(true)
	show()
	<-ctx.Done()
	return nil
}
