package apiclient

import (
	"context"
	"fmt"
	"time"

	"github.com/zerokube/zerokube/clock"
	"github.com/zerokube/zerokube/meta"
)

// ConflictRetry says how often and how fast RetryOnConflict tries again.
// The zero value is client-go's retry.DefaultRetry: 5 tries, 10 ms apart
// (each wait up to 10% longer, at random). Conflicts between writers of one
// object resolve in milliseconds; a longer wait only delays the writer.
type ConflictRetry struct {
	// Steps is how many times fn runs at most, the first included; 0
	// means 5.
	Steps int
	// Initial is the first wait; 0 means 10 ms.
	Initial time.Duration
	// Factor multiplies the wait after each try; 0 means 1 (constant).
	// client-go's retry.DefaultBackoff, for objects under active
	// management by controllers, is Steps 4, Initial 10 ms, Factor 5.
	Factor float64
	// Jitter lengthens each wait by up to this fraction, drawn from the
	// client's RetryOptions.Jitter; 0 means 0.1. Negative: none.
	Jitter float64
}

func (r ConflictRetry) withDefaults() ConflictRetry {
	if r.Steps <= 0 {
		r.Steps = 5
	}
	if r.Initial <= 0 {
		r.Initial = 10 * time.Millisecond
	}
	if r.Factor <= 0 {
		r.Factor = 1
	}
	if r.Jitter == 0 {
		r.Jitter = 0.1
	}
	return r
}

// RetryOnConflict runs fn until it returns anything but a conflict (409
// meta.IsConflict), at most r.Steps times, waiting between tries on the
// client's clock; it returns fn's last error. It is client-go's
// retry.RetryOnConflict: fn must read the object again each time (a
// conflict means its copy is stale) and return the write's error
// unwrapped or wrapped with %w. Unlike client-go, a server-side apply's
// field-manager conflict (meta.IsFieldManagerConflict) is not retried: it
// is the same on every try.
func (c *Client) RetryOnConflict(ctx context.Context, r ConflictRetry, fn func(context.Context) error) error {
	r = r.withDefaults()
	wait := r.Initial
	for try := 1; ; try++ {
		err := fn(ctx)
		if err == nil || !meta.IsConflict(err) || meta.IsFieldManagerConflict(err) || try >= r.Steps {
			return err
		}
		d := wait
		if r.Jitter > 0 {
			d += time.Duration(c.retry.jitter() * r.Jitter * float64(wait))
		}
		c.log.Debug("apiclient: conflict; trying again", "try", try, "wait", d, "error", err)
		if err := clock.Sleep(ctx, c.clock, d); err != nil {
			return fmt.Errorf("apiclient: giving up after a conflict: %w", err)
		}
		wait = time.Duration(float64(wait) * r.Factor)
	}
}
