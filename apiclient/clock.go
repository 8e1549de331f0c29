package apiclient

import "github.com/zerokube/zerokube/internal/clock"

// Clock is the client's source of time: the project's one clock
// (internal/clock), the same type as informer.Clock, so one value can drive
// an informer and its client. Options.Clock times the waits between retried
// reads, the rate limiter, the watch open timeout, the list stall watchdog,
// the expiry of an exec plugin's credential and, unless its own Stream
// options name another, a watch's idle watchdog. Tests pass a fake one
// (internal/clock/clocktest) instead of sleeping.
type Clock = clock.Clock
