package prom_test

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zerokube/zerokube/prom"
	"github.com/zerokube/zerokube/workqueue"
)

// An agent registers zerokube's metrics into its own registry, then gives
// each informer and work queue its Metrics. Serve reg with
// promhttp.HandlerFor(reg, promhttp.HandlerOpts{}) at /metrics.
func Example() {
	reg := prometheus.NewRegistry()
	sink, err := prom.New(reg)
	if err != nil {
		panic(err)
	}
	// For an informer: informer.Options{Metrics: sink.Informer("pods")},
	// and sink.Health("pods", inf) for its health gauges.
	q := workqueue.New(workqueue.Options[string]{Metrics: sink.Workqueue("pods")})
	q.Add("default/web-1")
	q.Add("default/web-1") // de-duplicated

	fams, _ := reg.Gather()
	for _, f := range fams {
		if f.GetName() == "workqueue_adds_total" {
			m := f.GetMetric()[0]
			fmt.Println(f.GetName(), m.GetLabel()[0].GetValue(), m.GetCounter().GetValue())
		}
	}
	// Output:
	// workqueue_adds_total pods 1
}
