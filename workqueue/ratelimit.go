package workqueue

import (
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/zerokube/zerokube/clock"
)

// RateLimiter decides how long a failed item waits before it is retried.
// Implementations must be safe for concurrent use.
type RateLimiter[K comparable] interface {
	// When records one more failure of item and returns its delay.
	When(item K) time.Duration
	// Forget clears item's failure history, typically after it succeeded.
	Forget(item K)
	// NumRequeues reports how many failures of item are recorded.
	NumRequeues(item K) int
}

// Defaults of DefaultRateLimiter, the same as client-go's.
const (
	DefaultBaseDelay = 5 * time.Millisecond
	DefaultMaxDelay  = 1000 * time.Second
	DefaultQPS       = 10
	DefaultBurst     = 100
)

// DefaultRateLimiter returns the larger of a per-item exponential backoff
// (DefaultBaseDelay doubling up to DefaultMaxDelay) and an overall token bucket
// (DefaultQPS, DefaultBurst): one hot failing item backs off on its own, and a
// mass failure cannot retry faster than the bucket allows. clock nil means the
// real clock.
func DefaultRateLimiter[K comparable](clock clock.Clock) RateLimiter[K] {
	return MaxOf(
		NewItemBackoff[K](DefaultBaseDelay, DefaultMaxDelay),
		NewBucket[K](rate.NewLimiter(DefaultQPS, DefaultBurst), clock),
	)
}

// ItemBackoff delays each item by base·2^(failures-1), capped at max. It keeps
// one map entry per item that has failed and not been forgotten: call Forget on
// success or the map grows with every key that ever failed.
type ItemBackoff[K comparable] struct {
	base, max time.Duration

	mu       sync.Mutex
	failures map[K]int // guarded by mu
}

// NewItemBackoff returns an ItemBackoff with the given first delay and cap.
func NewItemBackoff[K comparable](base, max time.Duration) *ItemBackoff[K] {
	return &ItemBackoff[K]{base: base, max: max, failures: make(map[K]int)}
}

// When records a failure and returns base·2^(failures before it), capped.
func (b *ItemBackoff[K]) When(item K) time.Duration {
	b.mu.Lock()
	n := b.failures[item]
	b.failures[item] = n + 1
	b.mu.Unlock()
	return clock.Backoff{Initial: b.base, Max: b.max}.Delay(n, 0)
}

// Forget clears item's failures.
func (b *ItemBackoff[K]) Forget(item K) {
	b.mu.Lock()
	delete(b.failures, item)
	b.mu.Unlock()
}

// NumRequeues reports item's recorded failures.
func (b *ItemBackoff[K]) NumRequeues(item K) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.failures[item]
}

// Bucket delays every retry, of any item, by what an overall token bucket
// demands. Each When takes a token, so it spaces retries out at the limiter's
// rate once its burst is spent. It keeps no per-item state.
type Bucket[K comparable] struct {
	lim   *rate.Limiter
	clock clock.Clock
}

// NewBucket wraps lim; its times are read from clock (nil: the real clock).
func NewBucket[K comparable](lim *rate.Limiter, clock clock.Clock) *Bucket[K] {
	return &Bucket[K]{lim: lim, clock: orReal(clock)}
}

// When reserves a token and returns how long until it is available.
func (b *Bucket[K]) When(K) time.Duration {
	now := b.clock.Now()
	return b.lim.ReserveN(now, 1).DelayFrom(now)
}

// Forget does nothing: the bucket has no per-item state.
func (b *Bucket[K]) Forget(K) {}

// NumRequeues is always 0: the bucket has no per-item state.
func (b *Bucket[K]) NumRequeues(K) int { return 0 }

// maxOf is the combination MaxOf returns.
type maxOf[K comparable] []RateLimiter[K]

// MaxOf combines limiters: an item waits for the longest of their delays. Every
// limiter records every failure, and Forget reaches all of them.
func MaxOf[K comparable](limiters ...RateLimiter[K]) RateLimiter[K] {
	return maxOf[K](limiters)
}

func (m maxOf[K]) When(item K) time.Duration {
	var d time.Duration
	for _, l := range m {
		d = max(d, l.When(item))
	}
	return d
}

func (m maxOf[K]) Forget(item K) {
	for _, l := range m {
		l.Forget(item)
	}
}

func (m maxOf[K]) NumRequeues(item K) int {
	var n int
	for _, l := range m {
		n = max(n, l.NumRequeues(item))
	}
	return n
}
