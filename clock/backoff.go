package clock

import (
	"math"
	"time"
)

// Backoff is the project's one exponential backoff: Initial doubling after
// each failure up to Max, plus up to Jitter times that at random. The
// reflector (0.8 s to 30 s, Jitter 1, as client-go's), the client's opt-in
// read retries and the work queue's per-item delays all compute their
// waits with it; each keeps its own count of failures.
type Backoff struct {
	Initial, Max time.Duration
	// Jitter adds up to Jitter×delay, so that clients that failed together
	// do not retry together; 0: none.
	Jitter float64
}

// Delay is the wait after failures earlier failures (0 for the first
// wait): Initial·2^failures capped at Max, plus Jitter·r of that. r is a
// random number in [0,1), a parameter so that tests can pin it.
func (b Backoff) Delay(failures int, r float64) time.Duration {
	// Float math cannot overflow the way a shift would after 63 failures.
	d := time.Duration(min(float64(b.Initial)*math.Pow(2, float64(max(failures, 0))), float64(b.Max)))
	return d + time.Duration(b.Jitter*r*float64(d))
}
