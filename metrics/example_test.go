package metrics_test

import (
	"os"
	"strings"

	"github.com/zerokube/zerokube/metrics"
	"github.com/zerokube/zerokube/workqueue"
)

// A work queue's metrics, written in the text format a Prometheus server
// scrapes (an informer's are recorded the same way, with
// metrics.Informer as informer.Options.Observe.Metrics).
func Example() {
	reg := metrics.NewRegistry()
	q := workqueue.New(workqueue.Options[string]{Metrics: metrics.Workqueue(reg, "pods")})
	q.Add("default/web-1")
	q.Add("default/web-2")
	q.Add("default/web-1") // de-duplicated

	var out strings.Builder
	_ = reg.WriteText(&out)
	for line := range strings.Lines(out.String()) {
		if strings.HasPrefix(line, "workqueue_depth") || strings.HasPrefix(line, "workqueue_adds_total") {
			os.Stdout.WriteString(line)
		}
	}
	// Output:
	// workqueue_adds_total{name="pods"} 2
	// workqueue_depth{name="pods"} 2
}
