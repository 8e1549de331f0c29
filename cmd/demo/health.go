package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/metrics"
)

// serveHealth serves the informer's health as JSON at /healthz and its
// metrics in Prometheus's text format at /metrics on addr (a bare ":port"
// on loopback only), as an agent would for its liveness probe and its
// scraper, until ctx ends; wg counts its goroutines. It returns the base
// URL, http://host:port.
func serveHealth(ctx context.Context, wg *sync.WaitGroup, addr string, inf informer.HealthReporter, metrics http.Handler) (string, error) {
	ln, err := net.Listen("tcp", uiAddr(addr))
	if err != nil {
		return "", fmt.Errorf("--serve-health %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/healthz", informer.HealthHandler(inf))
	mux.Handle("/metrics", metrics)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	wg.Add(2)
	go func() { defer wg.Done(); _ = srv.Serve(ln) }() // http.ErrServerClosed at the end
	go func() {
		defer wg.Done()
		<-ctx.Done()
		_ = srv.Close()
	}()
	return "http://" + ln.Addr().String(), nil
}

// exportedMetrics records the informer of ref into the registry that
// /metrics serves; nil without --serve-health.
func (d *demo) exportedMetrics(ref apiclient.Ref) observe.Metrics {
	if d.metrics == nil {
		return nil
	}
	return metrics.Informer(d.metrics, metricsName(ref))
}

// exportHealth adds inf's health gauges (synced, stale, last progress,
// failures) to /metrics, under the name exportedMetrics gives it.
func (d *demo) exportHealth(ref apiclient.Ref, inf informer.HealthReporter) {
	metrics.Health(d.metrics, metricsName(ref), inf)
}

// metricsName is the informer label of ref's series: the resource, e.g.
// "pods".
func metricsName(ref apiclient.Ref) string { return ref.GVR.Resource }
