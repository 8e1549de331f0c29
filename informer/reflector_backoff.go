package informer

import (
	"math/rand/v2"
	"time"

	"github.com/zerokube/zerokube/internal/clock"
)

// BackoffOptions shape the reflector's retry delays. The zero value means the
// defaults, which are client-go's: 0.8 s doubling to 30 s, up to +100 %
// jitter, reset after 2 minutes without a failure.
type BackoffOptions struct {
	// Initial is the first delay; default 800 ms.
	Initial time.Duration
	// Max caps the delay before jitter; default 30 s.
	Max time.Duration
	// Jitter adds up to Jitter×delay at random, so a fleet of informers that
	// failed together does not retry together; default 1.0. Negative: none.
	Jitter float64
	// ResetAfter is how long without a failure counts as healthy and starts
	// the next failure at Initial again; default 2 minutes.
	ResetAfter time.Duration
}

func (o BackoffOptions) withDefaults() BackoffOptions {
	if o.Initial <= 0 {
		o.Initial = 800 * time.Millisecond
	}
	if o.Max <= 0 {
		o.Max = 30 * time.Second
	}
	if o.Jitter == 0 {
		o.Jitter = 1.0
	}
	if o.Jitter < 0 {
		o.Jitter = 0
	}
	if o.ResetAfter <= 0 {
		o.ResetAfter = 2 * time.Minute
	}
	return o
}

// backoff counts the reflector's failures and asks clock.Backoff, the
// project's one backoff, for each wait. Time and randomness are parameters
// so that tests can check exact delays. Not safe for concurrent use: only
// the reflector's goroutine calls it.
type backoff struct {
	opts BackoffOptions
	rand func() float64 // in [0,1)

	failures    int // since the last reset
	lastFailure time.Time
}

func newBackoff(opts BackoffOptions, rnd func() float64) *backoff {
	if rnd == nil {
		rnd = rand.Float64
	}
	return &backoff{opts: opts.withDefaults(), rand: rnd}
}

// next records a failure at now and returns how long to wait before the next
// attempt. A failure more than ResetAfter after the previous one starts over
// at Initial: the connection was healthy in between.
func (b *backoff) next(now time.Time) time.Duration {
	if !b.lastFailure.IsZero() && now.Sub(b.lastFailure) >= b.opts.ResetAfter {
		b.failures = 0
	}
	b.lastFailure = now
	d := clock.Backoff{Initial: b.opts.Initial, Max: b.opts.Max, Jitter: b.opts.Jitter}.Delay(b.failures, b.rand())
	b.failures++
	return d
}
