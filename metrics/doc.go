// Package metrics exports the informer's, its handlers' and the work
// queue's metrics in Prometheus's terms: client-go's workqueue_* names for
// the work queue, zerokube_reflector_*, zerokube_informer_* and
// zerokube_handler_* for the rest.
//
// It sits at the edge of the data path, beside the user's program:
//
//	reflector ─▶ fifo ─▶ cache ─▶ handlers ─▶ workqueue ─▶ workers
//	     └──── observe.Metrics ────┘             └── workqueue.Metrics
//	                       ▼                             ▼
//	                 Informer(sink, name)     Workqueue(sink, name)
//	                       └────────── Sink ─────────────┘
//	               Registry (stdlib, text format)  or  the prom module (client_golang)
//
// [Informer] and [Workqueue] turn the two Metrics interfaces' calls into
// series of a [Sink]; [Health] adds gauges read from informer.Health at
// each scrape (synced, stale, last progress, consecutive failures). The [Catalogue] owns every metric's name, help,
// type, labels and buckets; nothing else writes them. Two sinks read it:
// this package's [Registry], on the standard library alone, which serves
// the text exposition format (the demo's /metrics), and the module
// github.com/zerokube/zerokube/prom, which registers the same families
// into a client_golang registry the user owns. The root module therefore
// does not depend on client_golang.
//
// Invariants (each has a test):
//  1. Every family's name, help, type, label names and buckets come from
//     the catalogue; both sinks expose the same families for the same calls.
//  2. The work queue families carry client-go's names, types, label
//     ("name") and buckets (10ns to 10s by powers of ten), as kube-apiserver
//     v1.37.2 serves them (the conformance suite compares).
//  3. Counter names end in _total, and promtool check metrics accepts the
//     exposition.
//  4. workqueue_unfinished_work_seconds and
//     workqueue_longest_running_processor_seconds are computed when read,
//     from the queue's own clock; nothing runs between scrapes.
//  5. The hot paths (a watch event, a handler call, a queue operation)
//     reuse series resolved once: no label lookup in the sink per call.
//  6. Nothing is global: every series lives in the Sink the caller passes.
package metrics
