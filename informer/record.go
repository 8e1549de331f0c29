package informer

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zerokube/zerokube/informer/observe"
)

// record is the informer's one account of how it stands with the server:
// the failures (one streak, one backoff exponent, one 410 streak), when the
// server last answered, when the cache last applied what it said, the
// resourceVersion and the objects the last list skipped. The reflector
// writes failures, contact, the resourceVersion and the skipped objects;
// the dispatcher writes what it applied and the sync. Health, SyncError,
// WaitForSync and the backoff all read this one record, so they cannot
// disagree. Safe for concurrent use.
type record struct {
	// resetAfter (BackoffOptions.ResetAfter) is how long without a failure
	// ends a failure streak and the backoff's exponent.
	resetAfter time.Duration

	started     atomic.Int64 // unix ns: Run began; 0 before Run
	lastContact atomic.Int64 // unix ns: the server last answered (list, watch opened, event, bookmark); 0: never
	lastApplied atomic.Int64 // unix ns: the dispatcher last applied a batch to the cache; 0: never
	streakOpen  atomic.Bool  // streak > 0, read without mu on every watch event

	mu       sync.Mutex // guards the fields below
	failure  *SyncError // the last failure of the current streak; nil when there is none
	failing  bool       // failure is current: the server has not answered since
	streak   int        // consecutive failures: ended by a working watch, or resetAfter without a failure
	since    time.Time  // the streak's first failure
	burst    int        // failures since the last resetAfter without one: the backoff's exponent
	lastFail time.Time
	// gone counts the failures a relist cures (410 Gone, 504
	// ResourceVersionTooLarge, alike) since a watch last worked: neither
	// a list that works nor another failure between them ends it (a
	// streaming list that fails and falls back to LIST before every watch
	// gets 410 is the same loop as a LIST that works before it).
	gone    int
	reached bool // the server answered a list or a resumed watch since Run began
	synced  bool // the informer had synced (the dispatcher says so)
	rv      string
	skipped []UndecodableObject // by the last complete list
}

func newRecord(resetAfter time.Duration) *record {
	return &record{resetAfter: resetAfter}
}

// failed records a failure at now and returns it as the current
// SyncError, classified (a third 410 in a row is observe.FailureRepeatedGone).
// 410 and 504 ResourceVersionTooLarge extend the streak of relists; only a
// watch that works ends it.
func (r *record) failed(now time.Time, err error) *SyncError {
	r.mu.Lock()
	defer r.mu.Unlock()
	quiet := !r.lastFail.IsZero() && now.Sub(r.lastFail) >= r.resetAfter
	if quiet {
		r.burst, r.streak = 0, 0
	}
	if r.streak == 0 {
		r.since = now
	}
	r.streak++
	r.burst++
	r.lastFail = now
	if relistNow(err) {
		r.gone++
	}
	r.failure = &SyncError{Reason: classify(err, r.gone), Attempts: r.streak, Since: r.since, Synced: r.synced, Err: err}
	r.failing = true
	r.streakOpen.Store(true)
	return r.failure
}

// backoffExponent is the number of failures the backoff doubles for: those
// since the last resetAfter without a failure, minus the current one.
func (r *record) backoffExponent() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return max(r.burst-1, 0)
}

// contacted records that the server answered at now: the current failure
// is over (its streak goes on until the watch works).
func (r *record) contacted(now time.Time) {
	r.lastContact.Store(now.UnixNano())
	if r.streakOpen.Load() {
		r.mu.Lock()
		r.failing = false
		r.mu.Unlock()
	}
}

// opened records a watch the server opened at now: contact, unless the
// current failure is a stall. A server that answers each request and then
// sends nothing has not been heard from until a reply delivers (an event,
// a list): otherwise every reopened watch would end the failure and
// refresh the progress, and a watch that stalls again and again would look
// healthy forever.
func (r *record) opened(now time.Time) {
	if r.streakOpen.Load() {
		r.mu.Lock()
		stalled := r.failing && r.failure != nil && r.failure.Reason == observe.FailureStalled
		r.mu.Unlock()
		if stalled {
			return
		}
	}
	r.contacted(now)
}

// listed records a complete list from the server at rv: contact, the
// informer has reached the server, and skipped are the objects that list
// left out. The 410 streak goes on: only a watch that works ends it.
func (r *record) listed(now time.Time, rv string, skipped []UndecodableObject) {
	r.mu.Lock()
	r.reached, r.rv, r.skipped = true, rv, skipped
	r.mu.Unlock()
	r.contacted(now)
}

// resumed records a watch opened from a snapshot's resourceVersion: the
// server answered, and the cache it resumes is in step with it.
func (r *record) resumed(now time.Time) {
	r.mu.Lock()
	r.reached = true
	r.mu.Unlock()
	r.contacted(now)
}

// watchWorked ends the failure streak: a watch delivered an event, or ran
// to its timeout. A list alone does not end it (a list that works before
// every watch fails is a failing informer, issue #25 item 9).
func (r *record) watchWorked() {
	if !r.streakOpen.Load() {
		return
	}
	r.mu.Lock()
	r.streak, r.gone, r.failure, r.failing = 0, 0, nil, false
	r.streakOpen.Store(false)
	r.mu.Unlock()
}

// hasReached reports whether the server answered a list or a resumed watch
// since Run began: until then FailFast applies.
func (r *record) hasReached() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reached
}

func (r *record) markSynced() {
	r.mu.Lock()
	r.synced = true
	r.mu.Unlock()
}

// current is the current failure: the streak's last, while the server has
// not answered since; nil otherwise.
func (r *record) current() *SyncError {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.failing {
		return nil
	}
	return r.failure
}

// lastFailure is the streak's last failure, current or not: why a sync
// that has not completed is not complete.
func (r *record) lastFailure() *SyncError {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failure
}

func (r *record) setRV(rv string) {
	r.mu.Lock()
	r.rv = rv
	r.mu.Unlock()
}

func (r *record) resourceVersion() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rv
}

func (r *record) skippedCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.skipped)
}

func (r *record) undecodable() []UndecodableObject {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.skipped)
}

// progress is when the cache was last known to hold what the server had
// said: the last contact when nothing is waiting to be applied (drained),
// else the older of the last contact and the last batch applied. Zero
// before either; then Run's start is the reference (see Health).
func (r *record) progress(drained bool) time.Time {
	contact := r.lastContact.Load()
	if !drained {
		if applied := r.lastApplied.Load(); applied < contact {
			contact = applied
		}
	}
	if contact == 0 {
		return time.Time{}
	}
	return time.Unix(0, contact)
}
