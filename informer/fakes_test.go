package informer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zerokube/zerokube/clock/clocktest"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

// pod is the test object type.
type pod struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Value           string `json:"value,omitempty"`
}

func mkPod(name, rv string) *pod {
	return &pod{ObjectMeta: meta.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
}

// newFakeClock is the project's one fake clock: timers fire on Advance, or
// at once after SetInstant(true) (for stepping backingOff).
func newFakeClock() *clocktest.Fake { return clocktest.New() }

// scriptLW is a ListerWatcher that answers from scripts and records requests.
type scriptLW struct {
	mu      sync.Mutex
	lists   []listReply
	watches []*fakeWatch
	listReq []ListRequest
	watchRq []WatchRequest
}

type listReply struct {
	items   []*pod
	lm      meta.ListMeta
	skipped []UndecodableObject
	err     error
}

func (f *scriptLW) List(ctx context.Context, req ListRequest, each func(*pod) error) (ListPage, error) {
	f.mu.Lock()
	f.listReq = append(f.listReq, req)
	if len(f.lists) == 0 {
		f.mu.Unlock()
		<-ctx.Done()
		return ListPage{}, ctx.Err()
	}
	r := f.lists[0]
	f.lists = f.lists[1:]
	f.mu.Unlock()
	for _, p := range r.items {
		if err := each(p); err != nil {
			return ListPage{}, err
		}
	}
	return ListPage{ListMeta: r.lm, Skipped: r.skipped}, r.err
}

func (f *scriptLW) Watch(ctx context.Context, opts WatchRequest) (Watch[*pod], error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.watchRq = append(f.watchRq, opts)
	if len(f.watches) == 0 {
		w := newFakeWatch(nil, nil)
		w.block = true
		go func() { <-ctx.Done(); w.Stop() }()
		return w, nil
	}
	w := f.watches[0]
	f.watches = f.watches[1:]
	if w.openErr != nil {
		return nil, w.openErr
	}
	return w, nil
}

func (f *scriptLW) lastList() ListRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.listReq[len(f.listReq)-1]
}

func (f *scriptLW) lastWatch() WatchRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.watchRq[len(f.watchRq)-1]
}

// fakeWatch plays events, then ends with end (io.EOF when nil), or blocks
// until Stop when block is set.
type fakeWatch struct {
	events  []watchstream.Event[*pod]
	end     error
	openErr error
	block   bool

	mu      sync.Mutex
	stopped chan struct{}
	once    sync.Once
}

func newFakeWatch(events []watchstream.Event[*pod], end error) *fakeWatch {
	return &fakeWatch{events: events, end: end, stopped: make(chan struct{})}
}

var errStopped = errors.New("fake watch stopped")

func (w *fakeWatch) Next() (watchstream.Event[*pod], error) {
	w.mu.Lock()
	if len(w.events) > 0 {
		ev := w.events[0]
		w.events = w.events[1:]
		w.mu.Unlock()
		return ev, nil
	}
	w.mu.Unlock()
	select {
	case <-w.stopped:
		return watchstream.Event[*pod]{}, errStopped
	default:
	}
	if w.block {
		<-w.stopped
		return watchstream.Event[*pod]{}, errStopped
	}
	if w.end != nil {
		return watchstream.Event[*pod]{}, w.end
	}
	return watchstream.Event[*pod]{}, io.EOF
}

func (w *fakeWatch) Stop() { w.once.Do(func() { close(w.stopped) }) }

func (w *fakeWatch) isStopped() bool {
	select {
	case <-w.stopped:
		return true
	default:
		return false
	}
}

func ev(t meta.EventType, name, rv string) watchstream.Event[*pod] {
	return watchstream.Event[*pod]{Type: t, Object: mkPod(name, rv), ResourceVersion: rv}
}

func endBookmark(rv string) watchstream.Event[*pod] {
	return watchstream.Event[*pod]{Type: meta.Bookmark, Object: mkPod("", rv), ResourceVersion: rv, InitialEventsEnd: true}
}

// recSink records queue operations as strings.
type recSink struct {
	mu  sync.Mutex
	ops []string
	err error
}

func (s *recSink) rec(op string, p *pod) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ops = append(s.ops, op+" "+p.Name+"@"+p.ResourceVersion)
	return s.err
}

func (s *recSink) Add(p *pod) error    { return s.rec("add", p) }
func (s *recSink) Update(p *pod) error { return s.rec("update", p) }
func (s *recSink) Delete(p *pod) error { return s.rec("delete", p) }
func (s *recSink) Replace(list []*pod, rv string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, len(list))
	for i, p := range list {
		names[i] = p.Name
	}
	slices.Sort(names)
	s.ops = append(s.ops, fmt.Sprintf("replace [%s] %s", strings.Join(names, " "), rv))
	return s.err
}

func (s *recSink) got() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.ops)
}

// testReflector builds a reflector on fakes with deterministic randomness.
func testReflector(t testing.TB, lw *scriptLW, mod func(*reflectorConfig[*pod])) (*reflector[*pod], *recSink, *clocktest.Fake) {
	t.Helper()
	clk := newFakeClock()
	q := &recSink{}
	cfg := defaultReflectorConfig[*pod](Options[*pod]{Clock: clk, Rand: func() float64 { return 0 }, Observe: ObserveOptions{Logger: slog.New(slog.DiscardHandler)}})
	if mod != nil {
		mod(&cfg)
	}
	return newReflector[*pod](lw, q, newRecord(2*time.Minute), nil, cfg), q, clk
}

func statusErr(code int32, reason meta.StatusReason) *meta.StatusError {
	return meta.NewStatusError(code, reason, "scripted "+string(reason))
}

func (f *scriptLW) watchCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.watchRq)
}

// chanWatch delivers events sent on ch until Stop.
type chanWatch struct {
	ch      <-chan watchstream.Event[*pod]
	stopped chan struct{}
	once    sync.Once
}

func (w *chanWatch) Next() (watchstream.Event[*pod], error) {
	select {
	case e := <-w.ch:
		return e, nil
	case <-w.stopped:
		return watchstream.Event[*pod]{}, errStopped
	}
}

func (w *chanWatch) Stop() { w.once.Do(func() { close(w.stopped) }) }

// liveLW lists from a fixed reply, then watches from a channel the test feeds.
type liveLW struct {
	scriptLW
	events chan watchstream.Event[*pod]
}

func newLiveLW(items []*pod, rv string) *liveLW {
	return &liveLW{scriptLW: scriptLW{lists: []listReply{{items: items, lm: meta.ListMeta{ResourceVersion: rv}}}},
		events: make(chan watchstream.Event[*pod])}
}

func (f *liveLW) Watch(ctx context.Context, opts WatchRequest) (Watch[*pod], error) {
	f.mu.Lock()
	f.watchRq = append(f.watchRq, opts)
	f.mu.Unlock()
	return &chanWatch{ch: f.events, stopped: make(chan struct{})}, nil
}

// viewHandler applies its notifications to a map, as a handler's view of the
// world, and records them.
type viewHandler struct {
	mu    sync.Mutex
	view  map[string]string // key → rv
	log   []string
	block chan struct{} // when set, every call waits on it
}

func newView() *viewHandler { return &viewHandler{view: map[string]string{}} }

func (h *viewHandler) wait() {
	if h.block != nil {
		<-h.block
	}
}

func (h *viewHandler) OnAdd(p *pod, initial bool) {
	h.wait()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.view[meta.Key(p)] = p.ResourceVersion
	h.log = append(h.log, fmt.Sprintf("add %s@%s initial=%t", p.Name, p.ResourceVersion, initial))
}

func (h *viewHandler) OnUpdate(old, p *pod) {
	h.wait()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.view[meta.Key(p)] = p.ResourceVersion
	h.log = append(h.log, fmt.Sprintf("update %s@%s->%s", p.Name, old.ResourceVersion, p.ResourceVersion))
}

func (h *viewHandler) OnDelete(p *pod, unknown bool) {
	h.wait()
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.view, meta.Key(p))
	h.log = append(h.log, fmt.Sprintf("delete %s unknown=%t", p.Name, unknown))
}

func (h *viewHandler) lines() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.log)
}

func (h *viewHandler) snapshot() map[string]string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return maps.Clone(h.view)
}

// startInformer runs inf until the test ends.
func startInformer[T any, P meta.PtrObject[T]](t testing.TB, inf *Informer[T, P]) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
}

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

type countMetrics struct {
	observe.NopMetrics
	coalesced, panics atomic.Int64
}

func (m *countMetrics) Coalesced(string)    { m.coalesced.Add(1) }
func (m *countMetrics) HandlerPanic(string) { m.panics.Add(1) }

// stateAs returns s as an S, or fails the test: a bare type assertion would
// panic on a wrong state and abort every test of the package after it.
func stateAs[S state](t testing.TB, s state) S {
	t.Helper()
	return requireType[S](t, s)
}

// requireType returns v as a T, or fails the test naming what v was.
func requireType[T any](t testing.TB, v any) T {
	t.Helper()
	got, ok := v.(T)
	if !ok {
		var want T
		t.Fatalf("got %T %+v, want %T", v, v, want)
	}
	return got
}
