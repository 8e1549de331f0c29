package informer

import (
	"math/rand/v2"
	"time"

	"github.com/zerokube/zerokube/clock"
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

// backoff turns the record's count of failures into a wait, with
// clock.Backoff, the project's one backoff. It keeps no count of its own:
// the record counts the failures since the last ResetAfter without one
// (record.backoffExponent), the same record Health and SyncError read.
// Randomness is a parameter so that tests can check exact delays.
type backoff struct {
	opts BackoffOptions
	rand func() float64 // in [0,1)
}

func newBackoff(opts BackoffOptions, rnd func() float64) backoff {
	if rnd == nil {
		rnd = rand.Float64
	}
	return backoff{opts: opts.withDefaults(), rand: rnd}
}

// delay is the wait after a failure that is the exponent+1-th since the
// last quiet period: Initial doubled exponent times, capped at Max, plus
// jitter.
func (b backoff) delay(exponent int) time.Duration {
	return clock.Backoff{Initial: b.opts.Initial, Max: b.opts.Max, Jitter: b.opts.Jitter}.Delay(exponent, b.rand())
}
