package informer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

// watchTimeout is a random timeoutSeconds in [min, 2·min), so a fleet of
// informers restarted together does not reconnect in lockstep.
func (r *reflector[P]) watchTimeout() int64 {
	m := r.cfg.minWatchTimeout.Seconds()
	return int64(m * (1 + r.cfg.rand()))
}

// stepWatchOpening opens a WATCH with bookmarks. Transitions: opened →
// watching; unreachable, 429 or 5xx → backingOff, watchOpening again (no
// relist: the rv is still good); 504 too-large-rv → at once, a relist at
// ""; 410 → at once, a relist from the last rv; any other error →
// backingOff, a relist from the last rv. A 410 or a 504 too-large-rv is a
// server that answers saying where to go next: the relist it asks for
// goes at once, unless the failure before it went at once too (fail: a
// server that answers every WATCH with 410 while its LISTs succeed, a
// freshly restarted apiserver behind a load balancer, gets a backoff
// between every two relists, not a LIST per round trip).
func (r *reflector[P]) stepWatchOpening(ctx context.Context, s watchOpening) state {
	req := WatchRequest{Mode: WatchFrom, ResourceVersion: s.rv, TimeoutSeconds: r.watchTimeout(), OpenTimeout: r.cfg.idleTimeout}
	w, err := r.lw.Watch(ctx, req)
	if err != nil {
		err = fmt.Errorf("informer: watch from rv %q: %w", s.rv, err)
		r.cfg.obs.emit(observe.Event{Stage: observe.StageWatchFailed, ResourceVersion: s.rv, Err: err})
		return r.watchOpenFailed(ctx, err, s)
	}
	now := r.cfg.clock.Now()
	r.rec.opened(now)
	r.cfg.obs.emit(observe.Event{Stage: observe.StageWatchOpened, ResourceVersion: s.rv, Metadata: r.cfg.metadata,
		Request: r.watchShape(req, false)})
	return watching[P]{w: w, rv: s.rv, opened: now, holdRV: s.rv == "" || s.rv == "0"}
}

// watchOpenFailed is where a WATCH that could not be opened leads: again
// the state that opened it (again), after a backoff, when the server was
// not reached or is overloaded; a planned relist after errReshardMoved; else a
// relist.
func (r *reflector[P]) watchOpenFailed(ctx context.Context, err error, again state) state {
	if next := r.planned(err); next != nil {
		return next
	}
	var se *meta.StatusError
	switch {
	case relistNow(err):
		return r.fail(ctx, err, r.relistAfter(err), true)
	case !errors.As(err, &se), meta.IsTooManyRequests(err), meta.Code(err) >= 500:
		return r.fail(ctx, err, again, false)
	}
	return r.fail(ctx, err, r.relistAfter(err), false)
}

// relistNow reports a failure whose cure is a relist the server can answer
// now: 410 (the rv is gone from its history) or 504 ResourceVersionTooLarge
// (its history went back; the relist is at "", not at the rv its
// Retry-After is about). client-go's list retries these at once at ""
// (reflector.go, list: "Retry immediately if the resource version used to
// list is unavailable"), as its watch-list does. fail still makes the
// next failure wait.
func relistNow(err error) bool { return isGone(err) || meta.IsTooLargeResourceVersion(err) }

// relistAfter is the relist that follows a watch failure: at "" after 504
// ResourceVersionTooLarge (the server's history went back: an etcd restore
// or a failover), else from the last rv.
func (r *reflector[P]) relistAfter(err error) state {
	switch {
	case meta.IsTooLargeResourceVersion(err):
		return r.relist("", observe.CauseTooLargeRV)
	case isGone(err):
		return r.relist(r.relistRV(), observe.CauseWatchGone)
	}
	return r.relist(r.relistRV(), observe.CauseWatchError)
}

// relist is the state that lists again from rv: a streaming list while the
// server supports them, LIST otherwise.
func (r *reflector[P]) relist(rv string, cause observe.RelistCause) state {
	if r.streaming {
		if rv == "0" {
			rv = "" // "0" with NotOlderThan would allow any stale state
		}
		return streamListing{rv: rv, cause: cause}
	}
	return r.listFrom(rv, cause)
}

// stepWatching reads events into the queue until the watch ends.
// Transitions, after client-go's reflector: a clean end → watchOpening at
// the last rv (no relist, no wait); a stall (the stream's watchdog,
// Options.Watch.IdleTimeout) on a server that has shown no bookmark cadence
// counts as a clean end (a quiet resource); on one that has, it is a
// failure (observe.FailureStalled): backingOff, watchOpening; a broken
// stream (reset, unexpected EOF) → backingOff, watchOpening; a 429 ERROR
// event → backingOff, watchOpening; any other ERROR event (410, 500, 504
// too-large …), an event that does not decode, or a watch that ended
// within a second with no event → backingOff, then a relist. client-go
// relists on these too (it re-watches after a 500 only when
// MaxInternalErrorRetryDuration is set, by default not): an undecodable
// event would come back on every re-watch from the same rv, and a watch
// closed at once says the rv is not being served.
func (r *reflector[P]) stepWatching(ctx context.Context, s watching[P]) state {
	defer s.w.Stop()
	// Watches end with ctx whatever the ListerWatcher does with it.
	defer context.AfterFunc(ctx, s.w.Stop)()
	res := r.readEvents(s)
	s, err := res.watching, res.err
	stopping := ctx.Err() != nil
	stalled := !stopping && watchstream.ProblemOf(err) == watchstream.Stalled
	quiet := stalled && !r.bookmarks
	if stopping {
		// Run is stopping: the server did not close anything, whatever the
		// stream, closed under it, said (an EOF looks like a clean close).
		err = context.Cause(ctx)
	}
	if quiet {
		// No bookmark cadence seen: silence is a quiet resource, not a
		// stall. The watch is reopened, which a server answers at once.
		err = fmt.Errorf("%w (%w)", errIdle, err)
	}
	r.cfg.obs.emit(observe.Event{Stage: observe.StageWatchEnded, Items: s.events, Err: err, ResourceVersion: s.rv, Stopping: stopping})
	switch {
	case ctx.Err() != nil:
		return stopped{}
	case res.stopErr != nil:
		return stopped{err: res.stopErr}
	case quiet:
		return r.reopen(s)
	case stalled:
		// kube-apiserver bookmarks about once a minute: a watch silent
		// for the bound (three minutes by default) has stalled.
		return r.fail(ctx, fmt.Errorf("informer: watching from rv %q: %w", s.rv, err), r.reopen(s), false)
	case errors.Is(err, io.EOF):
		if s.events == 0 && r.cfg.clock.Now().Sub(s.opened) < time.Second {
			return r.fail(ctx, fmt.Errorf("%w (from rv %q)", errShortWatch, s.rv), r.relist(r.relistRV(), observe.CauseWatchError), false)
		}
		r.rec.watchWorked()
		return r.reopen(s)
	}
	err = fmt.Errorf("informer: watching from rv %q: %w", s.rv, err)
	if next := r.planned(err); next != nil {
		return next
	}
	if next := r.resumeExpired(ctx, s, err); next != nil {
		return next
	}
	var se *meta.StatusError
	switch {
	case isDecodeError(err) && watchstream.ProblemOf(err) != watchstream.Truncated:
		// A stream cut mid-event is the transport failing, not an event
		// that cannot decode: the re-watch below gets the event whole (as
		// client-go's StreamWatcher ends quietly on an unexpected EOF).
		return r.fail(ctx, err, r.relist(r.relistRV(), observe.CauseWatchError), false)
	case !errors.As(err, &se), meta.IsTooManyRequests(err):
		return r.fail(ctx, err, r.reopen(s), false)
	}
	return r.fail(ctx, err, r.relistAfter(err), relistNow(err))
}

// reopen is the state that opens the next watch after s ended without
// needing a relist: from s's rv, and still as a resume (resuming) when s
// was the first watch from a snapshot and delivered nothing, so that a
// 410 on the next try is still known for what it is, an expired snapshot.
func (r *reflector[P]) reopen(s watching[P]) state {
	if s.resumed && s.events == 0 {
		return resuming[P]{rv: s.rv}
	}
	return watchOpening{rv: s.rv}
}

// watchResult is watching plus how its stream ended.
type watchResult[P any] struct {
	watching[P]
	err     error // from Next: io.EOF for a clean end
	stopErr error // the queue refused an object: stop
}

// readEvents applies events until Next fails. Each event's rv becomes the
// watch's rv, except while holdRV: the synthetic ADDED events of a watch
// from ""/"0" come in no order, so the rv waits for the first bookmark or
// non-ADDED event.
func (r *reflector[P]) readEvents(s watching[P]) watchResult[P] {
	res := watchResult[P]{watching: s}
	for {
		ev, err := s.w.Next()
		if err != nil {
			res.watching, res.err = s, err
			return res
		}
		r.rec.contacted(r.cfg.clock.Now())
		r.rec.watchWorked()
		s.events++
		if ev.Type != meta.Added {
			s.holdRV = false
		}
		kept, err := r.apply(ev)
		if err != nil {
			res.watching, res.err, res.stopErr = s, err, err
			return res
		}
		// A dropped object's rv is not trusted: it may not even be this resource's.
		if kept && !s.holdRV && ev.ResourceVersion != "" && ev.ResourceVersion != s.rv {
			s.rv = ev.ResourceVersion
			r.setRV(s.rv)
		}
	}
}

// apply turns one event into a queue operation. kept is false when the
// event's object was dropped (wrong kind, unknown event type).
func (r *reflector[P]) apply(ev watchstream.Event[P]) (kept bool, err error) {
	// The key is only for traces: the queue computes its own, and
	// building it here for nobody is an allocation per event.
	tracing := r.cfg.obs.tracing()
	var key string
	if ev.Type != meta.Bookmark {
		if tracing {
			key = meta.Key(ev.Object)
		}
		r.cfg.obs.emit(observe.Event{Stage: observe.StageEvent, EventType: ev.Type, Key: key, ResourceVersion: ev.ResourceVersion})
	}
	var op func(P) error
	var name observe.Op
	switch ev.Type {
	case meta.Added:
		op, name = r.q.Add, observe.OpAdd
	case meta.Modified:
		op, name = r.q.Update, observe.OpUpdate
	case meta.Deleted:
		op, name = r.q.Delete, observe.OpDelete
	case meta.Bookmark:
		r.bookmarks = true
		r.cfg.obs.emit(observe.Event{Stage: observe.StageBookmark, ResourceVersion: ev.ResourceVersion})
		if b, ok := r.q.(bookmarker); ok {
			b.Bookmark(ev.ResourceVersion)
		}
		return true, nil
	case meta.Error:
		return false, nil
	}
	if op == nil {
		return false, nil // an unknown type: its event line says so in the log
	}
	obj, ok := r.accept(ev.Object)
	if !ok {
		return false, nil
	}
	// Traced before the call, so that the trace shows stages in data-path
	// order: the processing loop may apply the delta before op returns.
	if tracing {
		r.cfg.obs.emit(observe.Event{Stage: observe.StageDeltaQueued, Op: name, Key: key})
	}
	if err := op(obj); err != nil {
		return false, fmt.Errorf("informer: queue %s %s: %w", name, meta.Key(obj), err)
	}
	return true, nil
}
