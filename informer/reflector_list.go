package informer

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

// listFrom is the listing state for a (re)list at rv. Lists at "" and "0"
// are paginated; a list at a later rv is not (so the server can answer it
// from its watch cache), unless the first list, at "0", came back in pages:
// a list at "0" is served from the watch cache whole, so pages there mean
// the server has no watch cache to answer from. (A list at "" always comes
// back paged, watch cache or not: it says nothing, as client-go also
// reasons.)
func (r *reflector[P]) listFrom(rv string, cause observe.RelistCause) listing[P] {
	req := ListRequest{ResourceVersion: rv}
	if rv == "" || rv == "0" || r.paginated {
		req.Limit = r.cfg.pageSize
	}
	if rv != "" && rv != "0" && req.Limit > 0 {
		// Without a match, rv plus limit would mean Exact: any newer state is fine.
		req.ResourceVersionMatch = meta.MatchNotOlderThan
	}
	return listing[P]{req: req, cause: cause}
}

// relistRV is where a relist starts: the last known rv, or "0" before any.
func (r *reflector[P]) relistRV() string {
	if rv := r.lastSyncResourceVersion(); rv != "" {
		return rv
	}
	return "0"
}

// stepListing fetches one page. Transitions: more pages → listing (next
// page); last page → Replace, watchOpening at the list's rv; 410 on a
// continue token → listing from the start; 410 at an rv → listing at ""
// (consistent); 504 too-large-rv → listing at ""; other errors →
// backingOff, the same list again.
func (r *reflector[P]) stepListing(ctx context.Context, s listing[P]) state {
	req := s.req
	if s.page == 0 && s.cont == "" {
		r.cfg.obs.emit(observe.Event{Stage: observe.StageRelist, Cause: s.cause, ResourceVersion: s.req.ResourceVersion, Err: s.why, Metadata: r.cfg.metadata,
			Request: r.listShape(s)})
	}
	if s.cont != "" {
		req = ListRequest{Limit: s.req.Limit, Continue: s.cont}
	}
	n := len(s.items)
	page, err := r.lw.List(ctx, req, func(obj P) error {
		if obj, ok := r.accept(obj); ok {
			s.items = append(s.items, obj)
		}
		return nil
	})
	for _, u := range page.Skipped {
		r.skipUndecodable(&s, u)
	}
	if err != nil {
		r.cfg.obs.emit(observe.Event{Stage: observe.StageListFailed, Page: s.page + 1, ResourceVersion: s.req.ResourceVersion, Err: err})
		return r.listFailed(ctx, s, err)
	}
	lm := page.ListMeta
	s.page++
	r.cfg.obs.emit(observe.Event{Stage: observe.StageListPage, Page: s.page, Items: len(s.items) - n, ResourceVersion: lm.ResourceVersion,
		More: lm.Continue != ""})
	if lm.Continue != "" {
		if _, loop := s.seen[lm.Continue]; loop {
			return r.fail(ctx, fmt.Errorf("%w (page %d)", errContinueLoop, s.page), r.listFrom(s.req.ResourceVersion, observe.CauseListError), false)
		}
		if s.seen == nil {
			s.seen = map[string]struct{}{}
		}
		s.seen[lm.Continue] = struct{}{}
		if s.req.ResourceVersion == "0" {
			r.paginated = true
		}
		s.cont = lm.Continue
		return s
	}
	if lm.ResourceVersion == "" {
		return r.fail(ctx, errMissingRV, r.listFrom(s.req.ResourceVersion, observe.CauseListError), false)
	}
	if err := r.replace(s.items, lm.ResourceVersion, s.skipped); err != nil {
		return stopped{err: err}
	}
	return watchOpening{rv: lm.ResourceVersion}
}

func (r *reflector[P]) listFailed(ctx context.Context, s listing[P], err error) state {
	err = fmt.Errorf("informer: list at rv %q page %d: %w", s.req.ResourceVersion, s.page+1, err)
	if next := r.planned(err); next != nil {
		return next
	}
	switch {
	case isGone(err) && s.cont != "":
		// Compaction overtook the pages: restarting the paged list could
		// lose the race again and again. client-go's pager lists once,
		// unpaginated, at the rv first asked for.
		return r.fail(ctx, err, r.wholeList(s), true)
	case isGone(err):
		return r.fail(ctx, err, r.listFrom("", observe.CauseListGone), true)
	case meta.IsTooLargeResourceVersion(err):
		return r.fail(ctx, err, r.listFrom("", observe.CauseTooLargeRV), true)
	}
	return r.fail(ctx, err, r.listFrom(s.req.ResourceVersion, observe.CauseListError), false)
}

// wholeList is the unpaginated list at s's rv that replaces a paged list
// whose continue token expired.
func (r *reflector[P]) wholeList(s listing[P]) listing[P] {
	req := ListRequest{ResourceVersion: s.req.ResourceVersion}
	if req.ResourceVersion != "" && req.ResourceVersion != "0" {
		req.ResourceVersionMatch = meta.MatchNotOlderThan
	}
	return listing[P]{req: req, cause: observe.CauseContinueExpired}
}

// replace hands a full list to the queue and records it: its rv, the
// objects it skipped (SkipUndecodable), the contact. The record and the
// trace come first: once Replace returns, the processing loop may already
// have applied the list and declared the informer synced, and the
// snapshot gate reads the skipped objects inside Replace.
func (r *reflector[P]) replace(items []P, rv string, skipped []UndecodableObject) error {
	r.cfg.obs.emit(observe.Event{Stage: observe.StageReplace, Items: len(items), ResourceVersion: rv})
	r.cfg.metrics.ResourceVersion(rv)
	r.rec.listed(r.cfg.clock.Now(), rv, skipped)
	if err := r.q.Replace(items, rv); err != nil {
		return fmt.Errorf("informer: replace: %w", err)
	}
	r.listed()
	return nil
}

// accept checks an object's kind, drops its managedFields (unless asked to
// keep them) and applies the transform. Objects of the wrong kind are
// reported and dropped, never stored. A failed transform keeps the object as
// it came (dropping it could lose a delete).
func (r *reflector[P]) accept(obj P) (P, bool) {
	if r.cfg.expectedKind != "" || r.cfg.expectedAPIVersion != "" {
		if tm, ok := any(obj).(meta.TypeMetaAccessor); ok {
			t := tm.GetTypeMeta()
			partial := r.cfg.metadata && t.Kind == "PartialObjectMetadata" && t.APIVersion == "meta.k8s.io/v1"
			if !partial && ((t.Kind != "" && r.cfg.expectedKind != "" && t.Kind != r.cfg.expectedKind) ||
				(t.APIVersion != "" && r.cfg.expectedAPIVersion != "" && t.APIVersion != r.cfg.expectedAPIVersion)) {
				err := fmt.Errorf("informer: %s: expected %s %s, got %s %s", meta.Key(obj),
					r.cfg.expectedAPIVersion, r.cfg.expectedKind, t.APIVersion, t.Kind)
				r.cfg.obs.emit(observe.Event{Stage: observe.StageSkipped, Key: meta.Key(obj), Err: err})
				return obj, false
			}
		}
	}
	if !r.cfg.keepManagedFields {
		if m, ok := any(obj).(meta.FullMeta); ok {
			m.GetObjectMeta().ManagedFields = nil
		}
	}
	if r.cfg.transform != nil {
		t, err := r.cfg.transform(obj)
		if err != nil {
			r.cfg.obs.emit(observe.Event{Stage: observe.StageTransformFailed, Key: meta.Key(obj), Err: err})
			return obj, true
		}
		return t, true
	}
	return obj, true
}

// stepStreamListing opens a streaming list. Transitions: opened →
// streamInitial; rejected by the server (400/422/405) → listing, and LIST
// for good; 410 → streamListing at ""; 504 too-large-rv →
// streamListing at "" (the server's history went back: retrying the same
// rv would fail forever); other errors → backingOff, again.
func (r *reflector[P]) stepStreamListing(ctx context.Context, s streamListing) state {
	shape := r.streamShape(s.rv, s.cause)
	r.cfg.obs.emit(observe.Event{Stage: observe.StageRelist, Cause: s.cause, ResourceVersion: s.rv, Streaming: true, Metadata: r.cfg.metadata,
		Request: shape})
	w, err := r.lw.Watch(ctx, WatchRequest{Mode: StreamingList, ResourceVersion: s.rv, TimeoutSeconds: r.watchTimeout(),
		OpenTimeout: r.cfg.idleTimeout})
	if err != nil {
		err = fmt.Errorf("informer: streaming list at rv %q: %w", s.rv, err)
		if meta.IsBadRequest(err) || meta.IsInvalid(err) || meta.Code(err) == 405 {
			err = fmt.Errorf("%w: %w", errStreamingRejected, err)
		}
		r.cfg.obs.emit(observe.Event{Stage: observe.StageWatchFailed, ResourceVersion: s.rv, Streaming: true, Err: err})
		if next := r.planned(err); next != nil {
			return next
		}
		switch {
		case isGone(err):
			return r.fail(ctx, err, streamListing{cause: observe.CauseListGone}, true)
		case meta.IsTooLargeResourceVersion(err):
			return r.fail(ctx, err, streamListing{cause: observe.CauseTooLargeRV}, true)
		case errors.Is(err, errStreamingRejected):
			return r.fallBackToList(ctx, err)
		}
		return r.fail(ctx, err, streamListing{rv: s.rv, cause: observe.CauseListError}, false)
	}
	r.cfg.obs.emit(observe.Event{Stage: observe.StageWatchOpened, ResourceVersion: s.rv, Streaming: true, Metadata: r.cfg.metadata,
		Request: shape})
	return streamInitial[P]{w: w, opened: r.cfg.clock.Now(), cause: s.cause}
}

// fallBackToList gives up on streaming lists for good: the server said it
// does not support them (400, 422, 405; err wraps errStreamingRejected).
func (r *reflector[P]) fallBackToList(ctx context.Context, err error) state {
	r.streaming = false
	return r.fail(ctx, err, r.fallbackList(err), true)
}

// stepStreamInitial collects a streaming list's initial events. Their
// bound (Options.Sync.InitialEventsTimeout) is the stream's progress watchdog,
// an idle one: each event restarts it, so a large list that is still
// delivering is never cut (client-go only warns when it is slow).
// Transitions: initial-events-end bookmark → Replace, watching on the same
// stream; the stream ending or stalling before that bookmark → listing for
// this cycle only (an apiserver restarted mid-stream says nothing against
// streaming: client-go falls back the same way, once); 410 → streamListing
// at ""; 504 too-large-rv → streamListing at ""; an object that does not
// fit the type → backingOff, listing (which names it); any other error (a
// frame that does not decode, a broken stream) → listing for this cycle.
func (r *reflector[P]) stepStreamInitial(ctx context.Context, s streamInitial[P]) state {
	unhook := context.AfterFunc(ctx, s.w.Stop)
	defer unhook()
	var items []P
	index := map[string]int{}
	for n := 1; ; n++ {
		ev, err := s.w.Next()
		if err != nil {
			s.w.Stop()
			return r.streamInitialFailed(ctx, err)
		}
		if ev.Type != meta.Bookmark {
			var key string
			if r.cfg.obs.tracing() {
				key = meta.Key(ev.Object)
			}
			r.cfg.obs.emit(observe.Event{Stage: observe.StageEvent, EventType: ev.Type, Key: key, ResourceVersion: ev.ResourceVersion})
		}
		switch ev.Type {
		case meta.Added, meta.Modified:
			if obj, ok := r.accept(ev.Object); ok {
				items = upsert(items, index, obj)
			}
		case meta.Deleted:
			items = remove(items, index, meta.Key(ev.Object))
		case meta.Bookmark:
			bm := observe.Event{Stage: observe.StageBookmark, ResourceVersion: ev.ResourceVersion}
			if ev.InitialEventsEnd {
				bm.Op = observe.OpInitialEventsEnd // this bookmark ends the streaming list
			} else {
				// Only a bookmark of the cadence shows the server sends
				// them: the initial-events-end one comes from every server
				// that streams lists, including kube-apiserver serving a
				// resource from etcd, which sends no other (a quiet
				// resource would then be taken for a stalled one).
				r.bookmarks = true
			}
			r.cfg.obs.emit(bm)
			if !ev.InitialEventsEnd {
				continue
			}
			if err := r.replace(items, ev.ResourceVersion, nil); err != nil {
				s.w.Stop()
				return stopped{err: err}
			}
			return watching[P]{w: s.w, rv: ev.ResourceVersion, opened: s.opened, events: n}
		case meta.Error:
		}
	}
}

func (r *reflector[P]) streamInitialFailed(ctx context.Context, err error) state {
	switch {
	case ctx.Err() != nil:
		return stopped{}
	case r.planned(err) != nil:
		return r.planned(err)
	case watchstream.ProblemOf(err) == watchstream.Stalled || errors.Is(err, io.EOF):
		err = fmt.Errorf("%w: %w", errNoStreamingEnd, err)
		return r.fail(ctx, err, r.fallbackList(err), true)
	case isGone(err):
		return r.fail(ctx, err, streamListing{cause: observe.CauseListGone}, true)
	case meta.IsTooLargeResourceVersion(err):
		return r.fail(ctx, fmt.Errorf("informer: streaming list: %w", err), streamListing{cause: observe.CauseTooLargeRV}, true)
	case isUndecodable(err) && r.cfg.skipUndecodable:
		// A stream cannot step over an object that does not fit, and it
		// will be in every streaming list until it is fixed: LIST, which
		// skips it as asked, from now on. Not a failure: the list
		// reports the object (Undecodable, the Skipped metric).
		r.streaming = false
		return r.fallbackList(fmt.Errorf("%w: %w", errStreamingUnfit, err))
	case isUndecodable(err):
		// A stream cannot step over an object that does not fit; a LIST
		// names it in the SyncError.
		err = fmt.Errorf("informer: streaming list: %w", err)
		return r.fail(ctx, err, r.fallbackList(err), false)
	}
	// Anything else (a frame that does not decode, a stream broken
	// mid-way, an ERROR event): LIST this once, at once, as client-go's
	// ListAndWatch does after any watch-list error ("making progress is
	// better than deadlocking"); retrying the stream could meet the same
	// failure for ever. The next relist streams again.
	err = fmt.Errorf("informer: streaming list: %w", err)
	return r.fail(ctx, err, r.fallbackList(err), true)
}

// fallbackList is the LIST that replaces a streaming list that failed
// with why, which its relist trace event reports.
func (r *reflector[P]) fallbackList(why error) listing[P] {
	l := r.listFrom(r.relistRV(), observe.CauseStreamingFallback)
	l.why = why
	return l
}

// upsert and remove keep a list and a key→position index in step.
func upsert[P meta.Object](items []P, index map[string]int, obj P) []P {
	k := meta.Key(obj)
	if i, ok := index[k]; ok {
		items[i] = obj
		return items
	}
	index[k] = len(items)
	return append(items, obj)
}

func remove[P meta.Object](items []P, index map[string]int, key string) []P {
	i, ok := index[key]
	if !ok {
		return items
	}
	last := len(items) - 1
	items[i] = items[last]
	index[meta.Key(items[i])] = i
	delete(index, key)
	var zero P
	items[last] = zero
	return items[:last]
}
