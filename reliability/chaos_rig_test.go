package reliability

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
)

// rig is one fake server and one informer with one handler, for the
// targeted fault scenarios of chaos_findings_test.go: the random chaos
// draws the same faults, these make each one land where it hurts.
type rig struct {
	srv      *fakeapiserver.Server
	inf      *informer.Informer[object, *object]
	v        *view
	progress *signal
	backoff  informer.BackoffOptions

	lists, streams, watches atomic.Int64 // first pages of LISTs, streaming lists, plain WATCHes
	rv                      atomic.Int64 // the highest resourceVersion the informer reported
	mu                      sync.Mutex   // guards causes, errs and recent
	causes                  map[observe.RelistCause]int
	errs                    []string
	recent                  []string // the last trace lines, for a failure's report
}

// recentLines is how many trace lines a failing scenario prints: enough to
// see the last few list-and-watch cycles.
const recentLines = 40

type rigOptions struct {
	streaming bool
	pageSize  int64
	objects   int                             // ConfigMaps created before the informer starts
	arm       func(srv *fakeapiserver.Server) // faults armed before the informer starts
}

// rigBackoff is slower than the random chaos's, so that a hot loop and a
// loop that waits are far apart.
var rigBackoff = informer.BackoffOptions{Initial: 20 * time.Millisecond, Max: 200 * time.Millisecond}

func newRig(t *testing.T, o rigOptions) *rig {
	t.Helper()
	r := &rig{progress: newSignal(), causes: map[observe.RelistCause]int{}, backoff: rigBackoff}
	r.srv = fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet(), BookmarkInterval: 20 * time.Millisecond,
		TooLargeWait: 50 * time.Millisecond, Intercept: r.intercept})
	for i := range o.objects {
		r.put(t, fmt.Sprintf("cm-%d", i), "0")
	}
	if o.arm != nil {
		o.arm(r.srv)
	}
	c, err := apiclient.NewWithOptions(fakeapiservertest.ClientConfig(r.srv), apiclient.Options{Logger: quiet(), Retry: apiclient.RetryOptions{MaxAttempts: 1}})
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	r.inf = informer.New[object](c, allCMs, informer.Options[*object]{
		Name:    t.Name(),
		Backoff: r.backoff,
		Sync: informer.SyncOptions{
			StreamingList:        o.streaming,
			PageSize:             o.pageSize,
			InitialEventsTimeout: 2 * time.Second,
		},
		Watch: informer.WatchOptions{IdleTimeout: 500 * time.Millisecond},
		Observe: informer.ObserveOptions{
			Logger:  quiet(),
			Metrics: rigMetrics{r: r},
			Trace:   r.observe,
		},
	})
	r.v = newView("rig", 0)
	r.v.changed = r.progress
	_, err = r.inf.AddHandler(r.v, informer.HandlerOptions{})
	require.NoError(t, err)
	runInformer(t, r.inf)
	return r
}

type rigMetrics struct {
	observe.NopMetrics
	r *rig
}

func (m rigMetrics) Relist(c observe.RelistCause) {
	m.r.mu.Lock()
	m.r.causes[c]++
	m.r.mu.Unlock()
	m.r.progress.fire()
}

func (r *rig) intercept(req *http.Request, verb string) error {
	q := req.URL.Query()
	switch {
	case verb == "list" && q.Get("continue") == "":
		r.lists.Add(1)
	case verb == "watch" && q.Get("sendInitialEvents") == "true":
		r.streams.Add(1)
	case verb == "watch":
		r.watches.Add(1)
	}
	r.progress.fire()
	return nil
}

func (r *rig) observe(ev observe.Event) {
	raiseTo(&r.rv, ev.ResourceVersion)
	r.mu.Lock()
	if ev.Err != nil && len(r.errs) < 20 {
		r.errs = append(r.errs, ev.Stage.String()+": "+ev.Err.Error())
	}
	if ev.Stage != observe.StageHandlerCalled && ev.Stage != observe.StageStoreUpdated && ev.Stage != observe.StageDeltaQueued {
		if len(r.recent) == recentLines {
			r.recent = r.recent[1:]
		}
		r.recent = append(r.recent, time.Now().Format("15:04:05.000")+" "+ev.String())
	}
	r.mu.Unlock()
	if os.Getenv("ZEROKUBE_TRACE") != "" && ev.Stage != observe.StageHandlerCalled && ev.Stage != observe.StageStoreUpdated && ev.Stage != observe.StageDeltaQueued {
		fmt.Println(time.Now().Format("15:04:05.000"), ev.String())
	}
	r.progress.fire()
}

func (r *rig) put(t *testing.T, name, v string) {
	t.Helper()
	obj := map[string]any{"metadata": map[string]any{"name": name, "namespace": "default"}, "data": map[string]string{"v": v}}
	if _, err := r.srv.Get(cmGVR, "default", name); err == nil {
		_, err = r.srv.Update(cmGVR, obj)
		require.NoError(t, err)
		return
	}
	_, err := r.srv.Create(cmGVR, obj)
	require.NoError(t, err)
}

// awaitWatch waits until the server has registered the informer's watch.
// Call it before arming a fault for new watches and dropping the open one:
// a watch still being opened when DropWatches runs is not ended, and one
// that passed the fault check before the fault was armed lives on with
// nothing but bookmarks (CI caught exactly that).
func (r *rig) awaitWatch(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), recoverWithin)
	defer cancel()
	require.NoError(t, r.srv.AwaitWatchers(ctx, 1), "no open watch: %s", r.report())
}

// dropWatches ends the watch awaitWatch saw open.
func (r *rig) dropWatches(t *testing.T) {
	t.Helper()
	require.Positive(t, r.srv.DropWatches(), "no watch dropped: %s", r.report())
}

// report says what the informer did last, for a failed expectation: the
// request counts and the last trace lines.
func (r *rig) report() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return fmt.Sprintf("%d LISTs, %d streaming lists, %d WATCHes, relists %v, server faults %v; last trace lines:\n%s",
		r.lists.Load(), r.streams.Load(), r.watches.Load(), r.causes, r.srv.Stats().Faults, strings.Join(r.recent, "\n"))
}

// await waits for cond, re-checked on every sign of progress, for at most
// d; false when it never held.
func (r *rig) await(cond func() bool, d time.Duration) bool {
	return awaitOn(r.progress, cond, d, 0)
}

func (r *rig) serverState() state {
	out := state{}
	items, _, err := r.srv.List(cmGVR, "default")
	if err != nil {
		panic(err)
	}
	for _, o := range items {
		out[meta.Key(o)] = o.ResourceVersion
	}
	return out
}

// converges asserts that the cache and the handler reach the server's
// state within d (the informer's progress after the fault clears).
func (r *rig) converges(t *testing.T, d time.Duration, why string) {
	t.Helper()
	ok := r.await(func() bool {
		want := r.serverState()
		return diff(want, storeState(r.inf)) == "" && diff(want, r.v.snapshot()) == ""
	}, d)
	if !ok {
		r.mu.Lock()
		errs := r.errs
		r.mu.Unlock()
		t.Fatalf("%s: no convergence within %s: store %s; handler %s; errors %q; %s",
			why, d, diff(r.serverState(), storeState(r.inf)), diff(r.serverState(), r.v.snapshot()), errs, r.report())
	}
	require.Zero(t, r.v.anomalies.Load(), r.v.bad())
}

// listsWithinBackoff asserts that lists (LISTs and streaming lists) since
// the mark came no faster than the backoff allows: one per Initial, plus
// slack for the immediate relists the rules allow.
func (r *rig) listsWithinBackoff(t *testing.T, since time.Time, lists0 int64) {
	t.Helper()
	elapsed := time.Since(since)
	n := r.lists.Load() + r.streams.Load() - lists0
	bound := int64(elapsed/r.backoff.Initial) + 3
	require.LessOrEqual(t, n, bound, "%d lists in %s: a hot loop (the backoff allows one per %s)", n, elapsed, r.backoff.Initial)
}
