package informer_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient/websocket"
	"github.com/zerokube/zerokube/clock/clocktest"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/kubeproto"
	"github.com/zerokube/zerokube/meta"
)

// traceLog collects trace events for one key plus the reflector's own.
type traceLog struct {
	mu     sync.Mutex
	stages []string
}

func (l *traceLog) record(ev observe.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := ev.Stage.String()
	if ev.Op != 0 {
		s += ":" + ev.Op.String()
	}
	l.stages = append(l.stages, s)
}

func (l *traceLog) has(want ...string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	// want must appear in this order, not necessarily adjacent.
	i := 0
	for _, s := range l.stages {
		if i < len(want) && s == want[i] {
			i++
		}
	}
	return i == len(want)
}

func TestTraceFollowsAnObjectThroughTheDataPath(t *testing.T) {
	e := newEnv(t)
	e.put(t, "a", "0", nil)
	var log traceLog
	opts := fastOpts()
	opts.Observe.Trace = log.record
	inf := informer.New[configMap](e.client, cmRef, opts)
	_, err := inf.AddHandler(newView(), informer.HandlerOptions{Name: "h"})
	require.NoError(t, err)
	run(t, inf)
	synced(t, inf)
	e.put(t, "a", "1", nil)
	// Stages of one goroutine come in order; the reflector (list, watch,
	// queue) and the dispatcher (cache, synced, handlers) run side by side,
	// so "synced" may be traced before or after "watch-opened".
	require.Eventually(t, func() bool {
		return log.has("relist", "list-page", "replace", "watch-opened", "event", "delta-queued:update") &&
			log.has("cache-replaced", "store-updated:replace", "synced", "store-updated:update", "handler-called:update")
	}, wait, 5*time.Millisecond)
}

// With InlineProcessing and a synchronous handler the whole data path runs
// on the reflector's goroutine, so its trace is one sequence in data-path
// order: the list is in the cache, the informer synced and the handler
// called before the watch opens; an event is stored and handled before the
// next is read.
func TestTraceIsOneSequenceWithInlineProcessing(t *testing.T) {
	e := newEnv(t)
	e.put(t, "a", "0", nil)
	var log traceLog
	opts := fastOpts()
	opts.Observe.Trace = log.record
	opts.Process.InlineProcessing = true
	inf := informer.New[configMap](e.client, cmRef, opts)
	_, err := inf.AddHandler(newView(), informer.HandlerOptions{Name: "h", Synchronous: true})
	require.NoError(t, err)
	run(t, inf)
	synced(t, inf)
	e.put(t, "a", "1", nil)
	require.Eventually(t, func() bool {
		return log.has("relist", "list-page", "replace", "cache-replaced", "store-updated:replace", "synced",
			"handler-called:add", "watch-opened", "event", "delta-queued:update", "store-updated:update",
			"handler-called:update")
	}, wait, 5*time.Millisecond)
}

// counting is a Metrics that counts what the tests look at.
type counting struct {
	observe.NopMetrics
	mu      sync.Mutex
	lists   int
	watches int
	events  map[meta.EventType]int
	relists map[observe.RelistCause]int
	calls   map[string]int
	rv      string
}

func newCounting() *counting {
	return &counting{events: map[meta.EventType]int{}, relists: map[observe.RelistCause]int{}, calls: map[string]int{}}
}

func (c *counting) ListCall(error)  { c.mu.Lock(); c.lists++; c.mu.Unlock() }
func (c *counting) WatchCall(error) { c.mu.Lock(); c.watches++; c.mu.Unlock() }
func (c *counting) WatchEvent(t meta.EventType) {
	c.mu.Lock()
	c.events[t]++
	c.mu.Unlock()
}
func (c *counting) Relist(r observe.RelistCause) { c.mu.Lock(); c.relists[r]++; c.mu.Unlock() }
func (c *counting) ResourceVersion(rv string)    { c.mu.Lock(); c.rv = rv; c.mu.Unlock() }
func (c *counting) HandlerCall(h string, _, _ time.Duration) {
	c.mu.Lock()
	c.calls[h]++
	c.mu.Unlock()
}

func TestMetricsCountCallsEventsRelistsAndHandlers(t *testing.T) {
	e := newEnv(t)
	e.put(t, "a", "0", nil)
	m := newCounting()
	opts := fastOpts()
	opts.Observe.Metrics = m
	inf := informer.New[configMap](e.client, cmRef, opts)
	_, err := inf.AddHandler(newView(), informer.HandlerOptions{Name: "h"})
	require.NoError(t, err)
	run(t, inf)
	synced(t, inf)
	require.NoError(t, e.srv.AwaitWatchers(t.Context(), 1))
	e.put(t, "b", "0", nil)
	require.Eventually(t, func() bool {
		m.mu.Lock()
		defer m.mu.Unlock()
		return m.events[meta.Added] == 1 && m.calls["h"] == 2
	}, wait, 5*time.Millisecond)
	m.mu.Lock()
	defer m.mu.Unlock()
	require.Equal(t, 1, m.lists)
	require.Equal(t, 1, m.watches)
	require.Equal(t, map[observe.RelistCause]int{observe.CauseInitial: 1}, m.relists)
	require.Equal(t, inf.LastSyncResourceVersion(), m.rv)
}

func TestStalledWatchIsEndedByTheIdleWatchdog(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{BookmarkInterval: time.Hour})
	e.put(t, "a", "0", nil)
	clk := clocktest.New()
	opts := fastOpts()
	opts.Clock, opts.Watch.IdleTimeout = clk, time.Minute
	inf := informer.New[configMap](e.client, cmRef, opts)
	run(t, inf)
	synced(t, inf)
	require.NoError(t, e.srv.AwaitWatchers(t.Context(), 1))
	require.NoError(t, clk.AwaitTimers(t.Context(), 1), "the watchdog is armed")
	e.srv.StallWatches()
	e.put(t, "b", "0", nil) // held by the stalled stream
	// Every reset of the watchdog so far happened at the clock's start, so
	// a minute later it is due, however the events and the stall raced.
	clk.Advance(time.Minute)
	converges(t, e, inf)
}

func TestWebsocketWatch(t *testing.T) {
	e := newEnv(t)
	e.put(t, "a", "0", nil)
	opts := fastOpts()
	opts.Transport.Websocket = websocket.Dialer{}
	inf := informer.New[configMap](e.client, cmRef, opts)
	run(t, inf)
	synced(t, inf)
	e.put(t, "b", "0", nil)
	require.NoError(t, e.srv.Delete(cmGVR, "default", "a"))
	converges(t, e, inf)
}

func TestTooManyRequestsIsRetriedAfterRetryAfter(t *testing.T) {
	e := newEnv(t)
	e.put(t, "a", "0", nil)
	e.srv.FailNext(fakeapiserver.Failure{Count: 1, Code: 429, Verb: "list", RetryAfter: time.Second})
	var delays []time.Duration
	var mu sync.Mutex
	opts := fastOpts()
	opts.Backoff.Max = 2 * time.Second // the hint is capped at the maximum backoff
	opts.Observe.Trace = func(ev observe.Event) {
		if ev.Stage == observe.StageBackoff {
			mu.Lock()
			delays = append(delays, ev.Duration)
			mu.Unlock()
		}
	}
	inf := informer.New[configMap](e.client, cmRef, opts)
	run(t, inf)
	synced(t, inf)
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []time.Duration{time.Second}, delays, "the server's hint, not the 10 ms backoff")
}

func TestStoppedInformerIsCollected(t *testing.T) {
	e := newEnv(t)
	e.put(t, "a", "0", nil)
	collected := make(chan struct{})
	func() {
		inf := informer.New[configMap](e.client, cmRef, fastOpts())
		_, err := inf.AddHandler(newView(), informer.HandlerOptions{})
		require.NoError(t, err)
		// AddCleanup, not SetFinalizer: the informer is a cycle (reflector
		// hooks point back at it), and finalizers do not run on cycles.
		runtime.AddCleanup(inf, func(c chan struct{}) { close(c) }, collected)
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error)
		go func() { done <- inf.Run(ctx) }()
		require.NoError(t, inf.WaitForSync(ctx))
		cancel()
		require.NoError(t, <-done)
	}()
	require.Eventually(t, func() bool {
		runtime.GC()
		select {
		case <-collected:
			return true
		default:
			return false
		}
	}, wait, 10*time.Millisecond)
}

// TestObjectsOfAnotherAPIVersionAreDropped, on both wires: an object whose
// envelope names another apiVersion is never cached and its
// resourceVersion is not adopted. Over JSON it is skipped (StageSkipped)
// and the watch goes on. Over protobuf (the default for configmaps) the
// fake encodes it as a ConfigMap message under the envelope's own
// apiVersion, whose kind kubeproto's table lacks: the watch fails with
// kubeproto.ErrUnknownKind (decoding it by its metadata alone could cache
// an object with its spec silently empty) and the informer asks for JSON
// from then on (wire.go, rule 3).
func TestObjectsOfAnotherAPIVersionAreDropped(t *testing.T) {
	for _, wire := range []string{"json", "protobuf"} {
		t.Run(wire, func(t *testing.T) {
			e := newEnv(t)
			e.put(t, "a", "0", nil)
			var dropped atomic.Bool
			opts := fastOpts()
			opts.Transport.JSON = wire == "json"
			opts.Observe.Trace = func(ev observe.Event) {
				if ev.Stage == observe.StageSkipped && ev.Key == "default/alien" && wire == "json" {
					dropped.Store(true)
				}
				if ev.Stage == observe.StageWatchEnded && errors.Is(ev.Err, kubeproto.ErrUnknownKind) && wire == "protobuf" {
					dropped.Store(true)
				}
			}
			inf := informer.New[configMap](e.client, cmRef, opts)
			run(t, inf)
			synced(t, inf)
			require.NoError(t, e.srv.AwaitWatchers(t.Context(), 1))
			e.srv.InjectFrame([]byte(`{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v2","metadata":{"name":"alien","namespace":"default","resourceVersion":"1000"}}}` + "\n"))
			e.put(t, "b", "0", nil)
			require.Eventually(t, dropped.Load, wait, 5*time.Millisecond)
			converges(t, e, inf)
			_, cached := inf.Lister().Namespace("default").Get("alien")
			require.False(t, cached, "the object of another apiVersion is not cached")
			require.NotEqual(t, "1000", inf.LastSyncResourceVersion(), "a dropped object's rv is not adopted")
			e.srv.DropWatches() // the re-watch must start from a real rv
			e.put(t, "c", "0", nil)
			converges(t, e, inf)
		})
	}
}
