// Package workqueue is the queue between an informer's event handlers and a
// controller's workers: handlers add keys, workers take them out, reconcile, and
// mark them done, retrying failures with backoff.
//
// It sits after the informer in the data path:
//
//	apiclient ─▶ watchstream ─▶ informer (reflector ─▶ fifo ─▶ cache ─▶ handlers)
//	                                                                      │ Add(key)
//	                                                                      ▼
//	                                                  workers ◀── workqueue.Queue
//	                                                  (read the cache through a lister)
//
// Queue items are keys (usually "namespace/name"), not objects: by the time a
// worker runs, the cache holds the latest state, so many events for one object
// collapse into one reconcile. The package is generic over the key type and
// knows nothing of informers or Kubernetes.
//
// Invariants (each has a test):
//  1. An item is queued at most once: adding an item that is already queued does
//     nothing (de-duplication).
//  2. An item is never handed to two workers at once. Adding an item while a
//     worker holds it marks it; Done then queues it again, so the change is not
//     lost and the two runs do not overlap.
//  3. Items come out in the order they were first queued.
//  4. AddAfter queues an item once its delay has passed on the queue's Clock. An
//     item waiting twice keeps the earlier time.
//  5. AddRateLimited delays by the RateLimiter's answer; the default is the larger
//     of a per-item exponential backoff (5 ms doubling to 1000 s, reset by Forget)
//     and an overall token bucket (10 per second, burst 100), as in client-go.
//  6. After ShutDown, adds are ignored, waiting (delayed) items are dropped, and
//     Get still hands out what is queued before reporting ErrShutDown, so workers
//     finish the backlog and then exit. ShutDownWithDrain also waits until every
//     queued and in-flight item is Done.
//  7. The queue starts no goroutines of its own; delayed items use the Clock's
//     AfterFunc, whose callbacks end when they have queued their items.
//
// Time comes from a Clock so tests drive delays and backoff with a fake clock
// instead of sleeping. Depth, adds, queue latency, work duration, retries and
// the work in progress are reported through the optional Metrics interface,
// with the semantics of client-go's workqueue_* metrics; without one the
// queue takes no timestamps. Package metrics exports them under client-go's
// names, in Prometheus's format (and the prom module into a client_golang
// registry).
package workqueue
