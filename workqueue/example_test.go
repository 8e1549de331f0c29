package workqueue_test

import (
	"context"
	"fmt"

	"github.com/zerokube/zerokube/workqueue"
)

// A worker loop: take a key, reconcile it, and either Forget it (success) or
// AddRateLimited it (failure, retried with backoff); always Done. Event handlers
// would call Add; adding a key twice before it is processed queues it once.
func Example() {
	q := workqueue.New(workqueue.Options[string]{
		// No backoff, so the example runs instantly; the default starts at 5 ms.
		RateLimiter: workqueue.NewItemBackoff[string](0, 0),
	})
	q.Add("default/web")
	q.Add("default/db")
	q.Add("default/web") // already queued: no second reconcile

	failOnce := map[string]bool{"default/db": true}
	ctx := context.Background()
	for q.Len() > 0 {
		key, err := q.Get(ctx)
		if err != nil {
			break // ErrShutDown or ctx ended
		}
		if failOnce[key] {
			delete(failOnce, key)
			fmt.Println("reconcile", key, "failed: retry")
			q.AddRateLimited(key)
		} else {
			fmt.Println("reconciled", key, "after", q.NumRequeues(key), "retries")
			q.Forget(key)
		}
		q.Done(key)
	}
	q.ShutDown()
	// Output:
	// reconciled default/web after 0 retries
	// reconcile default/db failed: retry
	// reconciled default/db after 1 retries
}
