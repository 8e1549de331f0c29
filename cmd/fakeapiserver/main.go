// Command fakeapiserver runs zerokube's in-memory Kubernetes API server as a
// process: it prints its URL, writes a kubeconfig for kubectl, and serves
// until interrupted.
//
//	fakeapiserver --kubeconfig /tmp/fake.kubeconfig &
//	kubectl --kubeconfig /tmp/fake.kubeconfig get pods -w
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/zerokube/zerokube/fakeapiserver"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "fakeapiserver:", err)
		os.Exit(1)
	}
}

func run() error {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	useTLS := flag.Bool("tls", false, "serve https with a generated CA")
	token := flag.String("token", "", "require this bearer token")
	kubeconfig := flag.String("kubeconfig", "", "write a kubeconfig for the server to this path")
	verbose := flag.Bool("v", false, "log every failed request")
	flag.Parse()

	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	opts := fakeapiserver.Options{Addr: *addr, TLS: *useTLS,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))}
	if *token != "" {
		opts.Tokens = []fakeapiserver.Token{{Value: *token}}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
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
	fmt.Println(srv.URL())
	<-ctx.Done()
	return nil
}
