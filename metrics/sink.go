package metrics

import "sync"

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
// the hot path (a watch event, a handler call) costs a lock-free map load
// instead of the sink's label lookup. Its zero value is ready; make is
// called at most once per key that is stored.
type lazy[K comparable, S any] struct {
	m sync.Map // K → S
}

func (l *lazy[K, S]) get(k K, make func(K) S) S {
	if s, ok := l.m.Load(k); ok {
		return s.(S)
	}
	s, _ := l.m.LoadOrStore(k, make(k))
	return s.(S)
}
