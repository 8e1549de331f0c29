package informer

import (
	"context"
	"errors"
	"time"

	"github.com/zerokube/zerokube/clock"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
)

// sink is what the reflector writes into: the delta queue. fifo.Queue has
// these methods; tests use a recording fake.
type sink[P any] interface {
	Add(obj P) error
	Update(obj P) error
	Delete(obj P) error
	Replace(list []P, resourceVersion string) error
}

// bookmarker is a sink that wants to hear of bookmarks: the informer's
// snapshots record the resourceVersion they bring.
type bookmarker interface{ Bookmark(rv string) }

// reflectorConfig is the part of Options the reflector reads, with defaults
// filled in.
type reflectorConfig[P meta.Object] struct {
	name                string
	pageSize            int64
	streaming           bool
	consistentFirstList bool          // the first list at "" instead of "0"
	minWatchTimeout     time.Duration // 0: the server chooses
	// idleTimeout bounds the wait for a watch's answer (OpenTimeout); the
	// silence after it is the reply's reader's (watchstream's watchdog,
	// set up by the resource's ListerWatcher). 0: off.
	idleTimeout        time.Duration
	expectedKind       string
	expectedAPIVersion string
	// metadata: the objects come as meta.k8s.io/v1 PartialObjectMetadata
	// (asksMetadata), which the kind check accepts for any kind.
	metadata bool
	// describe adds the resource's part of a request's shape for the
	// trace (resourceLW.describe, wrapped by the shard's describing to
	// add its selector; set by New); nil: none.
	describe          func(*observe.Request)
	transform         func(P) (P, error)
	keepManagedFields bool
	watchErrorHandler func(ctx context.Context, err error)
	failFast          bool
	skipUndecodable   bool
	clock             clock.Clock
	rand              func() float64
	// obs hears every happening (observers.go); metrics, for the
	// resourceVersion gauge, is the same Options.Observe.Metrics.
	obs     observers
	metrics observe.Metrics
	backoff BackoffOptions
	// probe asks whether the server answers at all (apiclient's Probe:
	// New sets it); nil: no probing, the backoff is waited out.
	probe func(ctx context.Context) error
}

// probeEvery is how often a reflector backing off after the server was out
// of reach asks whether it is back: about a second, as client-go's REST
// client retries a failed GET, so that the cache is in step again within
// about a second of a heal, with one cheap request a second meanwhile.
const probeEvery = time.Second

// reflector keeps a sink in step with the server: LIST (or a streaming list)
// into Replace, then WATCH into Add/Update/Delete, recovering from every
// error by the rules in doc.go. It is a state machine: step runs one state
// and returns the next; run drives it. Only run's goroutine touches its
// fields; what others read (failures, contact, the resourceVersion, the
// skipped objects) it writes to rec.
type reflector[P meta.Object] struct {
	lw  ListerWatcher[P]
	q   sink[P]
	rec *record
	// listed runs after each Replace: the dispatcher's sync check (an
	// empty first list syncs without any pop).
	listed func()
	cfg    reflectorConfig[P]

	back      backoff
	streaming bool // false after a streaming list failed: LIST from then on
	paginated bool // a list came back in pages: keep paging relists
	// bookmarks: the server has sent a bookmark, so a watch silent for
	// the idle timeout is one that stalled, not a quiet resource.
	bookmarks bool
	// hurried is when a failure was last answered at once, without a
	// backoff; zero after a backoff's wait. Until a healthy period
	// (BackoffOptions.ResetAfter) has passed since, the next failure waits
	// (fail). An event does not clear it: a watch that brings one event
	// and then 410, for ever, is the same loop as one that brings none.
	hurried time.Time
}

// newReflector returns the reflector that lists and watches lw into q,
// recording into rec and calling listed (nil: nothing) after each list.
func newReflector[P meta.Object](lw ListerWatcher[P], q sink[P], rec *record, listed func(), cfg reflectorConfig[P]) *reflector[P] {
	if listed == nil {
		listed = func() {}
	}
	return &reflector[P]{lw: lw, q: q, rec: rec, listed: listed, cfg: cfg,
		back: newBackoff(cfg.backoff, cfg.rand), streaming: cfg.streaming}
}

// lastSyncResourceVersion is the resourceVersion the queue is known to be
// in step with: the last list's, event's or bookmark's.
func (r *reflector[P]) lastSyncResourceVersion() string { return r.rec.resourceVersion() }

func (r *reflector[P]) setRV(rv string) {
	r.rec.setRV(rv)
	r.cfg.metrics.ResourceVersion(rv)
}

// run drives the state machine from s until ctx ends or fail-fast stops it.
func (r *reflector[P]) run(ctx context.Context, s state) error {
	for {
		s = r.step(ctx, s)
		if st, ok := s.(stopped); ok {
			return st.err
		}
	}
}

// initialState is the first list of an informer that has nothing cached.
func (r *reflector[P]) initialState() state {
	if r.streaming {
		return streamListing{cause: observe.CauseInitial}
	}
	if r.cfg.consistentFirstList {
		return r.listFrom("", observe.CauseInitial)
	}
	return r.listFrom("0", observe.CauseInitial)
}

// step runs one state. Every state's method returns the next state; a
// cancelled context leads to stopped from wherever the machine is.
func (r *reflector[P]) step(ctx context.Context, s state) state {
	if ctx.Err() != nil {
		if s, ok := s.(resuming[P]); ok {
			s.pre.drop()
		}
		return stopped{}
	}
	switch s := s.(type) {
	case listing[P]:
		return r.stepListing(ctx, s)
	case streamListing:
		return r.stepStreamListing(ctx, s)
	case streamInitial[P]:
		return r.stepStreamInitial(ctx, s)
	case watchOpening:
		return r.stepWatchOpening(ctx, s)
	case resuming[P]:
		return r.stepResuming(ctx, s)
	case watching[P]:
		return r.stepWatching(ctx, s)
	case backingOff:
		return r.stepBackingOff(ctx, s)
	case stopped:
		return s
	}
	panic("informer: reflector in an unknown state")
}

// stepBackingOff waits, then moves on. The failure that led here was
// recorded by fail already: backingOff only waits. The wait is the server's
// Retry-After hint when it gave one (429, 504), capped at the backoff's
// maximum, otherwise the next exponential delay.
func (r *reflector[P]) stepBackingOff(ctx context.Context, s backingOff) state {
	delay := r.back.delay(r.rec.backoffExponent())
	if hint, ok := meta.RetryAfter(s.err); ok {
		// A hint of an hour (a confused proxy) must not park the informer
		// longer than its own worst backoff would.
		delay = min(hint, r.back.opts.Max)
	}
	r.cfg.obs.emit(observe.Event{Stage: observe.StageBackoff, Duration: delay, Err: s.err})
	r.hurried = time.Time{}
	// The record classified the failure as it recorded it: read that, not
	// classify the error again.
	if f := r.rec.lastFailure(); r.cfg.probe != nil && f != nil && f.Reason == observe.FailureUnreachable {
		return r.probeUntil(ctx, delay, s.next)
	}
	t := r.cfg.clock.NewTimer(delay)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return stopped{}
	case <-t.C():
		return s.next
	}
}

// probeUntil waits out delay after the server was out of reach, asking
// every probeEvery whether it answers again: the first answer ends the
// wait. A backoff grown during a partition (up to 30 s) would otherwise
// hold the informer that long after the heal. Only this failure probes:
// a server that answered (a 5xx, a 429, a stall) is not waited out any
// faster for being reachable.
func (r *reflector[P]) probeUntil(ctx context.Context, delay time.Duration, next state) state {
	for left := delay; left > 0; {
		step := min(left, probeEvery)
		t := r.cfg.clock.NewTimer(step)
		select {
		case <-ctx.Done():
			t.Stop()
			return stopped{}
		case <-t.C():
		}
		left -= step
		if left > 0 && r.cfg.probe(ctx) == nil {
			return next
		}
	}
	return next
}

// fail is the one place a failure is recorded: in the record (the streak,
// the backoff's exponent, the 410 streak, the typed failure), and to the
// watch-error handler. It returns the next state: a stop state when
// fail-fast applies (a failure retrying cannot fix before the server ever
// answered; a snapshot's cache does not count: a 403 after a restart
// stops too); next itself when immediate and the failure before this one
// was not answered at once too; else a backoff before next.
//
// That is the one recovery cycle: whatever ended the last list-and-watch,
// the next starts after one backoff, which only a healthy period resets
// (BackoffOptions.ResetAfter). Immediate is where client-go makes its
// retry at once: a 410 or 504 that says where to go next from a server
// that otherwise answers. Never twice in a row without a wait: each rule
// that retries at once is right alone, but two of them in turn (a failed
// streaming list falls back to LIST at once, the WATCH after it meets 410,
// which relists at once, and so on) made a loop of thousands of requests
// a second with no backoff at all.
func (r *reflector[P]) fail(ctx context.Context, err error, next state, immediate bool) state {
	if ctx.Err() != nil {
		return stopped{}
	}
	se := r.rec.failed(r.cfg.clock.Now(), err)
	if r.cfg.watchErrorHandler != nil {
		r.cfg.watchErrorHandler(ctx, se)
	}
	if r.cfg.failFast && permanent(se.Reason) && !r.rec.hasReached() {
		return stopped{err: se}
	}
	if now := r.cfg.clock.Now(); immediate && (r.hurried.IsZero() || now.Sub(r.hurried) >= r.back.opts.ResetAfter) {
		r.hurried = now
		return next
	}
	return backingOff{err: err, next: next}
}

// planned is the relist of a planned change, not a failure: Shard.Set
// moved the shard (the ListerWatcher's errReshardMoved), or the cache
// audit asked for a repair (errAuditRepair). No failure is
// recorded, the watch-error handler is not called and nothing waits; nil
// when err is anything else.
func (r *reflector[P]) planned(err error) state {
	switch {
	case errors.Is(err, errAuditRepair):
		// The audit found the cache differs: a consistent relist, at "",
		// so that a stale watch cache is not trusted again.
		return r.relist("", observe.CauseAudit)
	case errors.Is(err, errReshardMoved):
		return r.relist(r.relistRV(), observe.CauseReshard)
	}
	return nil
}
