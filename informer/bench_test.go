package informer

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zerokube/zerokube/meta"
)

// countHandler counts calls and signals when it reached want.
type countHandler struct {
	n    atomic.Int64
	want int64
	done chan struct{}
}

func (h *countHandler) hit() {
	if h.n.Add(1) == h.want {
		close(h.done)
	}
}
func (h *countHandler) OnAdd(*pod, bool)    { h.hit() }
func (h *countHandler) OnUpdate(_, _ *pod)  { h.hit() }
func (h *countHandler) OnDelete(*pod, bool) { h.hit() }

// BenchmarkInformerPipeline measures the informer's own cost, with the
// network and decoding taken out: a scripted list of n objects and then n
// watch events go through reflector, queue, cache and handlers.
func BenchmarkInformerPipeline(b *testing.B) {
	for _, q := range []QueueKind{QueueInOrder, QueueDeltaFIFO} {
		for _, handlers := range []int{1, 4} {
			b.Run(fmt.Sprintf("queue=%d/handlers=%d", q, handlers), func(b *testing.B) {
				benchPipeline(b, q, handlers, 5000)
			})
		}
	}
}

func benchPipeline(b *testing.B, q QueueKind, handlers, n int) {
	items := make([]*pod, n)
	events := make([]Event[*pod], n)
	for i := range n {
		items[i] = mkPod("p-"+strconv.Itoa(i), "1")
		events[i] = ev(meta.Modified, "p-"+strconv.Itoa(i), strconv.Itoa(2+i))
	}
	b.ReportAllocs()
	b.ResetTimer()
	var syncTime, eventTime time.Duration
	for range b.N {
		w := newFakeWatch(events, nil)
		w.block = true
		lw := &scriptLW{lists: []listReply{{items: items, lm: meta.ListMeta{ResourceVersion: "1"}}},
			watches: []*fakeWatch{w}}
		inf := New[pod](lw, Options[*pod]{Queue: q, Logger: quiet()})
		hs := make([]*countHandler, handlers)
		for i := range hs {
			hs[i] = &countHandler{want: int64(2 * n), done: make(chan struct{})}
			_, _ = inf.AddHandler(hs[i], HandlerOptions{Unbounded: true})
		}
		ctx, cancel := context.WithCancel(context.Background())
		start := time.Now()
		done := make(chan error)
		go func() { done <- inf.Run(ctx) }()
		_ = inf.WaitForSync(ctx)
		syncTime += time.Since(start)
		for _, h := range hs {
			<-h.done
		}
		eventTime += time.Since(start)
		cancel()
		<-done
	}
	b.ReportMetric(float64(n*b.N)/syncTime.Seconds(), "listed-objects/s")
	b.ReportMetric(float64(2*n*handlers*b.N)/eventTime.Seconds(), "handler-calls/s")
}
