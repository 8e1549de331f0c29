// Package poll is the one wait the benchmarks' children use to see that an
// informer synced or a handler caught up, whichever library they measure:
// client-go's cache.WaitForCacheSync polls every 100 ms, too coarse for a
// sync time, and a signal of one library's own would time the two
// differently. It sits under bench/ so that both the root module's fleet
// and bench/clientgo's children (a module of its own) import it.
package poll

import (
	"context"
	"time"
)

// Await polls cond every millisecond until it holds or ctx ends.
func Await(ctx context.Context, cond func() bool) error {
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}
