package leaderelection_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/clock"
	"github.com/zerokube/zerokube/clock/clocktest"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/leaderelection"
)

// The safety rig: candidates against one fake API server, in a
// discrete-event simulation. One fake clock is the world's time; each
// candidate reads it through a clock of its own (which a test can set
// ahead) and talks to the server through a network of its own (which a
// test can cut or slow down). The rig advances the world only when every
// candidate is parked on a timer of its clock, and only to the next
// instant at which one of them is due, so every decision a candidate makes
// happens at a known instant and the order of events is the order of
// time, while the HTTP between them is real.

// world is the simulation.
type world struct {
	t     *testing.T
	srv   *fakeapiserver.Server
	clk   *clocktest.Fake
	start time.Time // the world's first instant

	mu      sync.Mutex // guards the fields below and every cand's
	cands   []*cand
	terms   []term
	strict  bool          // check, at each start, that no other work context is live
	prepare func(*cand)   // when set, called on each new candidate before its Run starts
	changed chan struct{} // closed and replaced at every change of a candidate's state
}

// term is one leadership, in world time.
type term struct {
	id    string
	start time.Time
	// end is when the rig saw the work context end (exact while the world
	// is run event by event); own is the end the candidate reported on its
	// own clock (LostError.At), put back in world time. Both are zero
	// while the term lasts.
	end, own time.Time
	cause    *leaderelection.LostError
}

// cand is one candidate.
type cand struct {
	w       *world
	id      string
	el      *leaderelection.Elector
	net     *network
	clk     *candClock
	stop    context.CancelFunc
	done    chan struct{}
	err     error           // Run's result, once done
	work    context.Context // the live leadership's context, if any
	parked  bool            // waiting on a timer of its clock
	until   time.Time       // world time its timer fires, while parked
	exited  bool
	stopped int // OnStoppedLeading calls
}

func newWorld(t *testing.T) *world {
	w := &world{t: t, srv: newServer(t), clk: clocktest.New(), changed: make(chan struct{}), strict: true}
	w.start = w.clk.Now()
	t.Cleanup(w.stopAll)
	return w
}

// signalLocked wakes awaitQuiet. w.mu must be held.
func (w *world) signalLocked() {
	close(w.changed)
	w.changed = make(chan struct{})
}

// join starts a candidate with client-go's default durations.
func (w *world) join(id string) *cand { return w.joinWith(id, 0, nil) }

// joinSkewed starts a candidate whose clock is off the world's by skew
// from the start.
func (w *world) joinSkewed(id string, skew time.Duration) *cand { return w.joinWith(id, skew, nil) }

// joinWith starts a candidate whose clock is off by skew and whose Config
// edit changes, when set.
func (w *world) joinWith(id string, skew time.Duration, edit func(*leaderelection.Config)) *cand {
	c := &cand{w: w, id: id, done: make(chan struct{})}
	c.clk = &candClock{c: c, offset: skew}
	c.net = &network{c: c}
	cfg := leaderelection.Config{
		Client:    newClient(w.t, w.srv, func(rt http.RoundTripper) http.RoundTripper { c.net.inner = rt; return c.net }),
		Namespace: "default", Name: "ctrl", Identity: id, Clock: c.clk, Logger: quiet(),
		OnStartedLeading: c.lead,
		OnStoppedLeading: func() {
			w.mu.Lock()
			c.stopped++
			w.mu.Unlock()
		},
	}
	if edit != nil {
		edit(&cfg)
	}
	el, err := leaderelection.New(cfg)
	require.NoError(w.t, err)
	c.el = el
	if w.prepare != nil {
		w.prepare(c)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c.stop = cancel
	w.mu.Lock()
	w.cands = append(w.cands, c)
	w.mu.Unlock()
	go func() {
		err := el.Run(ctx)
		w.mu.Lock()
		c.err, c.exited, c.parked = err, true, false
		w.signalLocked()
		w.mu.Unlock()
		close(c.done)
	}()
	return c
}

// lead is the candidate's OnStartedLeading: it records the term and, in a
// strict world, that no other candidate's work is live.
func (c *cand) lead(ctx context.Context) {
	w := c.w
	w.mu.Lock()
	i := len(w.terms)
	w.terms = append(w.terms, term{id: c.id, start: w.clk.Now()})
	for _, o := range w.cands {
		if o != c && o.work != nil && o.work.Err() == nil && w.strict {
			w.t.Errorf("%s started leading at %s while %s's work context is live", c.id, w.clk.Now(), o.id)
		}
	}
	c.work = ctx
	w.signalLocked()
	w.mu.Unlock()
	<-ctx.Done()
	var lost *leaderelection.LostError
	if !errors.As(context.Cause(ctx), &lost) {
		w.t.Errorf("%s: the work context's cause is %v, not a *LostError", c.id, context.Cause(ctx))
		return
	}
	w.mu.Lock()
	w.terms[i].end, w.terms[i].own, w.terms[i].cause = w.clk.Now(), lost.At.Add(-c.clk.offset), lost
	w.signalLocked()
	w.mu.Unlock()
}

// quietLocked reports whether c is waiting for time to pass: exited, or
// parked on its clock with its leadership (if any) seen by the rig.
// w.mu must be held.
func (c *cand) quietLocked() bool {
	if c.exited {
		return true
	}
	if c.el.IsLeader() && (c.work == nil || c.work.Err() != nil) {
		return false // its work has not started yet
	}
	if c.work != nil && c.work.Err() != nil && !c.w.endedLocked(c.id) {
		return false // its work has not seen the end yet
	}
	return c.parked
}

// endedLocked reports whether every term of id has its end recorded. w.mu
// must be held.
func (w *world) endedLocked(id string) bool {
	for _, tm := range w.terms {
		if tm.id == id && tm.end.IsZero() {
			return false
		}
	}
	return true
}

// awaitQuiet waits until every candidate is quiet.
func (w *world) awaitQuiet() {
	w.t.Helper()
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for {
		w.mu.Lock()
		var busy []string
		for _, c := range w.cands {
			if !c.quietLocked() {
				busy = append(busy, fmt.Sprintf("%s(parked=%t leader=%t)", c.id, c.parked, c.el.IsLeader()))
			}
		}
		changed := w.changed
		w.mu.Unlock()
		if len(busy) == 0 {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			w.t.Fatalf("candidates still busy after %s: %s", wait, strings.Join(busy, ", "))
		}
	}
}

// run advances the world by d, event by event: after each event every
// candidate has done what that instant asked of it.
func (w *world) run(d time.Duration) {
	w.t.Helper()
	end := w.clk.Now().Add(d)
	for {
		w.awaitQuiet()
		next := w.nextEvent(end)
		w.wake(next) // marks the candidates due at next as busy
		w.clk.Advance(next.Sub(w.clk.Now()))
		if !next.Before(end) {
			w.awaitQuiet()
			return
		}
	}
}

// jump moves the world by d at once, as after a suspend: every timer due
// fires in the same Advance and the candidates act concurrently.
func (w *world) jump(d time.Duration) {
	w.t.Helper()
	w.awaitQuiet()
	w.wake(w.clk.Now().Add(d))
	w.clk.Advance(d)
	w.awaitQuiet()
}

// nextEvent is the earliest instant a timer of a candidate is due, or end.
func (w *world) nextEvent(end time.Time) time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	next := end
	for _, c := range w.cands {
		if c.parked && c.until.Before(next) {
			next = c.until
		}
		for _, at := range c.clk.afters {
			if at.Before(next) {
				next = at
			}
		}
	}
	return next
}

// wake marks busy every candidate whose timer is due by t, before the
// clock moves, so that awaitQuiet waits for it to park again.
func (w *world) wake(t time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, c := range w.cands {
		if c.parked && !c.until.After(t) {
			c.parked = false
		}
	}
}

// cancel ends c's Run (its release, by default) and waits for it.
func (c *cand) cancel() {
	c.w.mu.Lock()
	c.parked = false
	c.w.mu.Unlock()
	c.stop()
	c.w.awaitQuiet()
}

func (w *world) stopAll() {
	for _, c := range w.cands {
		c.net.set(false, 0) // so that a release is not held up
		c.w.mu.Lock()
		c.parked = false
		c.w.mu.Unlock()
		c.stop()
		<-c.done
	}
}

// leaders is who leads now, by the rig's record.
func (w *world) leaders() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var ids []string
	for _, c := range w.cands {
		if c.work != nil && c.work.Err() == nil {
			ids = append(ids, c.id)
		}
	}
	return ids
}

// checkSafe fails the test if two terms of different candidates overlap
// in world time. byOwn compares the ends the candidates reported on their
// own clocks (after a jump of the world, the rig sees an end only after the
// jump); otherwise the ends the rig saw.
func (w *world) checkSafe(byOwn bool) {
	w.t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	end := func(tm term) time.Time {
		switch {
		case tm.end.IsZero():
			return w.clk.Now().Add(time.Hour) // still leading
		case byOwn:
			return tm.own
		}
		return tm.end
	}
	for i, a := range w.terms {
		for _, b := range w.terms[i+1:] {
			if a.id != b.id && a.start.Before(end(b)) && b.start.Before(end(a)) {
				w.t.Fatalf("%s led [%s, %s) and %s led [%s, %s)", a.id, a.start, end(a), b.id, b.start, end(b))
			}
		}
	}
}

// started is the start of the first term of id after from, or zero.
func (w *world) started(id string, from time.Time) time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, tm := range w.terms {
		if tm.id == id && !tm.start.Before(from) {
			return tm.start
		}
	}
	return time.Time{}
}

// candClock is a candidate's view of the world clock: offset ahead of it,
// and it tells the rig when the candidate parks on a timer and which
// deadlines it has armed.
type candClock struct {
	c      *cand
	offset time.Duration        // guarded by w.mu
	afters map[*after]time.Time // armed AfterFunc timers, world time; guarded by w.mu
}

var _ clock.Clock = (*candClock)(nil)

func (k *candClock) Now() time.Time {
	k.c.w.mu.Lock()
	off := k.offset
	k.c.w.mu.Unlock()
	return k.c.w.clk.Now().Add(off)
}

// NewTimer is how the candidate waits: it parks until the timer fires or
// its context ends.
func (k *candClock) NewTimer(d time.Duration) clock.Timer {
	w := k.c.w
	w.mu.Lock()
	defer w.mu.Unlock()
	k.c.parked, k.c.until = true, w.clk.Now().Add(max(d, 0))
	w.signalLocked()
	return w.clk.NewTimer(d)
}

// after is an AfterFunc timer the rig knows of: a leader's deadline.
type after struct {
	k *candClock
	t clock.Timer
}

func (k *candClock) AfterFunc(d time.Duration, f func()) clock.Timer {
	w := k.c.w
	a := &after{k: k}
	w.mu.Lock()
	defer w.mu.Unlock()
	if k.afters == nil {
		k.afters = map[*after]time.Time{}
	}
	k.afters[a] = w.clk.Now().Add(d)
	a.t = w.clk.AfterFunc(d, func() {
		w.mu.Lock()
		delete(k.afters, a)
		k.c.parked = false // f ends its context: it has work to do
		w.mu.Unlock()
		f()
	})
	return a
}

func (a *after) C() <-chan time.Time { return nil }
func (a *after) Stop() bool {
	a.k.c.w.mu.Lock()
	delete(a.k.afters, a)
	a.k.c.w.mu.Unlock()
	return a.t.Stop()
}
func (a *after) Reset(time.Duration) bool { panic("rig: Reset of an AfterFunc timer is not simulated") }

// jumpAhead sets c's clock d further ahead of the world.
func (c *cand) jumpAhead(d time.Duration) {
	c.w.mu.Lock()
	c.clk.offset += d
	c.w.mu.Unlock()
}

// network is a candidate's link to the server: cut (every request fails
// before it is sent, as in a partition) or slow (the server answers, and
// the answer reaches the candidate delay later on its clock).
type network struct {
	c     *cand
	inner http.RoundTripper
	mu    sync.Mutex // guards the fields below
	cut   bool
	delay time.Duration
	// cutAfterSlow cuts the link once one slowed answer was delivered.
	cutAfterSlow bool
	// lose, when set, is the next write's fate: see loseNextAnswer.
	lose *lostAnswer
}

// lostAnswer is a write the server stores while its sender gives up on it.
type lostAnswer struct {
	after  func() // called once the server has answered, before the sender sees its error
	status int    // the server's answer to the write
}

// loseNextAnswer makes the next write race Run's end, as when a process is
// told to stop while a renewal is in flight: the candidate's Run context is
// cancelled, which cancels the request, and the request still reaches the
// server and is stored; the candidate sees only the cancellation. after, when
// set, runs between the stored write and the candidate's error.
func (n *network) loseNextAnswer(after func()) *lostAnswer {
	l := &lostAnswer{after: after}
	n.mu.Lock()
	n.lose = l
	n.mu.Unlock()
	return l
}

// deliverAndLose is the write of loseNextAnswer.
func (n *network) deliverAndLose(r *http.Request, l *lostAnswer) (*http.Response, error) {
	n.c.stop()
	<-r.Context().Done() // the request is cancelled, as Run's context ends
	resp, err := n.inner.RoundTrip(r.Clone(context.WithoutCancel(r.Context())))
	if err != nil {
		return nil, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	n.mu.Lock()
	l.status = resp.StatusCode
	n.mu.Unlock()
	if l.after != nil {
		l.after()
	}
	return nil, fmt.Errorf("rig: %s: the answer was lost: %w", n.c.id, context.Cause(r.Context()))
}

// stored is the server's answer to the lost write, 0 before it came.
func (n *network) stored(l *lostAnswer) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return l.status
}

func (n *network) set(cut bool, delay time.Duration) {
	n.mu.Lock()
	n.cut, n.delay, n.cutAfterSlow = cut, delay, false
	n.mu.Unlock()
}

// slowOnce delivers the answer to the next write delay late, then cuts.
func (n *network) slowOnce(delay time.Duration) {
	n.mu.Lock()
	n.cut, n.delay, n.cutAfterSlow = false, delay, true
	n.mu.Unlock()
}

func (n *network) RoundTrip(r *http.Request) (*http.Response, error) {
	n.mu.Lock()
	cut, delay, lose := n.cut, n.delay, n.lose
	if lose != nil && r.Method != http.MethodGet {
		n.lose = nil
	}
	n.mu.Unlock()
	if lose != nil && r.Method != http.MethodGet && !cut {
		return n.deliverAndLose(r, lose)
	}
	if cut {
		return nil, fmt.Errorf("rig: %s is cut off from the server", n.c.id)
	}
	resp, err := n.inner.RoundTrip(r)
	if err != nil || delay <= 0 || r.Method == http.MethodGet {
		return resp, err
	}
	if err := clock.Sleep(r.Context(), n.c.clk, delay); err != nil {
		resp.Body.Close()
		return nil, err
	}
	n.mu.Lock()
	n.cut = n.cut || n.cutAfterSlow
	n.mu.Unlock()
	return resp, nil
}
