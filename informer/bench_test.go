package informer

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
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
	for _, q := range []bool{false, true} {
		for _, handlers := range []int{1, 4} {
			for _, loop := range []bool{false, true} {
				b.Run(fmt.Sprintf("deltaFIFO=%t/handlers=%d/loop=%t", q, handlers, loop), func(b *testing.B) {
					benchPipeline(b, q, handlers, 5000, loop)
				})
			}
		}
	}
}

func benchPipeline(b *testing.B, q bool, handlers, n int, loop bool) {
	items := make([]*pod, n)
	events := make([]watchstream.Event[*pod], n)
	for i := range n {
		items[i] = mkPod("p-"+strconv.Itoa(i), "1")
		events[i] = ev(meta.Modified, "p-"+strconv.Itoa(i), strconv.Itoa(2+i))
	}
	b.ReportAllocs()
	b.ResetTimer()
	var syncTime, eventTime time.Duration
	cpu0, _ := usage()
	for range b.N {
		w := newFakeWatch(events, nil)
		w.block = true
		lw := &scriptLW{lists: []listReply{{items: items, lm: meta.ListMeta{ResourceVersion: "1"}}},
			watches: []*fakeWatch{w}}
		inf := newInformer[pod](lw, Options[*pod]{Process: ProcessOptions{DeltaFIFO: q, InlineProcessing: !loop}, Observe: ObserveOptions{Logger: quiet()}})
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
	// CPU of the whole process per handler call: the cost side of the
	// processing loop's parallelism.
	cpu1, _ := usage()
	b.ReportMetric(float64(cpu1-cpu0)/float64(time.Microsecond)/float64(2*n*handlers*b.N), "cpu-µs/call")
}

// BenchmarkWatchHops is the watch path one event at a time: the benchmark
// hands the reflector an event and waits until the handler has been
// called. Back to back ("burst"), the runtime's threads are still spinning
// when the next event comes; "paced" lets a millisecond pass after each
// call (a pace, not a synchronisation) so that the next event finds the
// threads parked, as events at a few hundred per second do. What it
// measures is the cost of the goroutine hops between the watch and the handler:
// CPU and context switches per event (getrusage, the whole process, the
// benchmark's own two hops included, the same in every mode), with the
// processing loop of before issue #16 (loop), processing on the
// reflector's goroutine (inline), and a synchronous handler on top (sync).
func BenchmarkWatchHops(b *testing.B) {
	for _, m := range []struct {
		name       string
		loop, sync bool
	}{{"loop", true, false}, {"inline", false, false}, {"inline+sync", false, true}} {
		for _, pace := range []time.Duration{0, time.Millisecond} {
			name := m.name + "/burst"
			if pace > 0 {
				name = m.name + "/paced"
			}
			b.Run(name, func(b *testing.B) { benchHops(b, m.loop, m.sync, pace) })
		}
	}
}

func benchHops(b *testing.B, loop, sync bool, pace time.Duration) {
	lw := newLiveLW(pods("a"), "1")
	inf := newInformer[pod](lw, Options[*pod]{Process: ProcessOptions{InlineProcessing: !loop}, Observe: ObserveOptions{Logger: quiet()}})
	called := make(chan struct{}, 1)
	_, err := inf.AddHandler(HandlerFuncs[*pod]{UpdateFunc: func(_, _ *pod) { called <- struct{}{} }},
		HandlerOptions{Synchronous: sync})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	defer func() { cancel(); <-done }()
	if err := inf.WaitForSync(ctx); err != nil {
		b.Fatal(err)
	}
	events := make([]watchstream.Event[*pod], 1024)
	for i := range events {
		events[i] = ev(meta.Modified, "a", strconv.Itoa(2+i))
	}
	b.ReportAllocs()
	cpu0, sw0 := usage()
	n := 0
	for b.Loop() {
		lw.events <- events[n%len(events)]
		<-called
		n++
		if pace > 0 {
			b.StopTimer()
			time.Sleep(pace)
			b.StartTimer()
		}
	}
	cpu1, sw1 := usage()
	b.ReportMetric(float64(cpu1-cpu0)/float64(time.Microsecond)/float64(n), "cpu-µs/event")
	b.ReportMetric(float64(sw1-sw0)/float64(n), "ctxsw/event")
}
