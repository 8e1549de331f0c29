package bench

import (
	"context"
	"runtime"
	"runtime/metrics"
	"sync"
	"time"
)

// heapObjects is the runtime metric of bytes in live and not yet swept heap
// objects: after a GC it is the retained heap, between GCs its maximum is
// the peak a program needed.
const heapObjects = "/memory/classes/heap/objects:bytes"

// HeapAfterGC runs two garbage collections (the second frees what the
// first's finalizers released) and returns the bytes of heap objects still
// reachable. The difference of two calls around building something is what
// that something retains.
func HeapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	return readHeap()
}

func readHeap() uint64 {
	s := []metrics.Sample{{Name: heapObjects}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// PeakHeap samples the heap every interval on its own goroutine, from
// StartPeakHeap until Stop, and remembers the largest value: the peak heap
// of what ran meanwhile, to within one sampling interval.
type PeakHeap struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	peak   uint64 // written by the sampling goroutine, read after wg.Wait
}

// StartPeakHeap starts sampling; interval 0 means 1 ms.
func StartPeakHeap(interval time.Duration) *PeakHeap {
	if interval <= 0 {
		interval = time.Millisecond
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &PeakHeap{cancel: cancel, peak: readHeap()}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			p.peak = max(p.peak, readHeap())
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return p
}

// Stop ends sampling and returns the peak heap in bytes. It must be called
// once.
func (p *PeakHeap) Stop() uint64 {
	p.cancel()
	p.wg.Wait()
	return max(p.peak, readHeap())
}
