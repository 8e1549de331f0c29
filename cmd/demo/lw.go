package main

import (
	"context"

	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/meta"
)

// tracingLW wraps the resource's ListerWatcher to tell the tracer whether
// each LIST page carried a continue token: the informer's list-page trace
// event gives the page number and item count, and the demo wants the reader
// to see pagination happen.
type tracingLW[P any] struct {
	informer.ListerWatcher[P]
	t *tracer
}

func (lw tracingLW[P]) List(ctx context.Context, o informer.ListOptions, each func(P) error) (meta.ListMeta, error) {
	lm, err := lw.ListerWatcher.List(ctx, o, each)
	lw.t.lastContinue.Store(err == nil && lm.Continue != "")
	return lm, err
}
