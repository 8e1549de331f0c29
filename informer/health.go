package informer

import (
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-json-experiment/json"
)

// Health says whether an informer is in step with the server now, which
// HasSynced cannot: that one answers "did it ever sync". client-go's
// informers have no such view; their users watch metrics or build one.
type Health struct {
	// Name is Options.Name.
	Name string
	// Synced: the initial list is in the cache.
	Synced bool
	// LastProgress is when the reflector last heard from the server: a
	// list, a watch event or a bookmark. Zero before any.
	LastProgress time.Time
	// SinceProgress is how long ago that was.
	SinceProgress time.Duration
	// Stale: synced, but no progress for longer than Options.StaleAfter,
	// although a watch with bookmarks hears from the server about once a
	// minute even when nothing changes.
	Stale bool
	// Failure is the current failure (the last one since the last
	// progress), with its typed reason and the consecutive failures so
	// far in Attempts; nil when the last thing that happened worked.
	Failure *SyncError
	// ResourceVersion is the last one the reflector holds.
	ResourceVersion string
	// Undecodable counts the objects the last list skipped because they
	// do not fit the type (Options.SkipUndecodable).
	Undecodable int
}

// Healthy is Synced and not Stale: the cache is a recent copy of the
// server's state. A failure alone does not make an informer unhealthy:
// watches break and are reopened all the time; it shows in Failure, and
// makes the informer stale if it lasts.
func (h Health) Healthy() bool { return h.Synced && !h.Stale }

// health is the reflector's part of Health: progress and failures. The
// reflector's goroutine writes it; Health reads it from any goroutine.
type health struct {
	lastProgress atomic.Int64 // unix nanoseconds; 0: never
	failing      atomic.Bool  // failure != nil, read without the lock on every event
	mu           sync.Mutex
	failure      *SyncError
}

// progressed records that the server was heard from at now, which ends
// the current failure.
func (h *health) progressed(now time.Time) {
	h.lastProgress.Store(now.UnixNano())
	if h.failing.Load() {
		h.mu.Lock()
		h.failure = nil
		h.failing.Store(false)
		h.mu.Unlock()
	}
}

// failed records a failure as the current one.
func (h *health) failed(reason FailureReason, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 1
	if h.failure != nil {
		n = h.failure.Attempts + 1
	}
	h.failure = &SyncError{Reason: reason, Attempts: n, Err: err}
	h.failing.Store(true)
}

func (h *health) current() (last time.Time, failure *SyncError) {
	if ns := h.lastProgress.Load(); ns != 0 {
		last = time.Unix(0, ns)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return last, h.failure
}

// Health reports whether the informer is in step with the server now. Safe
// to call from any goroutine, at any time.
func (i *Informer[T, P]) Health() Health {
	last, failure := i.refl.health.current()
	h := Health{Name: i.opts.Name, Synced: i.HasSynced(), LastProgress: last, Failure: failure,
		ResourceVersion: i.LastSyncResourceVersion(), Undecodable: len(i.refl.undecodable())}
	if !last.IsZero() {
		h.SinceProgress = i.opts.Clock.Now().Sub(last)
	}
	h.Stale = h.Synced && i.opts.StaleAfter > 0 && h.SinceProgress > i.opts.StaleAfter
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
	Name                 string    `json:"name"`
	Healthy              bool      `json:"healthy"`
	Synced               bool      `json:"synced"`
	Stale                bool      `json:"stale"`
	LastProgress         time.Time `json:"lastProgress,omitzero"`
	SinceProgressSeconds float64   `json:"sinceProgressSeconds"`
	ResourceVersion      string    `json:"resourceVersion,omitempty"`
	Failure              string    `json:"failure,omitempty"`
	FailureReason        string    `json:"failureReason,omitempty"`
	ConsecutiveFailures  int       `json:"consecutiveFailures"`
	Undecodable          int       `json:"undecodable,omitzero"`
}

func toJSON(h Health) healthJSON {
	j := healthJSON{Name: h.Name, Healthy: h.Healthy(), Synced: h.Synced, Stale: h.Stale,
		LastProgress: h.LastProgress, SinceProgressSeconds: h.SinceProgress.Seconds(),
		ResourceVersion: h.ResourceVersion, Undecodable: h.Undecodable}
	if f := h.Failure; f != nil {
		j.Failure, j.FailureReason, j.ConsecutiveFailures = f.Err.Error(), f.Reason.String(), f.Attempts
	}
	return j
}
