package informer

import (
	"context"
	"errors"
	"fmt"

	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
)

// resumeAt is the first state of a reflector whose queue was filled from a
// snapshot at rv (see SnapshotOptions): watch from rv instead of listing,
// with the WATCH pre already sent, if not nil (openResume). The pipeline
// records rv as the reflector's before it runs.
func (r *reflector[P]) resumeAt(rv string, pre *preopened[P]) state {
	return resuming[P]{rv: rv, pre: pre}
}

// preopened is the resume's WATCH sent before the reflector runs, and the
// server's answer, for the reflector's first step to take as its own: the
// snapshot's TLS session is offered on that WATCH's connection, whose
// resumption vouches for the snapshot before any of it is used, so that a
// resumed agent sends one request (informer/snapshot_verify.go, issue
// #40). Until taken, the watch is unread: its events wait in the stream.
type preopened[P any] struct {
	req WatchRequest
	w   Watch[P]
	err error
}

// drop stops a watch that will not be taken (the resume was not vouched
// for, or the informer stopped first). nil-safe.
func (p *preopened[P]) drop() {
	if p != nil && p.w != nil {
		p.w.Stop()
	}
}

// openResume sends the WATCH stepResuming would send from rv, now.
func (r *reflector[P]) openResume(ctx context.Context, rv string) *preopened[P] {
	req := r.resumeRequest(rv)
	w, err := r.lw.Watch(ctx, req)
	return &preopened[P]{req: req, w: w, err: err}
}

// resumeRequest is the WATCH that resumes from a snapshot's rv.
func (r *reflector[P]) resumeRequest(rv string) WatchRequest {
	req := WatchRequest{Mode: WatchFrom, ResourceVersion: rv, TimeoutSeconds: r.watchTimeout(), OpenTimeout: r.cfg.idleTimeout}
	if r.streaming {
		req.Mode = ResumeFrom
	}
	return req
}

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
// opening a watch. A WATCH already sent (s.pre) is taken, answer and all,
// as if sent here.
func (r *reflector[P]) stepResuming(ctx context.Context, s resuming[P]) state {
	var (
		req WatchRequest
		w   Watch[P]
		err error
	)
	if s.pre != nil {
		req, w, err = s.pre.req, s.pre.w, s.pre.err
		s.pre = nil // a retry sends its own
	} else {
		req = r.resumeRequest(s.rv)
		w, err = r.lw.Watch(ctx, req)
	}
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
