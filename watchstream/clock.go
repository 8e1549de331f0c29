package watchstream

import "github.com/zerokube/zerokube/internal/clock"

// Clock is the stream's source of time for its idle watchdog: the
// project's one clock (internal/clock), the same type as apiclient.Clock
// and informer.Clock. Tests pass a fake one (internal/clock/clocktest) and
// advance it instead of waiting out a timeout.
type Clock = clock.Clock
