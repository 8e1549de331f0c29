package informer

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/zerokube/zerokube/clock"
)

// BackoffOptions shape the reflector's retry delays. The zero value means the
// defaults, which are client-go's but for the cap: 0.8 s doubling, up to
// +100 % jitter, never past 30 s (client-go's jitter comes after its cap,
// up to 60 s), reset after 2 minutes without a failure.
type BackoffOptions struct {
	// Initial is the first delay; default 800 ms.
	Initial time.Duration
	// Max caps the delay, jitter included; default 30 s.
	Max time.Duration
	// Jitter adds up to Jitter×delay at random, so a fleet of informers that
	// failed together does not retry together; default 1.0. Negative: none.
	Jitter float64
	// ResetAfter is how long without a failure counts as healthy and starts
	// the next failure at Initial again; default 2 minutes.
	ResetAfter time.Duration
}

// withDefaults fills in the defaults; idempotent (a negative Jitter stays
// negative: none). A negative duration panics: a backoff cannot be off,
// and taking it for the default would hide the mistake.
func (o BackoffOptions) withDefaults() BackoffOptions {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"Initial", o.Initial}, {"Max", o.Max}, {"ResetAfter", o.ResetAfter}} {
		if d.v < 0 {
			panic(fmt.Sprintf("informer: BackoffOptions.%s is negative (%v): a backoff cannot be off; 0 means the default", d.name, d.v))
		}
	}
	if o.Initial == 0 {
		o.Initial = 800 * time.Millisecond
	}
	if o.Max == 0 {
		o.Max = 30 * time.Second
	}
	if o.Jitter == 0 {
		o.Jitter = 1.0
	}
	if o.ResetAfter == 0 {
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
	return clock.Backoff{Initial: b.opts.Initial, Max: b.opts.Max, Jitter: max(b.opts.Jitter, 0)}.Delay(exponent, b.rand())
}
