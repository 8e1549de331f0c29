package informer

import (
	"net/http"
	"time"

	"github.com/go-json-experiment/json"
)

// Health says whether an informer is in step with the server now, which
// HasSynced cannot: that one answers "did it ever sync". client-go's
// informers have no such view; their users watch metrics or build one.
type Health struct {
	// Name is Options.Name.
	Name string
	// Synced: the initial list (or a snapshot) is in the cache.
	Synced bool
	// LastProgress is when the cache was last known to hold what the
	// server had said: the last time the server answered (a list, a watch
	// opened, an event, a bookmark) when everything it said is applied,
	// else the last time the cache applied a batch (a handler that blocks
	// the processing loop stops it). Zero before any.
	LastProgress time.Time
	// SinceProgress is how long ago that was; before any progress, how
	// long ago Run began (an informer resumed from a snapshot that never
	// reaches the server grows stale too).
	SinceProgress time.Duration
	// Stale: synced, but no progress for longer than Options.Health.StaleAfter,
	// although a watch with bookmarks hears from the server about once a
	// minute even when nothing changes.
	Stale bool
	// Failure is the current failure: the last one, while the server has
	// not answered since, with its typed reason, the consecutive failures
	// so far in Attempts (a list that works between two failures does not
	// end the count, a watch that works does) and the first one's time in
	// Since; nil when the last thing that happened worked.
	Failure *SyncError
	// FailingFor is how long the failures have gone on: since
	// Failure.Since; 0 without a Failure. With Failure.Attempts it is the
	// "failing now, and for how long" of a liveness probe.
	FailingFor time.Duration
	// Failing: Failure has reached Options.Health.UnhealthyAfterFailures
	// consecutive attempts. An unreachable server is known within seconds
	// this way, long before StaleAfter.
	Failing bool
	// ResourceVersion is the last one the reflector holds.
	ResourceVersion string
	// Undecodable counts the objects the last list skipped because they
	// do not fit the type (Options.Decode.SkipUndecodable).
	Undecodable int
	// Audit is the last cache audit's result (Options.Audit); nil before
	// the first, or without the option.
	Audit *AuditResult
	// Diverged: the last audit that compared found the cache different
	// from the server, and no list has replaced the cache since
	// (AuditOptions.Repair relists at once); an audit that could not
	// compare (a 410) does not end it. The agent would act on a cache
	// that is wrong.
	Diverged bool
}

// Healthy is Synced, not Stale, not Failing and not Diverged: the cache is
// a recent copy of the server's state, as far as the last audit knows,
// and the informer is not failing again and again. One failure alone does
// not make an informer unhealthy: watches break and are reopened all the
// time; it shows in Failure.
func (h Health) Healthy() bool { return h.Synced && !h.Stale && !h.Failing && !h.Diverged }

// Health reports whether the informer is in step with the server now. Safe
// to call from any goroutine, at any time.
func (i *Informer[T, P]) Health() Health {
	rec := i.p.rec
	last := rec.progress(i.p.queue.Drained())
	h := Health{Name: i.opts.Name, Synced: i.HasSynced(), LastProgress: last, Failure: rec.current(),
		ResourceVersion: rec.resourceVersion(), Undecodable: rec.skippedCount()}
	h.Audit, h.Diverged = i.p.audit.result()
	ref := last
	if ref.IsZero() {
		if ns := rec.started.Load(); ns != 0 {
			ref = time.Unix(0, ns)
		}
	}
	now := i.opts.Clock.Now()
	if !ref.IsZero() {
		h.SinceProgress = now.Sub(ref)
	}
	if h.Failure != nil {
		h.FailingFor = now.Sub(h.Failure.Since)
	}
	h.Stale = h.Synced && i.opts.Health.StaleAfter > 0 && h.SinceProgress > i.opts.Health.StaleAfter
	n := i.opts.Health.UnhealthyAfterFailures
	h.Failing = h.Failure != nil && n > 0 && h.Failure.Attempts >= n
	return h
}

// HealthReporter is anything with a Health: every Informer.
type HealthReporter interface{ Health() Health }

// HealthHandler serves the health of the informers as JSON, for an agent's
// /healthz: 200 when every one is healthy, 503 otherwise, with each one's
// view in the body either way.
func HealthHandler(informers ...HealthReporter) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		body := healthBody{Healthy: true, Informers: make([]healthJSON, 0, len(informers))}
		for _, inf := range informers {
			h := inf.Health()
			body.Healthy = body.Healthy && h.Healthy()
			body.Informers = append(body.Informers, toJSON(h))
		}
		b, err := json.Marshal(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		if !body.Healthy {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		_, _ = w.Write(append(b, '\n'))
	})
}

type healthBody struct {
	Healthy   bool         `json:"healthy"`
	Informers []healthJSON `json:"informers"`
}

// healthJSON is Health on the wire: durations in seconds, errors as text.
type healthJSON struct {
	Name                 string     `json:"name"`
	Healthy              bool       `json:"healthy"`
	Synced               bool       `json:"synced"`
	Stale                bool       `json:"stale"`
	LastProgress         time.Time  `json:"lastProgress,omitzero"`
	SinceProgressSeconds float64    `json:"sinceProgressSeconds"`
	ResourceVersion      string     `json:"resourceVersion,omitempty"`
	Failure              string     `json:"failure,omitempty"`
	FailureReason        string     `json:"failureReason,omitempty"`
	ConsecutiveFailures  int        `json:"consecutiveFailures"`
	Failing              bool       `json:"failing,omitzero"`
	FailingSince         time.Time  `json:"failingSince,omitzero"`
	FailingForSeconds    float64    `json:"failingForSeconds,omitzero"`
	Undecodable          int        `json:"undecodable,omitzero"`
	Diverged             bool       `json:"diverged,omitzero"`
	Audit                *auditJSON `json:"audit,omitempty"`
}

// auditJSON is AuditResult on the wire.
type auditJSON struct {
	At              time.Time `json:"at"`
	TookSeconds     float64   `json:"tookSeconds"`
	ResourceVersion string    `json:"resourceVersion"`
	Listed          int       `json:"listed"`
	Missing         int       `json:"missing,omitzero"`
	Extra           int       `json:"extra,omitzero"`
	Stale           int       `json:"stale,omitzero"`
	Keys            []string  `json:"keys,omitempty"`
	Err             string    `json:"error,omitempty"`
}

func auditToJSON(r *AuditResult) *auditJSON {
	if r == nil {
		return nil
	}
	j := &auditJSON{At: r.At, TookSeconds: r.Took.Seconds(), ResourceVersion: r.ResourceVersion, Listed: r.Listed}
	if d := r.Difference; d != nil {
		j.Missing, j.Extra, j.Stale, j.Keys = d.Missing, d.Extra, d.Stale, d.Keys
	}
	if r.Err != nil {
		j.Err = r.Err.Error()
	}
	return j
}

func toJSON(h Health) healthJSON {
	j := healthJSON{Name: h.Name, Healthy: h.Healthy(), Synced: h.Synced, Stale: h.Stale,
		LastProgress: h.LastProgress, SinceProgressSeconds: h.SinceProgress.Seconds(),
		ResourceVersion: h.ResourceVersion, Undecodable: h.Undecodable, Failing: h.Failing,
		Diverged: h.Diverged, Audit: auditToJSON(h.Audit)}
	if f := h.Failure; f != nil {
		j.Failure, j.FailureReason, j.ConsecutiveFailures = f.Err.Error(), f.Reason.String(), f.Attempts
		j.FailingSince, j.FailingForSeconds = f.Since, h.FailingFor.Seconds()
	}
	return j
}
