package informer

import (
	"context"
	"errors"
	"fmt"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

// ErrStalled is in the error of a reply the informer abandoned because it
// stopped delivering (observe.FailureStalled), as WatchErrorHandler sees it.
var ErrStalled = errors.New("informer: the reply stalled")

// listPage is one LW.List abandoned when it stalls: no object (nor the
// page's end) within StallTimeout of the request or of the last object.
// The watchdog counts objects, not bytes: a reply that trickles a few
// bytes a second keeps a per-read watchdog (apiclient's) content forever
// while it delivers nothing, and kube-apiserver itself sends a page's
// objects back to back. client-go has no such bound: its LIST waits as
// long as the connection lives.
func (r *reflector[P]) listPage(ctx context.Context, opts apiclient.ListOptions, each func(P) error) (meta.ListMeta, error) {
	d := r.cfg.stallTimeout
	if d <= 0 {
		return r.lw.List(ctx, opts, each)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stalled := fmt.Errorf("%w: no object for %v", ErrStalled, d)
	dog := r.cfg.clock.AfterFunc(d, func() { cancel(stalled) })
	defer dog.Stop()
	if skip := opts.SkipUndecodable; skip != nil {
		opts.SkipUndecodable = func(e *watchstream.DecodeError) { dog.Reset(d); skip(e) }
	}
	lm, err := r.lw.List(ctx, opts, func(obj P) error {
		dog.Reset(d)
		return each(obj)
	})
	if err != nil && errors.Is(context.Cause(ctx), ErrStalled) && !errors.Is(err, ErrStalled) {
		err = fmt.Errorf("%w (%w)", stalled, err)
	}
	return lm, err
}
