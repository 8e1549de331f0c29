package informer_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/clock/clocktest"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/shard"
)

const auditPeriod = time.Minute

// auditRig is an informer of the default namespace's configmaps with the
// cache audit on, a fake clock that only the test moves, and everything
// the audit reports: its trace, its counter, its log.
type auditRig struct {
	e   *env
	clk *clocktest.Fake
	inf *informer.Informer[configMap, *configMap]

	audits  chan observe.Event // audited and audit-failed, in order
	audited int                // audits taken from audits so far

	mu      sync.Mutex
	trace   []observe.Event // every other audit stage, and relists
	results []string        // Metrics' Audit calls
	log     bytes.Buffer
}

func (r *auditRig) Audit(result string, missing, extra, stale int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.results = append(r.results, fmt.Sprintf("%s %d/%d/%d", result, missing, extra, stale))
}

// Write is the log's, under mu: the informer logs from its goroutines.
func (r *auditRig) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.log.Write(p)
}

// auditMetrics counts the audits into the rig.
type auditMetrics struct {
	observe.NopMetrics
	r *auditRig
}

func (m auditMetrics) Audit(result string, missing, extra, stale int) {
	m.r.Audit(result, missing, extra, stale)
}

// startAudit runs the rig's informer, modified by mod, and waits for its
// sync. Its first audit is due half a period after Run (Rand is 0.5).
func startAudit(t *testing.T, e *env, mod func(*informer.Options[*configMap])) *auditRig {
	t.Helper()
	r := &auditRig{e: e, clk: clocktest.New(), audits: make(chan observe.Event, 64)}
	opts := fastOpts()
	opts.Clock, opts.Rand = r.clk, func() float64 { return 0.5 }
	opts.Audit = informer.AuditOptions{Period: auditPeriod, PageSize: 2}
	opts.Observe.Metrics = auditMetrics{r: r}
	opts.Observe.Logger = slog.New(slog.NewTextHandler(r, nil))
	opts.Observe.Trace = func(ev observe.Event) {
		switch ev.Stage {
		case observe.StageAudited, observe.StageAuditFailed:
			r.audits <- ev
		case observe.StageAuditDifference, observe.StageRelist:
			r.mu.Lock()
			r.trace = append(r.trace, ev)
			r.mu.Unlock()
		}
	}
	if mod != nil {
		mod(&opts)
	}
	r.inf = informer.New[configMap](e.client, cmRef, opts)
	run(t, r.inf)
	synced(t, r.inf)
	require.NoError(t, e.srv.AwaitWatchers(t.Context(), 1))
	return r
}

// audit moves the clock to the next audit, at most one period on, and
// returns what it reported.
func (r *auditRig) audit(t *testing.T) observe.Event {
	t.Helper()
	// The audit's timer: half a period for the first, a period after.
	d, n := auditPeriod, r.audited
	if r.audited == 0 {
		d, n = auditPeriod/2, 1
	}
	require.Eventually(t, func() bool {
		return count(r.clk.Delays(), d) >= n
	}, wait, time.Millisecond, "the audit's timer is armed")
	r.clk.Advance(d)
	select {
	case ev := <-r.audits:
		r.audited++
		return ev
	case <-time.After(wait):
		t.Fatal("no audit within a period")
		return observe.Event{}
	}
}

func count[T comparable](s []T, v T) int {
	n := 0
	for _, x := range s {
		if x == v {
			n++
		}
	}
	return n
}

// traced is what was traced so far at stage, each event as say says it.
func (r *auditRig) traced(stage observe.Stage, say func(observe.Event) string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, ev := range r.trace {
		if ev.Stage == stage {
			out = append(out, say(ev))
		}
	}
	return out
}

// differences are the audit-difference lines traced so far, "op key",
// sorted.
func (r *auditRig) differences() []string {
	return slices.Sorted(slices.Values(r.traced(observe.StageAuditDifference,
		func(ev observe.Event) string { return ev.Op.String() + " " + ev.Key })))
}

// relists are the causes of the lists traced so far.
func (r *auditRig) relists() []string {
	return r.traced(observe.StageRelist, func(ev observe.Event) string { return ev.Cause.String() })
}

// wantSaid waits for the counter's calls to be results and the log to
// hold each of logs: the observers hear an event after the trace does.
func (r *auditRig) wantSaid(t *testing.T, results []string, logs ...string) {
	t.Helper()
	said := func() ([]string, string) {
		r.mu.Lock()
		defer r.mu.Unlock()
		return slices.Clone(r.results), r.log.String()
	}
	require.Eventually(t, func() bool {
		got, log := said()
		for _, l := range logs {
			if !strings.Contains(log, l) {
				return false
			}
		}
		return slices.Equal(got, results)
	}, wait, time.Millisecond, "counted %v, logged %s", results, logs)
}

// lose makes the fake server drop the event of write, then waits for the
// cache to hear of a later one: the informer is past the lost event, its
// resourceVersion too, and nothing tells it.
func lose(t *testing.T, e *env, inf *informer.Informer[configMap, *configMap], write func(), after string) {
	t.Helper()
	require.Equal(t, 1, e.srv.DropNextWatchEvent())
	write()
	e.put(t, after, "0", nil)
	require.Eventually(t, func() bool { _, ok := cacheState(inf)[after]; return ok }, wait, time.Millisecond)
}

func TestAuditFindsAnObjectWhoseADDEDWasLostWithinOnePeriod(t *testing.T) {
	e := newEnv(t)
	e.put(t, "a", "0", nil)
	e.put(t, "b", "0", nil)
	r := startAudit(t, e, nil)
	lose(t, e, r.inf, func() { e.put(t, "c", "0", nil) }, "d")
	require.NotContains(t, cacheState(r.inf), "c", "the event was lost")

	ev := r.audit(t)
	require.Equal(t, observe.StageAudited, ev.Stage)
	var d *informer.AuditDifference
	require.ErrorAs(t, ev.Err, &d)
	require.Equal(t, 1, d.Missing)
	require.Zero(t, d.Extra+d.Stale)
	require.Equal(t, []string{"default/c"}, d.Keys)
	require.Equal(t, 4, ev.Items, "a, b, c and d listed")
	require.Equal(t, []string{"missing default/c"}, r.differences())

	h := r.inf.Health()
	require.True(t, h.Diverged)
	require.False(t, h.Healthy(), "a cache known to be wrong is not healthy")
	require.NotNil(t, h.Audit)
	require.Equal(t, ev.ResourceVersion, h.Audit.ResourceVersion)
	require.Same(t, d, h.Audit.Difference)
	r.wantSaid(t, []string{"differ 1/0/0"}, "the cache audit found the cache different from the server", "default/c")
	rec := httptest.NewRecorder()
	informer.HealthHandler(r.inf).ServeHTTP(rec, httptest.NewRequest("GET", "/healthz", nil))
	require.Equal(t, 503, rec.Code)
	require.Contains(t, rec.Body.String(), `"diverged":true`)
	require.Contains(t, rec.Body.String(), `"missing":1`)
	require.Empty(t, r.relists()[1:], "no repair asked for: nothing but the first list")
}

func TestAuditFindsLostModifiedAndDeletedEvents(t *testing.T) {
	e := newEnv(t)
	for _, n := range []string{"a", "b", "c"} {
		e.put(t, n, "0", nil)
	}
	r := startAudit(t, e, nil)
	lose(t, e, r.inf, func() { e.put(t, "a", "1", nil) }, "x")
	lose(t, e, r.inf, func() { require.NoError(t, e.srv.Delete(cmGVR, "default", "b")) }, "y")
	// c deleted and created again under the same name, both events lost:
	// the cache holds the old one, of another uid.
	lose(t, e, r.inf, func() {
		require.NoError(t, e.srv.Delete(cmGVR, "default", "c"))
		require.Equal(t, 1, e.srv.DropNextWatchEvent())
		e.put(t, "c", "0", nil)
	}, "z")
	// d created after a lost ADDED of its own.
	lose(t, e, r.inf, func() { e.put(t, "d", "0", nil) }, "w")
	require.Contains(t, cacheState(r.inf), "b", "the DELETED was lost")

	ev := r.audit(t)
	var d *informer.AuditDifference
	require.ErrorAs(t, ev.Err, &d)
	require.Equal(t, []string{"extra default/b", "missing default/d", "stale default/a", "stale default/c"}, r.differences())
	require.Equal(t, [3]int{1, 1, 2}, [3]int{d.Missing, d.Extra, d.Stale})
	require.ErrorContains(t, ev.Err, "1 missing, 1 extra, 2 stale")
}

func TestAuditInStepSaysSoAndKeepsHealthy(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(*informer.Options[*configMap])
	}{
		{"protobuf", nil},
		{"json", func(o *informer.Options[*configMap]) { o.Transport.JSON = true }},
		{"delta FIFO", func(o *informer.Options[*configMap]) { o.Process.DeltaFIFO = true }},
		{"inline processing", func(o *informer.Options[*configMap]) { o.Process.InlineProcessing = true }},
		{"with snapshots", func(o *informer.Options[*configMap]) { o.Snapshot.Dir = t.TempDir() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			for i := range 5 {
				e.put(t, fmt.Sprintf("cm-%d", i), "0", nil)
			}
			r := startAudit(t, e, tc.mod)
			ev := r.audit(t)
			require.Equal(t, observe.StageAudited, ev.Stage)
			require.NoError(t, ev.Err)
			require.Equal(t, 5, ev.Items)
			h := r.inf.Health()
			require.True(t, h.Healthy())
			require.NotNil(t, h.Audit)
			require.Nil(t, h.Audit.Difference)
			require.Equal(t, 5, h.Audit.Listed)
			r.wantSaid(t, []string{"in-step 0/0/0"})
		})
	}
}

// The cache is captured at the resourceVersion it is in step with while
// the watch goes on applying events: no audit may mistake an event in
// flight for a difference, whatever the queue and however it processes.
func TestAuditSeesNoDifferenceWhileTheWatchKeepsApplyingEvents(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(*informer.Options[*configMap])
	}{
		{"in order", nil},
		{"delta FIFO", func(o *informer.Options[*configMap]) { o.Process.DeltaFIFO = true }},
		{"inline processing", func(o *informer.Options[*configMap]) { o.Process.InlineProcessing = true }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			for i := range 10 {
				e.put(t, fmt.Sprintf("cm-%d", i), "0", nil)
			}
			r := startAudit(t, e, tc.mod)
			stop := make(chan struct{})
			var writes sync.WaitGroup
			writes.Go(func() {
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					name := fmt.Sprintf("cm-%d", i%10)
					if i%7 == 3 {
						_ = e.srv.Delete(cmGVR, "default", name) // gone already: fine
						continue
					}
					e.put(t, name, fmt.Sprint(i), nil)
				}
			})
			for range 8 {
				ev := r.audit(t)
				require.Equal(t, observe.StageAudited, ev.Stage, "%v", ev)
				require.NoError(t, ev.Err, "an event in flight is no difference")
			}
			close(stop)
			writes.Wait()
		})
	}
}

// An exact list needs the server to still have the cache's
// resourceVersion: past its compaction, the audit says so and waits for
// the next period; it never relists for it.
func TestAuditAtACompactedResourceVersionSaysSoAndWaits(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{}) // no bookmarks: they would move the cache's rv on
	e.put(t, "a", "0", nil)
	r := startAudit(t, e, nil)
	lose(t, e, r.inf, func() { e.put(t, "b", "0", nil) }, "c")
	require.Error(t, r.audit(t).Err, "b is missing")
	require.NoError(t, e.srv.Delete(cmGVR, "default", "a")) // the last event the cache hears of
	require.Eventually(t, func() bool { _, ok := cacheState(r.inf)["a"]; return !ok }, wait, time.Millisecond)
	require.Equal(t, 1, e.srv.DropNextWatchEvent())
	e.put(t, "d", "0", nil) // the server moves on, unseen
	e.srv.Compact(0)

	ev := r.audit(t)
	require.Equal(t, observe.StageAuditFailed, ev.Stage)
	require.True(t, meta.IsGone(ev.Err), "%v", ev.Err)
	h := r.inf.Health()
	require.True(t, h.Diverged, "not compared: what the last comparison found stands")
	require.Error(t, h.Audit.Err)
	require.Nil(t, h.Audit.Difference)
	r.wantSaid(t, []string{"differ 1/0/0", "too-old 0/0/0"}, "no cache audit this period")
	require.Equal(t, []string{"initial"}, r.relists(), "the audit never relists by itself")
}

// The audit lists what the informer lists: its label selector, and its
// shard, whichever side filters it.
func TestAuditComparesOnlyWhatTheInformerSelects(t *testing.T) {
	for _, serverSide := range []bool{false, true} {
		t.Run(fmt.Sprintf("server-side shard %v", serverSide), func(t *testing.T) {
			e := newEnv(t, fakeapiserver.Options{ShardedListAndWatch: serverSide, BookmarkInterval: 50 * time.Millisecond})
			for i := range 60 {
				app := "web"
				if i%3 == 0 {
					app = "db"
				}
				e.put(t, fmt.Sprintf("cm-%d", i), "0", map[string]string{"app": app})
			}
			sel, err := shard.Of(0, 2)
			require.NoError(t, err)
			sh, err := informer.NewShard(sel)
			require.NoError(t, err)
			r := startAudit(t, e, func(o *informer.Options[*configMap]) { o.LabelSelector, o.Shard = "app=web", sh })
			cached := len(cacheState(r.inf))
			// Half of 40 uids, by hash: all 40 in one shard is a chance of 2^-39.
			require.Less(t, cached, 40, "the shard holds part of the 40 web configmaps")
			require.Positive(t, cached)
			ev := r.audit(t)
			require.NoError(t, ev.Err)
			require.Equal(t, cached, ev.Items, "only the shard's web configmaps are compared")
		})
	}
}

func TestAuditRepairRelistsAndTheCacheConverges(t *testing.T) {
	e := newEnv(t)
	e.put(t, "a", "0", nil)
	r := startAudit(t, e, func(o *informer.Options[*configMap]) { o.Audit.Repair = true })
	v := newView()
	_, err := r.inf.AddHandler(v, informer.HandlerOptions{})
	require.NoError(t, err)
	lose(t, e, r.inf, func() { e.put(t, "b", "0", nil) }, "c")

	ev := r.audit(t)
	require.Error(t, ev.Err)
	converges(t, e, r.inf, v)
	require.Eventually(t, func() bool { return !r.inf.Health().Diverged }, wait, time.Millisecond,
		"the relist ended the divergence")
	require.Len(t, r.relists(), 2, "the first list and the repair")
	ev = r.audit(t)
	require.NoError(t, ev.Err, "in step after the repair")
}

// With the reflector's relist hook (errAuditRepair answered as a planned
// relist, as a moved shard is), the repair is no failure: cause audit, no
// failure recorded, no watch-error handler called.
func TestAuditRepairIsAPlannedRelist(t *testing.T) {
	e := newEnv(t)
	e.put(t, "a", "0", nil)
	var handled []error
	var mu sync.Mutex
	r := startAudit(t, e, func(o *informer.Options[*configMap]) {
		o.Audit.Repair = true
		o.Observe.WatchErrorHandler = func(_ context.Context, err error) { mu.Lock(); handled = append(handled, err); mu.Unlock() }
	})
	lose(t, e, r.inf, func() { e.put(t, "b", "0", nil) }, "c")
	r.audit(t)
	converges(t, e, r.inf)
	require.Equal(t, []string{"initial", "audit"}, r.relists())
	require.Nil(t, r.inf.Health().Failure)
	mu.Lock()
	defer mu.Unlock()
	require.Empty(t, handled)
}

// gateHandler is a synchronous handler that, once armed, holds the
// processing loop in its next call until released.
type gateHandler struct {
	mu      sync.Mutex
	hold    bool
	held    chan struct{} // closed when a call is being held
	release chan struct{}
}

func (g *gateHandler) wait() {
	g.mu.Lock()
	hold, held, release := g.hold, g.held, g.release
	g.hold = false
	g.mu.Unlock()
	if hold {
		close(held)
		<-release
	}
}

func (g *gateHandler) OnAdd(*configMap, bool)    { g.wait() }
func (g *gateHandler) OnUpdate(_, _ *configMap)  { g.wait() }
func (g *gateHandler) OnDelete(*configMap, bool) {}
func (g *gateHandler) arm() (held, release chan struct{}) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.hold, g.held, g.release = true, make(chan struct{}), make(chan struct{})
	return g.held, g.release
}

// The cache lags the resourceVersion while the processing loop is busy:
// the audit waits for the queue to drain (with the reflector's writes
// held) before it captures, and gives up on the period after a second.
func TestAuditCapturesOnlyOnceTheQueueHasDrained(t *testing.T) {
	e := newEnv(t)
	e.put(t, "a", "0", nil)
	r := startAudit(t, e, nil)
	g := &gateHandler{}
	_, err := r.inf.AddHandler(g, informer.HandlerOptions{Synchronous: true})
	require.NoError(t, err)

	held, release := g.arm()
	e.put(t, "b", "0", nil)
	<-held // the processing loop is in the handler of b's ADDED
	e.put(t, "c", "0", nil)
	e.put(t, "d", "0", nil) // queued behind it, and the rv with them
	require.Eventually(t, func() bool { return r.inf.LastSyncResourceVersion() == mustRV(t, e, "d") }, wait, time.Millisecond)
	go func() {
		// Released once the audit waits for the queue (its drain timer is
		// armed): a capture that did not wait would see c and d missing.
		poll(func() bool { return count(r.clk.Delays(), time.Second) >= 1 })
		close(release)
	}()
	ev := r.audit(t)
	require.NoError(t, ev.Err, "captured after the queue drained")
	require.Equal(t, 4, ev.Items)

	held, release = g.arm()
	e.put(t, "e", "0", nil)
	<-held
	e.put(t, "f", "0", nil)
	require.Eventually(t, func() bool { return r.inf.LastSyncResourceVersion() == mustRV(t, e, "f") }, wait, time.Millisecond)
	go func() {
		poll(func() bool { return count(r.clk.Delays(), time.Second) >= 2 })
		r.clk.Advance(time.Second) // the drain's deadline
	}()
	ev = r.audit(t)
	require.Equal(t, observe.StageAuditFailed, ev.Stage)
	require.ErrorContains(t, ev.Err, "deltas were still queued")
	close(release)
}

// poll waits for cond, for a goroutine of the test's own (require's
// failures belong to the test's); the test's wait for the audit bounds it.
func poll(cond func() bool) {
	for deadline := time.Now().Add(wait); !cond() && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
}

func mustRV(t *testing.T, e *env, name string) string {
	t.Helper()
	o, err := e.srv.Get(cmGVR, "default", name)
	require.NoError(t, err)
	return o.ResourceVersion
}

// An object the informer skips on purpose (SkipUndecodable) is missing
// from the cache by design: the audit does not report it.
func TestAuditLeavesOutWhatTheListSkipped(t *testing.T) {
	e := newEnv(t)
	e.put(t, "a", "0", nil)
	_, err := e.srv.PutUnchecked(cmGVR, map[string]any{"metadata": map[string]any{"name": "bad", "namespace": "default"},
		"data": map[string]any{"v": 5}})
	require.NoError(t, err)
	r := startAudit(t, e, func(o *informer.Options[*configMap]) { o.Decode.SkipUndecodable = true })
	require.Len(t, r.inf.Undecodable(), 1)
	ev := r.audit(t)
	require.NoError(t, ev.Err)
	require.Equal(t, 2, ev.Items, "listed, and left out")
}
