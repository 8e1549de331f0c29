package clock

import (
	"math"
	"time"
)

// Backoff is the project's one exponential backoff: Initial doubling after
// each failure, plus up to Jitter times that at random, never past Max. The
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
// wait): Initial·2^failures plus Jitter·r of that, where the doubling
// stops at Max/(1+Jitter) so that the jittered wait never passes Max. r is
// a random number in [0,1), a parameter so that tests can pin it.
//
// Max is a promise a user reads as "never longer than": client-go applies
// its jitter after the cap (a 30 s cap waits up to 60 s), which made an
// informer recover 51 s after a heal that "waits at most 30 s". Near the
// cap the waits still spread over [Max/(1+Jitter), Max), so a fleet that
// failed together stays apart.
func (b Backoff) Delay(failures int, r float64) time.Duration {
	top := float64(b.Max) / (1 + max(b.Jitter, 0))
	// Float math cannot overflow the way a shift would after 63 failures.
	d := min(float64(b.Initial)*math.Pow(2, float64(max(failures, 0))), top)
	return min(time.Duration(d+b.Jitter*r*d), b.Max)
}
