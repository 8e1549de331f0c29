package fakeapiserver_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/apiclient/kubeconfig"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/meta"
)

// The fake API server stands in for a cluster in the tests of a program
// that takes a kubeconfig, as kubectl and an agent do: start it, write its
// kubeconfig, and hand the program the path (KUBECONFIG, --kubeconfig).
// Outside Go, the same server runs as a process:
//
//	go run ./cmd/fakeapiserver --kubeconfig /tmp/fake.kubeconfig
//
// prints its URL and serves until interrupted; faults are POSTs to
// $URL/fake/… (package doc). In a Go test, fakeapiservertest.Start(t) does
// the start and the cleanup in one line.
func ExampleServer_WriteKubeconfig() {
	srv := fakeapiserver.New(fakeapiserver.Options{Logger: slog.New(slog.DiscardHandler)})
	if err := srv.Start(context.Background()); err != nil {
		panic(err)
	}
	defer srv.Close()
	pods := meta.GVR{Version: "v1", Resource: "pods"}
	if _, err := srv.Create(pods, `{"metadata":{"name":"web","namespace":"default"},"spec":{"containers":[{"name":"c"}]}}`); err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "fake-kubeconfig-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "kubeconfig")
	if err := srv.WriteKubeconfig(path); err != nil {
		panic(err)
	}

	// What the program under test does with the path.
	cfg, err := kubeconfig.Load(path, "")
	if err != nil {
		panic(err)
	}
	client, err := apiclient.New(cfg)
	if err != nil {
		panic(err)
	}
	defer client.CloseIdleConnections()
	_, err = apiclient.List[meta.Raw](context.Background(), client, apiclient.Ref{GVR: pods, Namespace: cfg.Namespace}, apiclient.ListOptions{},
		func(p *meta.Raw) error {
			fmt.Println("listed", meta.Key(p), "through", cfg.Host == srv.URL())
			return nil
		})
	if err != nil {
		panic(err)
	}
	// Output: listed default/web through true
}
