package bench

import (
	"slices"
	"time"
)

// Latencies collects durations and reports their percentiles. It keeps
// every sample (benchmarks record thousands, not billions), so percentiles
// are exact. The zero value is ready to use; it is not safe for concurrent
// use.
type Latencies struct {
	samples []time.Duration
	sorted  bool
}

// Add records one sample.
func (l *Latencies) Add(d time.Duration) {
	l.samples = append(l.samples, d)
	l.sorted = false
}

// Len is the number of samples.
func (l *Latencies) Len() int { return len(l.samples) }

// Percentile returns the smallest sample that at least p percent of the
// samples are less than or equal to (the nearest-rank method); p in
// [0, 100]. It is 0 without samples.
func (l *Latencies) Percentile(p float64) time.Duration {
	if len(l.samples) == 0 {
		return 0
	}
	if !l.sorted {
		slices.Sort(l.samples)
		l.sorted = true
	}
	rank := int(p/100*float64(len(l.samples))+0.999999999) - 1
	return l.samples[min(max(rank, 0), len(l.samples)-1)]
}

// Max returns the largest sample.
func (l *Latencies) Max() time.Duration { return l.Percentile(100) }

// Micros converts d to microseconds, the unit benchmarks report latency in.
func Micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// Samples returns the recorded samples (sorted if a percentile was asked
// for). The caller must not modify them.
func (l *Latencies) Samples() []time.Duration { return l.samples }
