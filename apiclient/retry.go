package apiclient

import (
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"syscall"
	"time"

	"github.com/zerokube/zerokube/clock"
	"github.com/zerokube/zerokube/meta"
)

// RetryOptions configures how reads (LIST, GET) are retried. Writes are never
// retried: a write whose reply was lost may have happened.
//
// Retries are opt-in: the zero value tries each read once. A caller with
// recovery rules of its own must see every failure, or it cannot count,
// report or back off from them; the informer's reflector is such a caller,
// and its lists ask for one try whatever is set here (ListOptions.NoRetry).
// A program that calls the client directly and wants reads retried sets
// MaxAttempts (5 is a good value).
type RetryOptions struct {
	// MaxAttempts bounds the tries of one read, the first included.
	// 0 or 1: one try, no retries.
	MaxAttempts int
	// Initial is the first backoff, doubled after each failure up to Max.
	// 0 means 250ms and 10s.
	Initial, Max time.Duration
	// Jitter returns a random float in [0,1); nil means math/rand/v2. Each
	// wait is drawn uniformly from [d/2, d) so that clients that failed
	// together do not retry together.
	Jitter func() float64
}

// maxRetryAfter caps a server's Retry-After hint, so a confused proxy cannot
// park a client for hours.
const maxRetryAfter = time.Minute

type retryPolicy struct {
	attempts     int
	initial, max time.Duration
	jitter       func() float64
}

func (o RetryOptions) policy() retryPolicy {
	p := retryPolicy{attempts: o.MaxAttempts, initial: o.Initial, max: o.Max, jitter: o.Jitter}
	if p.attempts <= 0 {
		p.attempts = 1
	}
	if p.initial <= 0 {
		p.initial = 250 * time.Millisecond
	}
	if p.max <= 0 {
		p.max = 10 * time.Second
	}
	if p.jitter == nil {
		p.jitter = rand.Float64
	}
	return p
}

// wait returns how long to wait before try number attempt+1 (attempt counts
// from 0) after err: the server's Retry-After when it sent one, otherwise
// the capped exponential backoff with jitter.
func (p retryPolicy) wait(attempt int, err error) time.Duration {
	if d, ok := meta.RetryAfter(err); ok {
		return min(d, maxRetryAfter)
	}
	// Drawn from [d/2, d) for d = initial·2^attempt capped at max: the
	// project's one backoff from half of each, with all of it as jitter.
	return clock.Backoff{Initial: p.initial / 2, Max: p.max / 2, Jitter: 1}.Delay(attempt, p.jitter())
}

// retryable reports whether a read that failed with err may be tried again:
// throttling, server-side failures and dropped connections. A 504 for a
// too-large resourceVersion is left to the caller, which must change the
// request (the informer retries with resourceVersion "").
func retryable(err error) bool {
	if code := meta.Code(err); code != 0 {
		switch {
		case code == 429:
			return true
		case code == 501 || meta.IsTooLargeResourceVersion(err):
			return false
		}
		return code >= 500
	}
	var ne net.Error
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, io.EOF) || (errors.As(err, &ne) && ne.Timeout())
}
