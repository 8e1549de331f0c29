package informer

import (
	"context"
	"errors"
	"fmt"

	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
)

// resumeAt is the first state of a reflector whose queue was filled from a
// snapshot at rv (see SnapshotOptions): watch from rv instead of listing.
// The pipeline records rv as the reflector's before it runs.
func (r *reflector[P]) resumeAt(rv string) state { return resuming{rv: rv} }

// stepResuming opens the first WATCH from a snapshot's rv, with bookmarks;
// with StreamingList it says sendInitialEvents=false, as a streaming-list
// client resuming does. Transitions: opened → watching (marked resumed),
// and the server is reached (FailFast ends); 410 → at once, a relist from
// the snapshot's rv (cause snapshot-expired), whose Replace reconciles the
// cache: objects gone become tombstones, changed ones updates, unchanged
// ones nothing (at once: it happens once per start, so it cannot become
// the hot loop the backoff before other relists prevents);
// sendInitialEvents refused (400/422: the server has no streaming lists)
// → resuming again with a plain watch, and LIST from then on; unreachable,
// 429 or 5xx → backingOff, resuming again (so that a 410 after an outage
// is still known as an expired snapshot); any other error → as for
// opening a watch.
func (r *reflector[P]) stepResuming(ctx context.Context, s resuming) state {
	req := WatchRequest{Mode: WatchFrom, ResourceVersion: s.rv, TimeoutSeconds: r.watchTimeout(), OpenTimeout: r.cfg.idleTimeout}
	if r.streaming {
		req.Mode = ResumeFrom
	}
	w, err := r.lw.Watch(ctx, req)
	if err != nil {
		err = fmt.Errorf("informer: watch from the snapshot's rv %q: %w", s.rv, err)
		if r.streaming && (meta.IsBadRequest(err) || meta.IsInvalid(err)) {
			err = fmt.Errorf("%w: %w", errStreamingRejected, err)
		}
		r.cfg.obs.emit(observe.Event{Stage: observe.StageWatchFailed, ResourceVersion: s.rv, Err: err})
		switch {
		case isGone(err) && !errors.Is(err, errReshardMoved):
			return r.fail(ctx, err, r.relist(s.rv, observe.CauseSnapshotExpired), true)
		case errors.Is(err, errStreamingRejected):
			r.streaming = false
			return r.fail(ctx, err, s, true)
		}
		return r.watchOpenFailed(ctx, err, s)
	}
	now := r.cfg.clock.Now()
	r.rec.resumed(now)
	r.cfg.obs.emit(observe.Event{Stage: observe.StageWatchOpened, ResourceVersion: s.rv, Metadata: r.cfg.metadata,
		Request: r.watchShape(req, true)})
	return watching[P]{w: w, rv: s.rv, opened: now, resumed: true}
}

// resumeExpired is the relist of a resumed watch whose first answer was
// 410: the snapshot's rv is older than the server's history. nil when err
// is anything else.
func (r *reflector[P]) resumeExpired(ctx context.Context, s watching[P], err error) state {
	if !s.resumed || s.events > 0 || !isGone(err) {
		return nil
	}
	return r.fail(ctx, err, r.relist(s.rv, observe.CauseSnapshotExpired), true)
}
