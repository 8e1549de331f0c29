package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/zerokube/zerokube/informer"
)

// serveHealth serves the informer's health as JSON at /healthz on addr (a
// bare ":port" on loopback only), as an agent would for its liveness
// probe, until ctx ends; wg counts its goroutines. It returns the URL.
func serveHealth(ctx context.Context, wg *sync.WaitGroup, addr string, inf informer.HealthReporter) (string, error) {
	ln, err := net.Listen("tcp", uiAddr(addr))
	if err != nil {
		return "", fmt.Errorf("--serve-health %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/healthz", informer.HealthHandler(inf))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	wg.Add(2)
	go func() { defer wg.Done(); _ = srv.Serve(ln) }() // http.ErrServerClosed at the end
	go func() {
		defer wg.Done()
		<-ctx.Done()
		_ = srv.Close()
	}()
	return "http://" + ln.Addr().String() + "/healthz", nil
}
