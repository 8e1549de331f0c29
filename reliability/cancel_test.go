package reliability

import (
	"context"
	"fmt"
	"net"
	"net/http"
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

// stopWithin bounds how long Run may take to return once its context is
// cancelled, at any stage; -race and a loaded machine need headroom, a
// hang does not fit in it.
const stopWithin = 3 * time.Second

// stage sets an informer up to be caught at one stage. ready returns once
// the informer is there.
type stage struct {
	name string
	// server prepares the fake server; nil host means use it.
	server func(t *testing.T, srv *fakeapiserver.Server, tr *tracer) (host string)
	opts   func(o *informer.Options[*object])
	// client tunes the apiclient; nil means no client-side retries, so
	// failures reach the reflector at once.
	client func(o *apiclient.Options)
	// handler, when set, is registered on the informer.
	handler func(ctx context.Context) informer.Handler[*object]
	ready   func(t *testing.T, ctx context.Context, srv *fakeapiserver.Server, inf *informer.Informer[object, *object], tr *tracer)
}

// tracer records which stages the informer reached.
type tracer struct {
	backoffs, listPages atomic.Int64
	handlerCalls        atomic.Int64
	served              atomic.Int64 // items an endless list wrote to the informer
}

func (tr *tracer) trace(ev observe.Event) {
	switch ev.Stage {
	case observe.StageBackoff:
		tr.backoffs.Add(1)
	case observe.StageListPage:
		tr.listPages.Add(1)
	}
}

// await polls cond until it holds or 10 s pass.
func await(t *testing.T, what string, cond func() bool) {
	t.Helper()
	require.Eventually(t, cond, 10*time.Second, time.Millisecond, "never reached: %s", what)
}

func fill(t *testing.T, srv *fakeapiserver.Server, n int) {
	t.Helper()
	for j := range n {
		_, err := srv.Create(cmGVR, map[string]any{"metadata": map[string]any{"name": fmt.Sprintf("cm-%d", j), "namespace": "default"}})
		require.NoError(t, err)
	}
}

// endlessListServer answers every LIST with a body whose items never end,
// counting in served the items the client has taken.
func endlessListServer(t *testing.T, served *atomic.Int64) string {
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"kind":"ConfigMapList","metadata":{"resourceVersion":"1"},"items":[`))
		for i := 0; r.Context().Err() == nil; i++ {
			if _, err := fmt.Fprintf(w, `{"metadata":{"name":"cm-%d","namespace":"default","resourceVersion":"1"}},`, i); err != nil {
				return
			}
			served.Add(1)
		}
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String()
}

var stages = []stage{
	{name: "mid-list, waiting for the reply", server: func(t *testing.T, srv *fakeapiserver.Server, _ *tracer) string {
		srv.SetLatency(time.Hour)
		return ""
	}, ready: func(t *testing.T, ctx context.Context, srv *fakeapiserver.Server, _ *informer.Informer[object, *object], _ *tracer) {
		await(t, "a request in flight", func() bool { return srv.Stats().Faults[fakeapiserver.FaultLatency] > 0 })
	}},
	{name: "mid-list, reading a body that never ends", server: func(t *testing.T, _ *fakeapiserver.Server, tr *tracer) string {
		return endlessListServer(t, &tr.served)
	}, ready: func(t *testing.T, _ context.Context, _ *fakeapiserver.Server, _ *informer.Informer[object, *object], tr *tracer) {
		// Past what socket buffers hold (about 60 bytes an item): the
		// informer is decoding the list, not waiting for it.
		await(t, "20,000 items read", func() bool { return tr.served.Load() > 20_000 })
	}},
	{name: "mid-watch", ready: func(t *testing.T, ctx context.Context, srv *fakeapiserver.Server, inf *informer.Informer[object, *object], _ *tracer) {
		require.NoError(t, inf.WaitForSync(ctx))
		require.NoError(t, srv.AwaitWatchers(ctx, 1))
	}},
	{name: "mid-watch, stalled half-open stream", ready: func(t *testing.T, ctx context.Context, srv *fakeapiserver.Server, inf *informer.Informer[object, *object], _ *tracer) {
		require.NoError(t, inf.WaitForSync(ctx))
		require.NoError(t, srv.AwaitWatchers(ctx, 1))
		srv.StallWatches()
	}},
	{name: "mid-dispatch, a handler that honours its context", handler: func(ctx context.Context) informer.Handler[*object] {
		return informer.HandlerFuncs[*object]{AddFunc: func(*object, bool) { <-ctx.Done() }}
	}, ready: func(t *testing.T, ctx context.Context, srv *fakeapiserver.Server, inf *informer.Informer[object, *object], _ *tracer) {
		require.NoError(t, inf.WaitForSync(ctx))
	}},
	{name: "mid-dispatch, a slow handler with a long queue", handler: func(ctx context.Context) informer.Handler[*object] {
		// The sleep is the handler's work, not a wait for something.
		return informer.HandlerFuncs[*object]{AddFunc: func(*object, bool) { time.Sleep(50 * time.Millisecond) }}
	}, ready: func(t *testing.T, ctx context.Context, srv *fakeapiserver.Server, inf *informer.Informer[object, *object], _ *tracer) {
		require.NoError(t, inf.WaitForSync(ctx)) // 200 adds queued at 50 ms each: 10 s to drain, far over stopWithin
	}},
	{name: "during backoff", server: func(t *testing.T, srv *fakeapiserver.Server, _ *tracer) string {
		srv.FailNext(fakeapiserver.Failure{Count: 1000, Code: 500})
		return ""
	}, opts: func(o *informer.Options[*object]) {
		o.Backoff = informer.BackoffOptions{Initial: time.Hour, Max: time.Hour}
	}, ready: func(t *testing.T, _ context.Context, _ *fakeapiserver.Server, _ *informer.Informer[object, *object], tr *tracer) {
		await(t, "a backoff", func() bool { return tr.backoffs.Load() > 0 })
	}},
	{name: "waiting out a server's Retry-After", server: func(t *testing.T, srv *fakeapiserver.Server, _ *tracer) string {
		srv.FailNext(fakeapiserver.Failure{Count: 1000, Code: 429, RetryAfter: time.Hour})
		return ""
	}, ready: func(t *testing.T, _ context.Context, _ *fakeapiserver.Server, _ *informer.Informer[object, *object], tr *tracer) {
		await(t, "a backoff", func() bool { return tr.backoffs.Load() > 0 })
	}},
	{name: "during the client's own retry wait", server: func(t *testing.T, srv *fakeapiserver.Server, _ *tracer) string {
		srv.FailNext(fakeapiserver.Failure{Count: 1000, Code: 429, RetryAfter: time.Hour})
		return ""
	}, client: func(o *apiclient.Options) { o.Retry = apiclient.RetryOptions{} }, // defaults: 5 tries, Retry-After honoured up to 1 min
		ready: func(t *testing.T, _ context.Context, srv *fakeapiserver.Server, _ *informer.Informer[object, *object], _ *tracer) {
			await(t, "a 429 answered", func() bool { return srv.Stats().Faults[fakeapiserver.FaultFail] > 0 })
		}},
	{name: "mid streaming list", server: func(t *testing.T, srv *fakeapiserver.Server, _ *tracer) string {
		srv.SetLatency(time.Hour)
		return ""
	}, opts: func(o *informer.Options[*object]) { o.Sync.StreamingList = true },
		ready: func(t *testing.T, _ context.Context, srv *fakeapiserver.Server, _ *informer.Informer[object, *object], _ *tracer) {
			await(t, "a request in flight", func() bool { return srv.Stats().Faults[fakeapiserver.FaultLatency] > 0 })
		}},
}

// TestCancelAtEveryStage cancels Run at each stage of its life: it must
// return within stopWithin, and leave no goroutine (TestMain checks).
func TestCancelAtEveryStage(t *testing.T) {
	for _, st := range stages {
		for _, ws := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/websocket=%t", st.name, ws), func(t *testing.T) {
				srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
				fill(t, srv, 200)
				tr := &tracer{}
				host := ""
				if st.server != nil {
					host = st.server(t, srv, tr)
				}
				cfg := fakeapiservertest.ClientConfig(srv)
				if host != "" {
					cfg.Host = host
				}
				co := apiclient.Options{Logger: quiet(), Retry: apiclient.RetryOptions{MaxAttempts: 1}}
				if st.client != nil {
					st.client(&co)
				}
				c, err := apiclient.NewWithOptions(cfg, co)
				require.NoError(t, err)
				t.Cleanup(c.CloseIdleConnections)
				opts := informer.Options[*object]{Transport: informer.Transport{Websocket: wsDialer(ws)}, Observe: informer.ObserveOptions{Logger: quiet(), Trace: tr.trace}}
				if st.opts != nil {
					st.opts(&opts)
				}
				inf := informer.New[object](c, allCMs, opts)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				if st.handler != nil {
					_, err := inf.AddHandler(st.handler(ctx), informer.HandlerOptions{})
					require.NoError(t, err)
				}
				done := make(chan error, 1)
				go func() { done <- inf.Run(ctx) }()
				st.ready(t, ctx, srv, inf, tr)
				cancel()
				start := time.Now()
				select {
				case err := <-done:
					require.NoError(t, err)
					t.Logf("Run returned %s after cancel", time.Since(start).Round(time.Microsecond))
				case <-time.After(stopWithin):
					t.Fatalf("Run still running %s after cancel", stopWithin)
				}
			})
		}
	}
}
