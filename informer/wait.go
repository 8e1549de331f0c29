package informer

import (
	"context"
	"errors"
)

// WaitForCacheSync waits until every informer has synced. When ctx ends
// first, the error joins each unsynced informer's error (see
// Informer.WaitForSync): errors.As finds their *SyncError.
func WaitForCacheSync(ctx context.Context, informers ...interface{ WaitForSync(context.Context) error }) error {
	var errs []error
	for _, inf := range informers {
		if err := inf.WaitForSync(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
