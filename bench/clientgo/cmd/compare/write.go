package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/bench/clientgo/internal/probe"
	"github.com/zerokube/zerokube/meta"
)

// writeUpdates sends events merge patches at a fixed rate, open loop (a
// slow reply does not delay the next write), each setting
// probe.LabelWritten to the time it was sent. Pods are taken in a stride
// over everything loaded, so writes spread over namespaces and pages.
func writeUpdates(ctx context.Context, srv *server, ld *loader, events int, rate float64, rep int) error {
	if events == 0 {
		return nil
	}
	jobs := make(chan int, events)
	errs := make(chan error, 1)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for k := range jobs {
				p := ld.pods[(k*7919+rep*104729)%len(ld.pods)]
				patch := fmt.Appendf(nil, `{"metadata":{"labels":{%q:"%d"}}}`, probe.LabelWritten, time.Now().UnixNano())
				_, err := apiclient.Patch[meta.Raw](ctx, srv.client, podsRef.Namespaced(p.namespace), p.name, meta.MergePatch, patch)
				if err != nil {
					select {
					case errs <- fmt.Errorf("compare: patch %s/%s: %w", p.namespace, p.name, err):
					default:
					}
				}
			}
		})
	}
	start := time.Now()
	interval := time.Duration(float64(time.Second) / rate)
	for k := range events {
		if d := time.Until(start.Add(time.Duration(k) * interval)); d > 0 {
			time.Sleep(d) // pacing the writer, not waiting for a condition
		}
		jobs <- k
	}
	close(jobs)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}
