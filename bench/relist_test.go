package bench_test

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/internal/workload"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

// sentinelRV marks the event the relist benchmark sends after each relist:
// the handler seeing it has seen everything the relist emitted before it.
const sentinelRV = "999999999"

// BenchmarkRelist is the cost of a relist of the article's 5,000 pods after
// a watch ends with 410 Gone, when nothing changed on the server: from the
// ERROR event until a handler has seen everything the relist emitted. It
// reports the handler calls the relist caused (the informer's documented
// choice decides whether unchanged objects are notified).
func BenchmarkRelist(b *testing.B) {
	const n = 5000
	f := podFixture(b, n, workload.ArticlePodSize)
	sentinel := workload.Config{ReplicaSets: 1000}.PodEvents(1, n, 0)[0]
	frame := watchstream.AppendFrame(nil, meta.Modified, withRV(b, sentinel, sentinelRV))
	b.Run(fmt.Sprintf("pods=%d/type=raw", n), func(b *testing.B) { relistBench[meta.Raw](b, f, frame) })
	b.Run(fmt.Sprintf("pods=%d/type=slim", n), func(b *testing.B) { relistBench[workload.SlimPod](b, f, frame) })
}

// callCounter counts every handler call and closes seen when the sentinel
// arrives. Calls for the sentinel's own object are not counted: after the
// first round the cache holds its sentinel state, which differs from the
// list, so every relist rightly reports that one object as updated.
type callCounter[P meta.Object] struct {
	sentinelKey string
	calls       atomic.Int64
	seen        atomic.Pointer[chan struct{}]
}

func (h *callCounter[P]) count(obj P) {
	if meta.Key(obj) != h.sentinelKey {
		h.calls.Add(1)
	}
}

func (h *callCounter[P]) OnAdd(obj P, _ bool)    { h.count(obj) }
func (h *callCounter[P]) OnDelete(obj P, _ bool) { h.count(obj) }
func (h *callCounter[P]) OnUpdate(_, obj P) {
	if obj.GetResourceVersion() == sentinelRV {
		if ch := h.seen.Swap(nil); ch != nil {
			close(*ch)
		}
		return
	}
	h.count(obj)
}

func relistBench[T any, P meta.PtrObject[T]](b *testing.B, f *fixture, sentinel []byte) {
	s := startScript(b, f.pages)
	var first meta.Raw
	if err := jsonUnmarshal(f.items[0], &first); err != nil {
		b.Fatal(err)
	}
	h := &callCounter[P]{sentinelKey: meta.Key(&first)}
	r, err := startInformer[T, P](s.client(b), informer.Options[P]{}, h)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = r.stop() }()
	s.awaitWatch(b)
	deadline := time.Now().Add(time.Minute)
	for h.calls.Load() < int64(f.n-1) { // the initial adds, but the sentinel's
		if time.Now().After(deadline) {
			b.Fatalf("bench: %d of %d initial adds", h.calls.Load(), f.n-1)
		}
		time.Sleep(time.Millisecond)
	}
	var calls int64
	iters := 0
	b.ReportAllocs()
	for b.Loop() {
		seen := make(chan struct{})
		h.calls.Store(0)
		h.seen.Store(&seen)
		s.send(b, &batch{frames: [][]byte{goneFrame}, sent: make([]atomic.Int64, 1), end: true})
		s.awaitWatch(b)
		s.send(b, newBatch([][]byte{sentinel}, 0))
		select {
		case <-seen:
		case <-time.After(time.Minute):
			b.Fatal("bench: the sentinel never reached the handler")
		}
		calls += h.calls.Load()
		iters++
	}
	b.ReportMetric(float64(calls)/float64(iters), "handler-calls/op")
}

// withRV sets an object's metadata.resourceVersion.
func withRV(b *testing.B, obj []byte, rv string) []byte {
	b.Helper()
	var m map[string]any
	if err := jsonUnmarshal(obj, &m); err != nil {
		b.Fatal(err)
	}
	m["metadata"].(map[string]any)["resourceVersion"] = rv
	out, err := jsonMarshal(m)
	if err != nil {
		b.Fatal(err)
	}
	return out
}
