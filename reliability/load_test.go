package reliability

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
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
)

// loadShape is one load run's size.
type loadShape struct {
	objects  int
	rate     int // events per second
	duration time.Duration
	handlers int // one of them slow
	slow     time.Duration
}

// TestLoad syncs many objects, then writes at a steady rate while ten
// handlers, one deliberately slow, follow. It reports peak heap, the fast
// handlers' end-to-end lag (write to handler call) and what the slow one
// missed by coalescing; it asserts only that nothing is lost: every
// handler's final view equals the server. ZEROKUBE_LOAD=1 runs the full
// size (50,000 objects, 1,000 events/s for 60 s); by default a short run.
func TestLoad(t *testing.T) {
	// The slow handler takes 2 ms a call: it cannot keep up with 1,000
	// events/s, and the initial list alone takes it objects × 2 ms.
	sh := loadShape{objects: 1_000, rate: 1_000, duration: 2 * time.Second, handlers: 10, slow: 2 * time.Millisecond}
	if os.Getenv("ZEROKUBE_LOAD") == "1" {
		sh.objects, sh.duration = 50_000, 60*time.Second
	}
	if n, err := strconv.Atoi(os.Getenv("ZEROKUBE_LOAD_OBJECTS")); err == nil {
		sh.objects = n
	}
	if d, err := time.ParseDuration(os.Getenv("ZEROKUBE_LOAD_DURATION")); err == nil {
		sh.duration = d
	}
	if testing.Short() {
		t.Skip("load test skipped in -short mode")
	}
	runLoad(t, sh)
}

// loadMetrics collects the slow handler's queue depth and coalescing.
type loadMetrics struct {
	observe.NopMetrics
	maxDepth  sync.Map // handler → *atomic.Int64
	coalesced atomic.Int64
}

func (m *loadMetrics) HandlerQueueDepth(h string, n int) {
	v, _ := m.maxDepth.LoadOrStore(h, new(atomic.Int64))
	d := v.(*atomic.Int64)
	for cur := d.Load(); int64(n) > cur && !d.CompareAndSwap(cur, int64(n)); cur = d.Load() {
	}
}

func (m *loadMetrics) Coalesced(string) { m.coalesced.Add(1) }

// lagView is a view that also records, for each update, how long after
// the write it was called (the write time is in the object's data).
type lagView struct {
	*view
	mu   sync.Mutex
	lags []time.Duration
}

func (v *lagView) OnUpdate(old, o *object) {
	if ns, err := strconv.ParseInt(o.Data["t"], 10, 64); err == nil {
		lag := time.Since(time.Unix(0, ns))
		v.mu.Lock()
		v.lags = append(v.lags, lag)
		v.mu.Unlock()
	}
	v.view.OnUpdate(old, o)
}

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return d[min(len(d)-1, int(float64(len(d))*p))]
}

// heapSampler records the peak live heap while it runs.
func heapSampler(ctx context.Context) (peak func() uint64) {
	var max atomic.Uint64
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > max.Load() {
				max.Store(ms.HeapAlloc)
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 { <-done; return max.Load() }
}

func runLoad(t *testing.T, sh loadShape) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet(), WatchBuffer: 4096, HistoryEvents: 200_000})
	start := time.Now()
	for i := range sh.objects {
		_, err := srv.Create(cmGVR, map[string]any{"metadata": map[string]any{"name": fmt.Sprintf("cm-%05d", i), "namespace": "default",
			"labels": map[string]string{"app": "load"}}, "data": map[string]string{"t": "0"}})
		require.NoError(t, err)
	}
	t.Logf("load: %d objects created in %s", sh.objects, time.Since(start).Round(time.Millisecond))
	serverHeap := heapInUse()
	c, err := apiclient.NewWithOptions(fakeapiservertest.ClientConfig(srv), apiclient.Options{Logger: quiet()})
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	lm := &loadMetrics{}
	inf := informer.New[object](c, allCMs, informer.Options[*object]{Observe: informer.ObserveOptions{Logger: quiet(), Metrics: lm}})
	var views []*lagView
	for i := range sh.handlers {
		delay := time.Duration(0)
		if i == 0 {
			delay = sh.slow
		}
		v := &lagView{view: newView(fmt.Sprintf("h%d", i), delay)}
		_, err := inf.AddHandler(v, informer.HandlerOptions{Name: v.name})
		require.NoError(t, err)
		views = append(views, v)
	}
	sampleCtx, stopSampling := context.WithCancel(context.Background())
	peak := heapSampler(sampleCtx)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	defer func() { cancel(); require.NoError(t, <-done) }()
	start = time.Now()
	require.NoError(t, inf.WaitForSync(ctx))
	t.Logf("load: synced %d objects in %s", sh.objects, time.Since(start).Round(time.Millisecond))
	require.Eventually(t, func() bool { return views[1].calls.Load() >= int64(sh.objects) }, time.Minute, 10*time.Millisecond)
	syncedHeap := heapInUse()
	t.Logf("load: live heap: fake server with %d objects %.1f MiB; after the sync, with the informer's cache and 10 handler views, %.1f MiB (+%.0f B/object)",
		sh.objects, float64(serverHeap)/(1<<20), float64(syncedHeap)/(1<<20), float64(syncedHeap-serverHeap)/float64(sh.objects))
	progress := func(what string) {
		t.Logf("load: %s: slow handler %d calls, fast handler %d calls", what, views[0].calls.Load(), views[1].calls.Load())
	}
	progress("synced")
	writes := writeAtRate(t, srv, sh)
	progress("writes done")
	converged := time.Now()
	// The slow handler works through at most one call per object for the
	// initial list and one per object for the updates it coalesced.
	within := 2*time.Duration(sh.objects)*sh.slow + time.Minute
	last := time.Now()
	// Comparing ten views of N objects is work: poll less often for big N,
	// so that the check does not starve the slow handler it waits for.
	every := max(20*time.Millisecond, time.Duration(sh.objects)*10*time.Microsecond)
	ok := assertEventually(within, every, func() bool {
		if time.Since(last) > 10*time.Second {
			last = time.Now()
			progress("converging")
		}
		want := serverStateNS(srv)
		for _, v := range views {
			if diff(want, v.snapshot()) != "" {
				return false
			}
		}
		return diff(want, storeState(inf)) == ""
	})
	if !ok {
		want := serverStateNS(srv)
		t.Errorf("not every view equals the server %s after the last write; store: %s", within, diff(want, storeState(inf)))
		for _, v := range views {
			t.Errorf("  handler %s (%d calls): %s", v.name, v.calls.Load(), diff(want, v.snapshot()))
		}
	}
	stopSampling()
	fast := []time.Duration{}
	for _, v := range views[1:] {
		v.mu.Lock()
		fast = append(fast, v.lags...)
		v.mu.Unlock()
	}
	slowDepth, _ := lm.maxDepth.Load("h0")
	depth := int64(0)
	if slowDepth != nil {
		depth = slowDepth.(*atomic.Int64).Load()
	}
	t.Logf("load: %d writes in %s (%d/s); all views equal the server %s after the last write",
		writes, sh.duration, int(float64(writes)/sh.duration.Seconds()), time.Since(converged).Round(time.Millisecond))
	t.Logf("load: peak heap %.1f MiB; fast handlers' lag p50 %s p99 %s max %s over %d updates",
		float64(peak())/(1<<20), percentile(fast, 0.5), percentile(fast, 0.99), percentile(fast, 1), len(fast))
	t.Logf("load: slow handler (%s per call): %d calls, max queue depth %d, %d notifications coalesced",
		sh.slow, views[0].calls.Load(), depth, lm.coalesced.Load())
	for _, v := range views {
		require.Zero(t, v.rvBack.Load(), v.bad())
	}
}

// writeAtRate updates random objects at sh.rate per second for
// sh.duration, stamping each with its write time; it returns the count.
func writeAtRate(t *testing.T, srv *fakeapiserver.Server, sh loadShape) int {
	tk := time.NewTicker(10 * time.Millisecond)
	defer tk.Stop()
	start := time.Now()
	n := 0
	for time.Since(start) < sh.duration {
		<-tk.C
		// Catch up to the rate since the start: a late tick writes more.
		due := int(time.Since(start).Seconds() * float64(sh.rate))
		for n < due {
			name := fmt.Sprintf("cm-%05d", (n*7919)%sh.objects)
			_, err := srv.Update(cmGVR, map[string]any{"metadata": map[string]any{"name": name, "namespace": "default",
				"labels": map[string]string{"app": "load"}}, "data": map[string]string{"t": strconv.FormatInt(time.Now().UnixNano(), 10)}})
			require.NoError(t, err)
			n++
		}
	}
	return n
}

func serverStateNS(srv *fakeapiserver.Server) state {
	items, _, err := srv.List(cmGVR, "")
	if err != nil {
		panic(err)
	}
	out := state{}
	for _, r := range items {
		out[r.Namespace+"/"+r.Name] = r.ResourceVersion
	}
	return out
}

// assertEventually polls cond every tick until it holds or d passes.
func assertEventually(d, tick time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(tick) // polling a condition with a deadline
	}
	return true
}
