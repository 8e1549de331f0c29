package informer

import "github.com/zerokube/zerokube/internal/clock"

// Clock is the informer's source of time. Backoff, resync, watch timeouts,
// the idle watchdog and snapshots all read it, so tests drive them with a
// fake clock instead of sleeping. The zero Options use the real clock. It
// is the one clock of the project (internal/clock), shared with the work
// queue, apiclient and watchstream, so one value can drive them all; the
// project's tests use its one fake, internal/clock/clocktest.
type Clock = clock.Clock

// Timer is the part of *time.Timer the informer uses; C is nil for timers
// made by AfterFunc.
type Timer = clock.Timer
