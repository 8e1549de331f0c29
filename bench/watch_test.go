package bench_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zerokube/zerokube/bench"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/internal/workload"
	"github.com/zerokube/zerokube/meta"
)

// watchPods is the number of pods the watch benchmarks update.
const watchPods = 1000

// watchFirstRV is the resourceVersion of the first watch event; the list is
// at watchFirstRV-1.
const watchFirstRV = 100001

// BenchmarkWatch is the steady state: MODIFIED events of 1 KiB pods from
// the server's write of each frame (an httptest server flushing every
// event, as kube-apiserver does) to the handler's call, through apiclient,
// watchstream, the delta queue, the cache and the handler queues. At
// saturation it reports events/s (each event delivered to every handler);
// at a fixed 1,000 events/s it reports latency. Handlers are unbounded so
// every event is a call. cpu-µs/event is the process's CPU time per event,
// the in-process server's writes included. gap-max-µs is the longest a
// handler waited between two consecutive events of a batch (at a fixed
// rate, the pacing interval plus any hiccup).
func BenchmarkWatch(b *testing.B) {
	f := podFixture(b, watchPods, workload.SmallPodSize)
	burst, paced := 2000, 300
	if full() {
		burst, paced = 20000, 5000
	}
	bursts := watchFrames(burst, watchPods, workload.SmallPodSize, watchFirstRV)
	for _, h := range []int{1, 10} {
		b.Run(fmt.Sprintf("handlers=%d/saturation", h), func(b *testing.B) {
			watchBench[meta.Raw](b, f.pages, h, bursts, 0)
		})
	}
	b.Run("handlers=1/saturation/type=slim", func(b *testing.B) {
		watchBench[workload.SlimPod](b, f.pages, 1, bursts, 0)
	})
	for _, h := range []int{1, 10} {
		b.Run(fmt.Sprintf("handlers=%d/rate=1000", h), func(b *testing.B) {
			watchBench[meta.Raw](b, f.pages, h, bursts[:paced], time.Millisecond)
		})
	}
}

// round is one batch in flight: handlers count down remaining and the last
// one closes done.
type round struct {
	b         *batch
	remaining atomic.Int64
	done      chan struct{}
}

// latencyHandler records, for every update, the time since its frame was
// written. Each handler has its own recorder: handlers run concurrently.
type latencyHandler[P meta.Object] struct {
	cur  *atomic.Pointer[round]
	lat  bench.Latencies
	adds atomic.Int64
	// last and gap are touched only by the handler's goroutine (and read
	// after the run): the time of the previous call, and the longest wait
	// between two consecutive events of one batch.
	last int64
	gap  time.Duration
}

func (h *latencyHandler[P]) OnAdd(P, bool) { h.adds.Add(1) }

func (h *latencyHandler[P]) OnUpdate(_, obj P) {
	r := h.cur.Load()
	k := eventIndex(obj, watchFirstRV)
	if r == nil || k < 0 || k >= len(r.b.sent) {
		return
	}
	now := time.Now().UnixNano()
	h.lat.Add(time.Duration(now - r.b.sent[k].Load()))
	// The longest silence inside a batch: a transport stall (such as
	// TCP's 200 ms persist timer) shows here even when queueing hides it
	// in the latency percentiles.
	if k > 0 {
		h.gap = max(h.gap, time.Duration(now-h.last))
	}
	h.last = now
	if r.remaining.Add(-1) == 0 {
		close(r.done)
	}
}

func (h *latencyHandler[P]) OnDelete(P, bool) {}

func watchBench[T any, P meta.PtrObject[T]](b *testing.B, pages [][]byte, handlers int, frames [][]byte, interval time.Duration) {
	s := startScript(b, pages)
	var cur atomic.Pointer[round]
	hs := make([]*latencyHandler[P], handlers)
	ifs := make([]informer.Handler[P], handlers)
	for i := range hs {
		hs[i] = &latencyHandler[P]{cur: &cur}
		ifs[i] = hs[i]
	}
	r, err := startInformer[T, P](s.client(b), informer.Options[P]{}, ifs...)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = r.stop() }()
	s.awaitWatch(b)
	awaitAdds(b, hs, watchPods)
	b.ReportAllocs()
	iters := 0
	var spent cost
	for b.Loop() {
		rd := &round{b: newBatch(frames, interval), done: make(chan struct{})}
		rd.remaining.Store(int64(len(frames) * handlers))
		cur.Store(rd)
		spent.add(measure(func() {
			s.send(b, rd.b)
			select {
			case <-rd.done:
			case <-time.After(time.Minute):
				b.Fatalf("bench: %d of %d calls missing", rd.remaining.Load(), len(frames)*handlers)
			}
		}))
		iters++
	}
	b.StopTimer()
	var all bench.Latencies
	var gap time.Duration
	for _, h := range hs {
		for _, d := range h.lat.Samples() {
			all.Add(d)
		}
		gap = max(gap, h.gap)
	}
	events := float64(iters * len(frames))
	b.ReportMetric(events/b.Elapsed().Seconds(), "events/s")
	if spent.cpu > 0 {
		// CPU per event, server's write included: on a shared machine the
		// steadier figure; 2 CPUs divided by it bounds events/s.
		b.ReportMetric(bench.Micros(spent.cpu)/events, "cpu-µs/event")
	}
	b.ReportMetric(bench.Micros(all.Percentile(50)), "p50-µs")
	b.ReportMetric(bench.Micros(all.Percentile(99)), "p99-µs")
	b.ReportMetric(bench.Micros(all.Max()), "max-µs")
	b.ReportMetric(bench.Micros(gap), "gap-max-µs")
}

// awaitAdds waits until every handler got the initial list.
func awaitAdds[P meta.Object](b *testing.B, hs []*latencyHandler[P], n int) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, h := range hs {
		for h.adds.Load() < int64(n) {
			if ctx.Err() != nil {
				b.Fatalf("bench: handler got %d of %d adds", h.adds.Load(), n)
			}
			time.Sleep(time.Millisecond)
		}
	}
}
