// Package prom records zerokube's informer, handler and work queue metrics
// into a github.com/prometheus/client_golang registry that the caller
// owns: [New] registers the families of package metrics' catalogue
// (client-go's workqueue_* names for the work queue) and returns a Sink
// whose Informer and Workqueue methods give each informer or queue its
// Metrics. Serve the registry with promhttp as usual.
//
// It is a module of its own, so that the zerokube module's graph does not
// gain client_golang; a program that does not want it serves package
// metrics' standard-library Registry instead, which exposes the same
// families from the same catalogue.
//
// It sits at the edge of the data path, where the informer's and the
// work queue's Metrics calls leave zerokube:
//
//	observe.Metrics, workqueue.Metrics ─▶ metrics.Informer / metrics.Workqueue ─▶ prom.Sink ─▶ your prometheus.Registry
//
// Invariants (each has a test):
//  1. Nothing is registered in client_golang's global default registry
//     unless the caller passes it.
//  2. For the same calls, the families gathered from the registry equal
//     the ones package metrics' Registry writes: the same names, help,
//     types, labels, buckets and values.
//  3. promtool check metrics accepts the exposition, and a Prometheus
//     server scraping it reads the values back.
//  4. The work queue's in-progress gauges are computed at gather time.
package prom
