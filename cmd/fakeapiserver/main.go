// Command fakeapiserver runs zerokube's in-memory Kubernetes API server as a
// process: it prints its URL, writes a kubeconfig for kubectl, and serves
// until interrupted.
//
//	fakeapiserver --kubeconfig /tmp/fake.kubeconfig &
//	kubectl --kubeconfig /tmp/fake.kubeconfig get pods -w
//
// Faults are injected over HTTP under /fake/ (see package fakeapiserver),
// for example: curl -X POST "$URL/fake/fail?code=503&count=3".
//
// -shard-selectors serves LIST and WATCH's shardSelector parameter, as
// kube-apiserver with its ShardedListAndWatch gate, so informers that
// shard a resource (cmd/demo --shard 0/2) can be tried against it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/zerokube/zerokube/fakeapiserver"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return // -h printed the usage: asking for help is not a failure
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeapiserver:", err)
		os.Exit(1)
	}
}

// run serves until ctx is done; the URL is the first line on stdout.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("fakeapiserver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	useTLS := fs.Bool("tls", false, "serve https with a generated CA (written into the kubeconfig)")
	token := fs.String("token", "", "require this bearer token (implies -tls)")
	kubeconfig := fs.String("kubeconfig", "", "write a kubeconfig for the server to this path")
	verbose := fs.Bool("v", false, "log every failed request")
	shards := fs.Bool("shard-selectors", false, "serve the shardSelector parameter of LIST and WATCH, as kube-apiserver with its ShardedListAndWatch feature gate (KEP-5866); off: the parameter is ignored, as by a server without the gate")
	status := fs.Bool("simulate-status", false, "run a status loop: pods become Running and ready, Deployments and ReplicaSets get the status their controllers write once all replicas are available (kubectl rollout status and wait finish); off: only clients write status")
	if err := fs.Parse(args); err != nil {
		return err
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	// kubectl (client-go) never sends a bearer token over plain http: a
	// kubeconfig with a token and an http:// server gets 401 on every
	// request. A token therefore means https.
	opts := fakeapiserver.Options{Addr: *addr, TLS: *useTLS || *token != "",
		Logger:              slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})),
		ShardedListAndWatch: *shards, SimulateStatus: *status}
	if *token != "" {
		opts.Tokens = []fakeapiserver.Token{{Value: *token}}
	}
	srv := fakeapiserver.New(opts)
	if err := srv.Start(ctx); err != nil {
		return err
	}
	defer srv.Close()
	if *kubeconfig != "" {
		if err := srv.WriteKubeconfig(*kubeconfig); err != nil {
			return err
		}
	}
	fmt.Fprintln(stdout, srv.URL())
	<-ctx.Done()
	return nil
}
