package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/zerokube/zerokube/bench/fleet"
)

// server is the API server every child of a run talks to: the fleet
// benchmark's description of one.
type server = fleet.Server

func startServer(ctx context.Context, c config) (*server, error) {
	switch c.server {
	case "fake":
		return startFake(ctx, c)
	case "kube":
		return startKube(ctx, c)
	}
	return nil, fmt.Errorf("compare: unknown -server %q", c.server)
}

// startFake runs cmd/fakeapiserver over TLS (HTTP/2, as kube-apiserver
// serves) in its own process and waits for its URL.
func startFake(ctx context.Context, c config) (*server, error) {
	dir, err := os.MkdirTemp("", "zerokube-compare-")
	if err != nil {
		return nil, err
	}
	kc := filepath.Join(dir, "kubeconfig")
	ctx, cancel := context.WithCancel(ctx)
	cmd := exec.CommandContext(ctx, filepath.Join(c.bin, "fakeapiserver"), "-addr", "127.0.0.1:0", "-tls", "-kubeconfig", kc)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, fmt.Errorf("compare: fakeapiserver: %w", err)
	}
	stop := func() { cancel(); _ = cmd.Wait(); os.RemoveAll(dir) }
	if err := fleet.AwaitURL(ctx, stdout, "fakeapiserver"); err != nil {
		stop()
		return nil, fmt.Errorf("compare: %w", err)
	}
	return fleet.NewServer("fakeapiserver", kc, false, stop, cmd.Process.Pid, 0)
}

// writeKubeconfig writes a kubeconfig for url with a CA and a bearer token.
func writeKubeconfig(path, url, token string, ca []byte) error {
	return fleet.WriteKubeconfig(path, url, token, ca)
}
