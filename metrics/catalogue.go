package metrics

// Kind is a metric's type in the Prometheus exposition: the "# TYPE" line.
type Kind uint8

// The kinds of metric the catalogue holds.
const (
	Counter   Kind = iota + 1 // only goes up; its name ends in _total
	Gauge                     // a value that goes up and down
	Histogram                 // observations counted into cumulative buckets, with their sum and count
)

// String returns the kind as the exposition's TYPE line writes it.
func (k Kind) String() string {
	switch k {
	case Counter:
		return "counter"
	case Gauge:
		return "gauge"
	case Histogram:
		return "histogram"
	}
	return "untyped"
}

// Desc describes one metric family: everything an exposition needs except
// the values. The catalogue's Descs are the only place where a name, help
// text, type, label names or buckets are written; every [Sink] builds its
// series from them. A Desc must not be modified.
type Desc struct {
	Name    string    // full name, e.g. "workqueue_depth"
	Help    string    // one line, the "# HELP" text
	Kind    Kind      // counter, gauge or histogram
	Labels  []string  // label names, in the order label values are passed
	Buckets []float64 // a histogram's upper bounds, ascending; +Inf is implied
}

// Label names. "name" is client-go's label for a work queue; "informer"
// names one informer (the value its user passes, typically the resource).
const (
	labelQueue    = "name"
	labelInformer = "informer"
	labelHandler  = "handler"
)

// exponential returns n bucket bounds start, start*factor, ..., each
// computed from the previous one as client_golang's ExponentialBuckets
// does, so the "le" labels match client-go's bit for bit (1e-05 prints as
// 9.999999999999999e-06 there and here).
func exponential(start, factor float64, n int) []float64 {
	b := make([]float64, n)
	for i := range b {
		b[i] = start
		start *= factor
	}
	return b
}

// queueBuckets are client-go's work queue buckets as kube-apiserver
// v1.37.2 serves them: 10ns to 10s by powers of ten,
// ExponentialBuckets(10e-9, 10, 10).
var queueBuckets = exponential(10e-9, 10, 10)

// durationBuckets are the informer's own: 1µs to 1000s by powers of ten,
// since a handler's lag behind a backlog or a snapshot write can take
// longer than a work queue's 10s top bucket.
var durationBuckets = exponential(1e-6, 10, 10)

// The work queue's metrics: client-go's names, types, label and buckets
// (k8s.io/component-base/metrics/prometheus/workqueue), checked against
// kube-apiserver v1.37.2's own /metrics by the conformance suite, so
// dashboards written for client-go controllers read a zerokube queue
// unchanged.
var (
	queueDepth = &Desc{Name: "workqueue_depth", Kind: Gauge, Labels: []string{labelQueue},
		Help: "Items waiting in the work queue: queued, or added again while a worker holds them."}
	queueAdds = &Desc{Name: "workqueue_adds_total", Kind: Counter, Labels: []string{labelQueue},
		Help: "Adds to the work queue that were not de-duplicated away."}
	queueLatency = &Desc{Name: "workqueue_queue_duration_seconds", Kind: Histogram, Labels: []string{labelQueue},
		Buckets: queueBuckets,
		Help:    "Seconds an item waited in the work queue, from its add to the Get that handed it out."}
	queueWork = &Desc{Name: "workqueue_work_duration_seconds", Kind: Histogram, Labels: []string{labelQueue},
		Buckets: queueBuckets,
		Help:    "Seconds a worker held an item, from Get to Done."}
	queueUnfinished = &Desc{Name: "workqueue_unfinished_work_seconds", Kind: Gauge, Labels: []string{labelQueue},
		Help: "Sum of the seconds that the items workers hold now have been held; a steady rise means stuck workers."}
	queueLongest = &Desc{Name: "workqueue_longest_running_processor_seconds", Kind: Gauge, Labels: []string{labelQueue},
		Help: "Seconds the longest-held item of the work queue has been held by its worker."}
	queueRetries = &Desc{Name: "workqueue_retries_total", Kind: Counter, Labels: []string{labelQueue},
		Help: "Delayed adds to the work queue (AddAfter and AddRateLimited)."}
)

// The reflector's metrics: its requests and what it made of them.
var (
	listRequests = &Desc{Name: "zerokube_reflector_list_requests_total", Kind: Counter,
		Labels: []string{labelInformer, "result"},
		Help:   "LIST requests (pages) the reflector made, by result (success or error)."}
	watchRequests = &Desc{Name: "zerokube_reflector_watch_requests_total", Kind: Counter,
		Labels: []string{labelInformer, "result"},
		Help:   "WATCH requests the reflector opened, by result (success or error)."}
	relists = &Desc{Name: "zerokube_reflector_relists_total", Kind: Counter,
		Labels: []string{labelInformer, "cause"},
		Help:   "Full lists the reflector started, by cause (initial, watch-gone, list-error, ...)."}
	watchEvents = &Desc{Name: "zerokube_reflector_watch_events_total", Kind: Counter,
		Labels: []string{labelInformer, "type"},
		Help:   "Watch events the reflector received, by type (ADDED, MODIFIED, DELETED, BOOKMARK, ERROR)."}
	resourceVersion = &Desc{Name: "zerokube_reflector_resource_version", Kind: Gauge,
		Labels: []string{labelInformer},
		Help:   "The last resourceVersion the reflector holds, when it is a number (kube-apiserver's are)."}
)

// The informer's own metrics: its queue, the objects it dropped, snapshots.
var (
	deltaQueueDepth = &Desc{Name: "zerokube_informer_queue_depth", Kind: Gauge,
		Labels: []string{labelInformer},
		Help:   "Keys waiting in the informer's delta queue between the reflector and the cache."}
	skipped = &Desc{Name: "zerokube_informer_skipped_objects_total", Kind: Counter,
		Labels: []string{labelInformer, "reason"},
		Help:   "Objects dropped before the delta queue, by reason (undecodable, wrong-kind)."}
	snapshotLoads = &Desc{Name: "zerokube_informer_snapshot_loads_total", Kind: Counter,
		Labels: []string{labelInformer, "result"},
		Help:   "Start-ups from a snapshot, by result (resumed, none, or why it was rejected)."}
	snapshotSaves = &Desc{Name: "zerokube_informer_snapshot_saves_total", Kind: Counter,
		Labels: []string{labelInformer, "result"},
		Help:   "Snapshots written, by result (success or error)."}
	snapshotBytes = &Desc{Name: "zerokube_informer_snapshot_bytes", Kind: Gauge,
		Labels: []string{labelInformer},
		Help:   "Size in bytes of the last snapshot written."}
	snapshotSeconds = &Desc{Name: "zerokube_informer_snapshot_save_duration_seconds", Kind: Histogram,
		Labels: []string{labelInformer}, Buckets: durationBuckets,
		Help: "Seconds taken to encode and write one snapshot."}
	audits = &Desc{Name: "zerokube_informer_audits_total", Kind: Counter,
		Labels: []string{labelInformer, "result"},
		Help:   "Cache audits (the cache compared with the server's exact list), by result (in-step, differ, too-old, error)."}
	auditDifferences = &Desc{Name: "zerokube_informer_audit_differences_total", Kind: Counter,
		Labels: []string{labelInformer, "kind"},
		Help:   "Objects cache audits found different from the server, by kind (missing, extra, stale)."}
)

// The informer's health (informer.Health), read at scrape time.
var (
	synced = &Desc{Name: "zerokube_informer_synced", Kind: Gauge, Labels: []string{labelInformer},
		Help: "1 once the informer's initial list is in its cache, else 0."}
	stale = &Desc{Name: "zerokube_informer_stale", Kind: Gauge, Labels: []string{labelInformer},
		Help: "1 when the informer is synced but has heard nothing from the server for longer than StaleAfter, else 0."}
	lastProgress = &Desc{Name: "zerokube_reflector_last_progress_timestamp_seconds", Kind: Gauge,
		Labels: []string{labelInformer},
		Help:   "Unix time the reflector last heard from the server (a list, a watch event or a bookmark); 0 before that."}
	failures = &Desc{Name: "zerokube_reflector_consecutive_failures", Kind: Gauge, Labels: []string{labelInformer},
		Help: "LIST and WATCH attempts that failed in a row since the reflector last heard from the server."}
)

// The event handlers' metrics, one series per handler of an informer.
var (
	handlerQueueDepth = &Desc{Name: "zerokube_handler_queue_depth", Kind: Gauge,
		Labels: []string{labelInformer, labelHandler},
		Help:   "Notifications waiting for an event handler."}
	handlerLag = &Desc{Name: "zerokube_handler_lag_seconds", Kind: Histogram,
		Labels: []string{labelInformer, labelHandler}, Buckets: durationBuckets,
		Help: "Seconds from a notification's dispatch to the start of the handler call that received it."}
	handlerDuration = &Desc{Name: "zerokube_handler_duration_seconds", Kind: Histogram,
		Labels: []string{labelInformer, labelHandler}, Buckets: durationBuckets,
		Help: "Seconds one event handler call took."}
	handlerPanics = &Desc{Name: "zerokube_handler_panics_total", Kind: Counter,
		Labels: []string{labelInformer, labelHandler},
		Help:   "Event handler panics the informer recovered."}
	handlerCoalesced = &Desc{Name: "zerokube_handler_coalesced_total", Kind: Counter,
		Labels: []string{labelInformer, labelHandler},
		Help:   "Notifications merged into a pending one because the handler's queue was full."}
)

// Catalogue returns every metric this package can record, work queue
// first, then reflector, informer, health and handlers. A Sink that registers
// families ahead of use (client_golang's registry does) registers these.
func Catalogue() []*Desc {
	return []*Desc{
		queueDepth, queueAdds, queueLatency, queueWork, queueUnfinished, queueLongest, queueRetries,
		listRequests, watchRequests, relists, watchEvents, resourceVersion,
		deltaQueueDepth, skipped, snapshotLoads, snapshotSaves, snapshotBytes, snapshotSeconds,
		audits, auditDifferences,
		synced, stale, lastProgress, failures,
		handlerQueueDepth, handlerLag, handlerDuration, handlerPanics, handlerCoalesced,
	}
}
