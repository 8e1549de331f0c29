package metrics

import "github.com/zerokube/zerokube/informer"

// Health exports inf's informer.Health, read at each scrape, as gauges
// labelled informer=name (use the name given to [Informer]): synced,
// stale, the time of the last progress and the consecutive failures. An
// alert on stale, or on time() minus the last progress, catches an
// informer whose watch went quiet, which no counter shows.
func Health(s Sink, name string, inf informer.HealthReporter) {
	s.GaugeFunc(synced, func() float64 { return flag(inf.Health().Synced) }, name)
	s.GaugeFunc(stale, func() float64 { return flag(inf.Health().Stale) }, name)
	s.GaugeFunc(lastProgress, func() float64 {
		last := inf.Health().LastProgress
		if last.IsZero() {
			return 0
		}
		return float64(last.UnixNano()) / 1e9
	}, name)
	s.GaugeFunc(failures, func() float64 {
		if f := inf.Health().Failure; f != nil {
			return float64(f.Attempts)
		}
		return 0
	}, name)
}

func flag(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
