package prom

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/metrics"
	"github.com/zerokube/zerokube/workqueue"
)

// Sink records zerokube's metrics into a client_golang registry: it is a
// [metrics.Sink] whose families are client_golang vectors built from
// [metrics.Catalogue]. Create it with [New]; its methods are safe for
// concurrent use.
type Sink struct {
	counters   map[*metrics.Desc]*prometheus.CounterVec
	gauges     map[*metrics.Desc]*gaugeFamily
	histograms map[*metrics.Desc]*prometheus.HistogramVec
}

// New registers every family of the catalogue into reg, the caller's
// registry (never the global default one unless the caller passes it),
// and returns the Sink that records into them. A family shows up in
// reg's exposition once it has a series. One registry takes one Sink:
// a second New on it fails with client_golang's AlreadyRegisteredError;
// share the first Sink instead.
func New(reg prometheus.Registerer) (*Sink, error) {
	s := &Sink{
		counters:   map[*metrics.Desc]*prometheus.CounterVec{},
		gauges:     map[*metrics.Desc]*gaugeFamily{},
		histograms: map[*metrics.Desc]*prometheus.HistogramVec{},
	}
	var errs []error
	for _, d := range metrics.Catalogue() {
		var c prometheus.Collector
		switch d.Kind {
		case metrics.Counter:
			v := prometheus.NewCounterVec(prometheus.CounterOpts{Name: d.Name, Help: d.Help}, d.Labels)
			s.counters[d], c = v, v
		case metrics.Gauge:
			g := newGaugeFamily(d)
			s.gauges[d], c = g, g
		case metrics.Histogram:
			v := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: d.Name, Help: d.Help, Buckets: d.Buckets}, d.Labels)
			s.histograms[d], c = v, v
		default:
			return nil, fmt.Errorf("prom: %s has kind %v, which this sink does not know", d.Name, d.Kind)
		}
		if err := reg.Register(c); err != nil {
			errs = append(errs, fmt.Errorf("prom: register %s: %w", d.Name, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return s, nil
}

// Informer returns the observe.Metrics of one informer, labelled
// informer=name: metrics.Informer over s.
func (s *Sink) Informer(name string) observe.Metrics { return metrics.Informer(s, name) }

// Workqueue returns the workqueue.Metrics of one work queue, labelled
// name=name as client-go's are: metrics.Workqueue over s.
func (s *Sink) Workqueue(name string) workqueue.Metrics { return metrics.Workqueue(s, name) }

// Health exports inf's health as gauges read at each gather, labelled
// informer=name: metrics.Health over s.
func (s *Sink) Health(name string, inf informer.HealthReporter) { metrics.Health(s, name, inf) }

// Counter implements [metrics.Sink].
func (s *Sink) Counter(d *metrics.Desc, labelValues ...string) metrics.CounterSeries {
	return s.counters[d].WithLabelValues(labelValues...)
}

// Gauge implements [metrics.Sink].
func (s *Sink) Gauge(d *metrics.Desc, labelValues ...string) metrics.GaugeSeries {
	return s.gauges[d].vec.WithLabelValues(labelValues...)
}

// Histogram implements [metrics.Sink].
func (s *Sink) Histogram(d *metrics.Desc, labelValues ...string) metrics.HistogramSeries {
	return s.histograms[d].WithLabelValues(labelValues...)
}

// GaugeFunc implements [metrics.Sink]: f is called when reg is gathered.
func (s *Sink) GaugeFunc(d *metrics.Desc, f func() float64, labelValues ...string) {
	s.gauges[d].setFunc(f, labelValues)
}

var _ metrics.Sink = (*Sink)(nil)

// gaugeFamily is one gauge family of the catalogue: set series in a
// GaugeVec, and series read at gather time (GaugeFunc), exposed together
// under one name.
type gaugeFamily struct {
	vec  *prometheus.GaugeVec
	desc *prometheus.Desc

	mu    sync.Mutex // guards funcs
	funcs map[string]funcSeries
}

type funcSeries struct {
	labels []string
	f      func() float64
}

func newGaugeFamily(d *metrics.Desc) *gaugeFamily {
	return &gaugeFamily{
		vec:   prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: d.Name, Help: d.Help}, d.Labels),
		desc:  prometheus.NewDesc(d.Name, d.Help, d.Labels, nil),
		funcs: map[string]funcSeries{},
	}
}

func (g *gaugeFamily) setFunc(f func() float64, labels []string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.funcs[strings.Join(labels, "\xff")] = funcSeries{labels: slices.Clone(labels), f: f}
}

// Describe implements prometheus.Collector.
func (g *gaugeFamily) Describe(ch chan<- *prometheus.Desc) { ch <- g.desc }

// Collect implements prometheus.Collector: the funcs are called with no
// lock held, since they take the lock of what they read (a work queue's).
func (g *gaugeFamily) Collect(ch chan<- prometheus.Metric) {
	g.vec.Collect(ch)
	g.mu.Lock()
	funcs := slices.Collect(maps.Values(g.funcs))
	g.mu.Unlock()
	for _, fs := range funcs {
		ch <- prometheus.MustNewConstMetric(g.desc, prometheus.GaugeValue, fs.f(), fs.labels...)
	}
}
