package metrics

import (
	"maps"
	"sync"
	"sync/atomic"
)

// CounterSeries is one series of a counter family: Add adds a value >= 0.
type CounterSeries interface{ Add(v float64) }

// GaugeSeries is one series of a gauge family: Set replaces its value.
type GaugeSeries interface{ Set(v float64) }

// HistogramSeries is one series of a histogram family: Observe counts v
// into its buckets, sum and count.
type HistogramSeries interface{ Observe(v float64) }

// Sink stores series for the catalogue's Descs and exposes them. This
// package's [Registry] is one (standard library only); the module
// github.com/zerokube/zerokube/prom provides one over a client_golang
// registry. client_golang's Counter, Gauge and Histogram satisfy the
// series interfaces as they are.
//
// Contract:
//  1. The label values match d.Labels in number and order.
//  2. Asking twice for the same d and label values returns the same series
//     (or one that adds to the same numbers).
//  3. Series methods are safe for concurrent use and do not block: they
//     are called from the informer's and the work queue's goroutines,
//     some with a lock held.
//  4. GaugeFunc's f is called when the sink is read (a scrape), never
//     while a series method runs; a later GaugeFunc for the same d and
//     label values replaces f.
type Sink interface {
	Counter(d *Desc, labelValues ...string) CounterSeries
	Gauge(d *Desc, labelValues ...string) GaugeSeries
	Histogram(d *Desc, labelValues ...string) HistogramSeries
	GaugeFunc(d *Desc, f func() float64, labelValues ...string)
}

// lazy resolves the series of a label value on first use and keeps it, so
// the hot path (a watch event, a handler call) costs an atomic load and a
// map lookup, with no allocation and no lock, instead of the sink's label
// lookup. Writes copy the map: they happen once per label value. Its zero
// value is ready.
type lazy[K comparable, S any] struct {
	m  atomic.Pointer[map[K]S] // never modified once stored
	mu sync.Mutex              // serialises writers
}

func (l *lazy[K, S]) get(k K, make func(K) S) S {
	if m := l.m.Load(); m != nil {
		if s, ok := (*m)[k]; ok {
			return s
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	old := l.m.Load()
	if old != nil {
		if s, ok := (*old)[k]; ok {
			return s
		}
	}
	next := make(k)
	m := map[K]S{k: next}
	if old != nil {
		maps.Copy(m, *old)
	}
	l.m.Store(&m)
	return next
}
