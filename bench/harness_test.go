package bench_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/internal/workload"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

var quiet = slog.New(slog.DiscardHandler)

// running is an informer started on its own goroutine.
type running[T any, P meta.PtrObject[T]] struct {
	inf    *informer.Informer[T, P]
	cancel context.CancelFunc
	done   chan error
}

func startInformer[T any, P meta.PtrObject[T]](c *apiclient.Client, opts informer.Options[P], handlers ...informer.Handler[P]) (*running[T, P], error) {
	opts.Observe.Logger = quiet
	inf := informer.New[T, P](c, podsRef, opts)
	for _, h := range handlers {
		if _, err := inf.AddHandler(h, informer.HandlerOptions{Unbounded: true}); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &running[T, P]{inf: inf, cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- inf.Run(ctx) }()
	return r, nil
}

// stop cancels the informer and waits for Run to return.
func (r *running[T, P]) stop() error {
	r.cancel()
	return <-r.done
}

// script is an API server for one pod list: it serves pre-encoded LIST
// pages and, on every WATCH, writes the batches the benchmark sends it,
// stamping each frame's write time so handlers can measure latency.
type script struct {
	srv     *httptest.Server
	pages   [][]byte
	batches chan *batch
	watches atomic.Int64 // WATCH requests so far
	opened  chan struct{}
}

// batch is frames to write on the current watch, one every interval (0: as
// fast as possible). end closes the watch after the last frame.
type batch struct {
	frames   [][]byte
	interval time.Duration
	sent     []atomic.Int64 // unix nanos of each frame's write
	end      bool
}

func newBatch(frames [][]byte, interval time.Duration) *batch {
	return &batch{frames: frames, interval: interval, sent: make([]atomic.Int64, len(frames))}
}

func startScript(tb testing.TB, pages [][]byte) *script {
	tb.Helper()
	s := &script{pages: pages, batches: make(chan *batch), opened: make(chan struct{}, 16)}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	tb.Cleanup(s.srv.Close)
	return s
}

func (s *script) client(tb testing.TB) *apiclient.Client {
	tb.Helper()
	c, err := apiclient.NewWithOptions(&apiclient.Config{Host: s.srv.URL, QPS: -1}, apiclient.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(c.CloseIdleConnections)
	return c
}

func (s *script) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("watch") == "" {
		resp, err := pagesTransport{s.pages}.RoundTrip(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.Copy(w, resp.Body)
		return
	}
	s.watches.Add(1)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	enc := watchstream.NewEncoder(w, watchstream.EncoderOptions{})
	select {
	case s.opened <- struct{}{}:
	default:
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case b := <-s.batches:
			if !s.write(r.Context(), enc, b) || b.end {
				return
			}
		}
	}
}

func (s *script) write(ctx context.Context, enc *watchstream.Encoder, b *batch) bool {
	start := time.Now()
	for k, f := range b.frames {
		if b.interval > 0 {
			if d := time.Until(start.Add(time.Duration(k) * b.interval)); d > 0 {
				time.Sleep(d) // pacing the sender, not waiting for a condition
			}
		}
		b.sent[k].Store(time.Now().UnixNano())
		if err := enc.WriteFrame(f); err != nil || ctx.Err() != nil {
			return false
		}
	}
	return true
}

// send hands b to the open watch, or fails after a while.
func (s *script) send(tb testing.TB, b *batch) {
	tb.Helper()
	select {
	case s.batches <- b:
	case <-time.After(30 * time.Second):
		tb.Fatal("bench: no watch took the batch")
	}
}

// awaitWatch waits for the next WATCH request.
func (s *script) awaitWatch(tb testing.TB) {
	tb.Helper()
	select {
	case <-s.opened:
	case <-time.After(30 * time.Second):
		tb.Fatal("bench: no watch opened")
	}
}

// goneFrame is the ERROR event kube-apiserver sends when a watch's
// resourceVersion is too old.
var goneFrame = watchstream.AppendFrame(nil, meta.Error,
	[]byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version","reason":"Expired","code":410}`))

// eventIndex recovers an event's index in its batch from the object's
// resourceVersion (events are generated at firstRV+index).
func eventIndex(p meta.Object, firstRV int64) int {
	rv, _ := strconv.ParseInt(p.GetResourceVersion(), 10, 64)
	return int(rv - firstRV)
}

// watchFrames pre-encodes n MODIFIED events over the first pods pods of
// size podSize, at resourceVersions firstRV, firstRV+1, …
func watchFrames(n, pods, podSize int, firstRV int64) [][]byte {
	objs := workload.Config{PodSize: podSize, ReplicaSets: min(pods, 1000)}.PodEvents(n, pods, firstRV)
	frames := make([][]byte, n)
	for i, o := range objs {
		frames[i] = watchstream.AppendFrame(nil, meta.Modified, o)
	}
	return frames
}
