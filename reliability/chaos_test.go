package reliability

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/informer"
)

var chaosDuration = flag.Duration("chaos.duration", 0,
	"how long TestChaosConvergence runs scenarios (default 6s, or ZEROKUBE_CHAOS_DURATION)")

// chaosBudget is how long to run scenarios: the flag, else the env var, else
// a default that keeps the package's -race run near 20 s.
func chaosBudget(t *testing.T) time.Duration {
	if *chaosDuration > 0 {
		return *chaosDuration
	}
	if s := os.Getenv("ZEROKUBE_CHAOS_DURATION"); s != "" {
		d, err := time.ParseDuration(s)
		require.NoError(t, err, "ZEROKUBE_CHAOS_DURATION")
		return d
	}
	return 6 * time.Second
}

// chaosTotals add up what every scenario did, for the closing report.
type chaosTotals struct {
	scenarios, writes, faults, relists, watchEnds, divergences int64
	anomalies, rvBack, handlerCalls                            int64
	byFault                                                    map[fakeapiserver.Fault]int64
	byCause                                                    map[string]int64 // relists
	maxConverge                                                time.Duration    // longest wait after the last fault
}

// TestChaosConvergence runs random scenarios until the budget is spent. Each
// is a script drawn from its seed: the informer's shape (queue, streaming
// list, websocket, selector, page size), the handlers, and a sequence of
// writes and faults. After the last fault the cache must equal the server's
// state and every handler's view must equal the cache.
func TestChaosConvergence(t *testing.T) {
	base := uint64(time.Now().UnixNano())
	replay := os.Getenv("ZEROKUBE_CHAOS_SEED")
	if replay != "" {
		s, err := strconv.ParseUint(replay, 10, 64)
		require.NoError(t, err, "ZEROKUBE_CHAOS_SEED")
		base = s
	}
	t.Logf("chaos base seed %d (replay one scenario: ZEROKUBE_CHAOS_SEED=<its seed>)", base)
	budget := chaosBudget(t)
	tot := chaosTotals{byFault: map[fakeapiserver.Fault]int64{}, byCause: map[string]int64{}}
	start := time.Now()
	for i := uint64(0); ; i++ {
		if i > 0 && (replay != "" || time.Since(start) > budget) {
			break
		}
		seed := base + i
		sc := newScenario(t, seed)
		ok := t.Run(fmt.Sprintf("seed=%d/%s", seed, sc.shape), func(t *testing.T) { sc.run(t, &tot) })
		if !ok {
			t.Logf("scenario failed: replay with ZEROKUBE_CHAOS_SEED=%d", seed)
		}
	}
	t.Logf("chaos: %d scenarios in %s, %d writes, %d faults %v, %d relists %v, %d watch ends, %d handler calls",
		tot.scenarios, time.Since(start).Round(time.Millisecond), tot.writes, tot.faults, tot.byFault,
		tot.relists, tot.byCause, tot.watchEnds, tot.handlerCalls)
	t.Logf("chaos: divergences %d, protocol anomalies %d, resourceVersions gone backwards %d; longest convergence after the last fault %s",
		tot.divergences, tot.anomalies, tot.rvBack, tot.maxConverge.Round(time.Millisecond))
	require.Zero(t, tot.divergences)
}

// shape is the informer configuration a scenario drew.
type shape struct {
	queue     informer.QueueKind
	streaming bool
	websocket bool
	selector  bool
	fieldSel  bool // metadata.namespace!=chaos-2, so the server filters by field too
	tls       bool // https, so HTTP/2 for lists and chunked watches
	pageSize  int64
}

func (s shape) String() string {
	q := "inorder"
	if s.queue == informer.QueueDeltaFIFO {
		q = "deltafifo"
	}
	return fmt.Sprintf("%s/stream=%t/ws=%t/sel=%t/fsel=%t/tls=%t/page=%d", q, s.streaming, s.websocket, s.selector, s.fieldSel, s.tls, s.pageSize)
}

// scenario is one fake server, one informer over every namespace, and its
// handlers, driven by a script drawn from seed.
type scenario struct {
	seed  uint64
	rnd   *rand.Rand
	shape shape
	names []string // namespaces
	srv   *fakeapiserver.Server
	inf   *informer.Informer[object, *object]
	views []*view

	relists, watchEnds atomic.Int64
	compactMidList     atomic.Bool // armed by a fault: compact when the next continue token arrives
	bumps              atomic.Int64
	mu                 sync.Mutex       // guards causes
	causes             map[string]int64 // relists by cause
	writes             int64
	held               map[string]bool // key → has the finalizer
}

const (
	selectorLabel = "chaos"
	excludedNS    = "chaos-2" // by the field selector, when the shape has one
)

func newScenario(t *testing.T, seed uint64) *scenario {
	rnd := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	sh := shape{
		queue:     []informer.QueueKind{informer.QueueInOrder, informer.QueueDeltaFIFO}[rnd.IntN(2)],
		streaming: rnd.IntN(2) == 0, websocket: rnd.IntN(3) == 0, selector: rnd.IntN(2) == 0,
		pageSize: []int64{3, 17, 500, -1}[rnd.IntN(4)], tls: rnd.IntN(2) == 0, fieldSel: rnd.IntN(3) == 0,
	}
	return &scenario{seed: seed, rnd: rnd, shape: sh, held: map[string]bool{}, causes: map[string]int64{}}
}

// metrics counts relists and watch ends for the report.
type metrics struct {
	informer.NopMetrics
	sc *scenario
}

func (m metrics) Relist(c informer.RelistCause) {
	m.sc.relists.Add(1)
	m.sc.mu.Lock()
	m.sc.causes[c.String()]++
	m.sc.mu.Unlock()
}

func (sc *scenario) start(t *testing.T) {
	sc.srv = fakeapiserver.Start(t, fakeapiserver.Options{Logger: quiet(), BookmarkInterval: 20 * time.Millisecond, TLS: sc.shape.tls,
		Intercept:   sc.intercept,
		WatchBuffer: 8 + sc.rnd.IntN(64), HistoryEvents: 100 + sc.rnd.IntN(400), MinRequestTimeout: time.Second})
	for i := range 3 {
		name := fmt.Sprintf("chaos-%d", i)
		_, err := sc.srv.Create(nsGVR, map[string]any{"metadata": map[string]any{"name": name}})
		require.NoError(t, err)
		sc.names = append(sc.names, name)
	}
	c, err := apiclient.NewWithOptions(sc.srv.ClientConfig(), apiclient.Options{Logger: quiet(),
		Retry: apiclient.RetryOptions{MaxAttempts: 1 + sc.rnd.IntN(3), Initial: 5 * time.Millisecond, Max: 20 * time.Millisecond}})
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	opts := informer.Options[*object]{
		Name: fmt.Sprintf("chaos-%d", sc.seed), Logger: quiet(), Metrics: metrics{sc: sc},
		Queue: sc.shape.queue, StreamingList: sc.shape.streaming, PageSize: sc.shape.pageSize,
		InitialEventsTimeout: 2 * time.Second, MinWatchTimeout: time.Second, WatchIdleTimeout: 300 * time.Millisecond,
		Backoff:   informer.BackoffOptions{Initial: 5 * time.Millisecond, Max: 100 * time.Millisecond},
		Selectors: informer.Selectors{Websocket: sc.shape.websocket},
		Trace: func(ev informer.TraceEvent) {
			if ev.Stage == informer.StageWatchEnded {
				sc.watchEnds.Add(1)
			}
			if os.Getenv("ZEROKUBE_CHAOS_TRACE") != "" && ev.Stage != informer.StageEvent && ev.Stage != informer.StageDeltaQueued &&
				ev.Stage != informer.StageStoreUpdated && ev.Stage != informer.StageHandlerCalled && ev.Stage != informer.StageBookmark {
				t.Logf("%s trace %s cause=%s rv=%s items=%d d=%s err=%v", time.Now().Format("15:04:05.000"), ev.Stage, ev.Cause, ev.ResourceVersion, ev.Items, ev.Duration, ev.Err)
			}
		},
	}
	if sc.shape.selector {
		opts.Selectors.LabelSelector = selectorLabel + "=in"
	}
	if sc.shape.fieldSel {
		opts.Selectors.FieldSelector = "metadata.namespace!=" + excludedNS
	}
	sc.inf = informer.NewForResource[object](c, allCMs, opts)
	for _, h := range []struct {
		v    *view
		opts informer.HandlerOptions
	}{
		{newView("bounded-2", 0), informer.HandlerOptions{QueueCapacity: 2}},
		{newView("unbounded", 0), informer.HandlerOptions{Unbounded: true}},
		{newView("slow", 200*time.Microsecond), informer.HandlerOptions{QueueCapacity: 8}},
		{newView("resync", 0), informer.HandlerOptions{ResyncPeriod: 50 * time.Millisecond}},
	} {
		_, err := sc.inf.AddHandler(h.v, h.opts)
		require.NoError(t, err)
		sc.views = append(sc.views, h.v)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- sc.inf.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			require.NoError(t, err, "Run")
		case <-time.After(10 * time.Second):
			t.Errorf("Run did not return within 10 s of cancel")
		}
	})
}

// intercept compacts the history when a paginated list asks for its next
// page while compactMidList is armed, so the continue token gets 410
// Expired: lists run too fast for a fault from the script to land between
// two pages.
func (sc *scenario) intercept(r *http.Request, verb string) error {
	if verb == "list" && r.URL.Query().Get("continue") != "" && sc.compactMidList.CompareAndSwap(true, false) {
		// A write the informer does not watch moves the history past the
		// list's snapshot first; compacting then expires the token.
		name := fmt.Sprintf("chaos-bump-%d", sc.bumps.Add(1))
		if _, err := sc.srv.Create(nsGVR, map[string]any{"metadata": map[string]any{"name": name}}); err != nil {
			return err
		}
		sc.srv.Compact(0)
	}
	return nil
}
