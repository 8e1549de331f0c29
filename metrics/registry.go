package metrics

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Registry is a [Sink] built on the standard library alone: it keeps the
// series in memory and writes them in Prometheus's text exposition format
// (see [Registry.WriteText] and [Registry.ServeHTTP]). It is what a
// program that does not link client_golang serves at /metrics; one that
// does uses github.com/zerokube/zerokube/prom instead, which records the
// same families into its own registry. The zero Registry is not ready:
// use [NewRegistry]. Its methods are safe for concurrent use.
type Registry struct {
	mu       sync.Mutex        // guards families and each family's series map
	families map[*Desc]*family // by Desc, as asked for
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{families: map[*Desc]*family{}} }

// family holds the series of one Desc, by their label values.
type family struct {
	desc   *Desc
	series map[string]*series // key: label values joined by "\xff"
}

// series is one set of label values. Exactly one of its value fields is
// used, by the family's kind and whether a func was given.
type series struct {
	labels []string
	value  atomicFloat    // counter, gauge
	fn     func() float64 // a gauge read at scrape time; set under Registry.mu
	hist   *histogram     // histogram
}

// atomicFloat is a float64 updated without a lock.
type atomicFloat struct{ bits atomic.Uint64 }

func (f *atomicFloat) Add(v float64) {
	for {
		old := f.bits.Load()
		if f.bits.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+v)) {
			return
		}
	}
}

func (f *atomicFloat) Set(v float64) { f.bits.Store(math.Float64bits(v)) }
func (f *atomicFloat) load() float64 { return math.Float64frombits(f.bits.Load()) }

// histogram counts observations per bucket (not cumulated: the writer sums).
type histogram struct {
	bounds []float64
	mu     sync.Mutex // guards the fields below
	counts []uint64   // counts[i]: observations in (bounds[i-1], bounds[i]]; last: above every bound
	sum    float64
	n      uint64
}

func (h *histogram) Observe(v float64) {
	i, _ := slices.BinarySearch(h.bounds, v) // first bound >= v: "le" is inclusive
	h.mu.Lock()
	h.counts[i]++
	h.sum += v
	h.n++
	h.mu.Unlock()
}

// snapshot returns the cumulative bucket counts, sum and count.
func (h *histogram) snapshot() (cum []uint64, sum float64, n uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	cum = make([]uint64, len(h.counts))
	var c uint64
	for i, x := range h.counts {
		c += x
		cum[i] = c
	}
	return cum, h.sum, h.n
}

// get returns the series of d with labelValues, creating it (and its
// family) on first use. It panics when the number of label values is
// not the Desc's: that is a bug in this package, not an input error.
func (r *Registry) get(d *Desc, kind Kind, labelValues []string) *series {
	if d.Kind != kind || len(labelValues) != len(d.Labels) {
		panic(fmt.Sprintf("metrics: %s is a %v with labels %q, asked for as a %v with values %q",
			d.Name, d.Kind, d.Labels, kind, labelValues))
	}
	key := strings.Join(labelValues, "\xff")
	r.mu.Lock()
	defer r.mu.Unlock()
	f := r.families[d]
	if f == nil {
		f = &family{desc: d, series: map[string]*series{}}
		r.families[d] = f
	}
	s := f.series[key]
	if s == nil {
		s = &series{labels: slices.Clone(labelValues)}
		if kind == Histogram {
			s.hist = &histogram{bounds: d.Buckets, counts: make([]uint64, len(d.Buckets)+1)}
		}
		f.series[key] = s
	}
	return s
}

// Counter implements [Sink].
func (r *Registry) Counter(d *Desc, labelValues ...string) CounterSeries {
	return &r.get(d, Counter, labelValues).value
}

// Gauge implements [Sink].
func (r *Registry) Gauge(d *Desc, labelValues ...string) GaugeSeries {
	return &r.get(d, Gauge, labelValues).value
}

// Histogram implements [Sink].
func (r *Registry) Histogram(d *Desc, labelValues ...string) HistogramSeries {
	return r.get(d, Histogram, labelValues).hist
}

// GaugeFunc implements [Sink]: f is called by WriteText.
func (r *Registry) GaugeFunc(d *Desc, f func() float64, labelValues ...string) {
	s := r.get(d, Gauge, labelValues)
	r.mu.Lock()
	s.fn = f
	r.mu.Unlock()
}

var _ Sink = (*Registry)(nil)
