package main

import (
	"context"
	"fmt"
	"time"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/bench/clientgo/internal/probe"
	"github.com/zerokube/zerokube/bench/fleet"
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
	return fleet.OpenLoop(events, rate, func(k int) error {
		p := ld.pods[(k*7919+rep*104729)%len(ld.pods)]
		patch := fmt.Appendf(nil, `{"metadata":{"labels":{%q:"%d"}}}`, probe.LabelWritten, time.Now().UnixNano())
		_, err := apiclient.Patch[meta.Raw](ctx, srv.Client, podsRef.Namespaced(p.namespace), p.name, meta.MergePatch, patch)
		if err != nil {
			return fmt.Errorf("compare: patch %s/%s: %w", p.namespace, p.name, err)
		}
		return nil
	})
}
