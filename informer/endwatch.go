package informer

import (
	"sync/atomic"

	"github.com/zerokube/zerokube/watchstream"
)

// endableWatch is a watch that another goroutine may end for a planned
// relist (a moved shard, an audit's repair): the watch stops, and Next
// returns why's error, not what the stream said as it was closed under it.
type endableWatch[P any] struct {
	Watch[P]
	why   func() error
	ended atomic.Bool
}

func newEndableWatch[P any](w Watch[P], why func() error) *endableWatch[P] {
	return &endableWatch[P]{Watch: w, why: why}
}

// end stops the watch; Next returns why's error from now on.
func (w *endableWatch[P]) end() {
	w.ended.Store(true)
	w.Watch.Stop()
}

func (w *endableWatch[P]) Next() (watchstream.Event[P], error) {
	ev, err := w.Watch.Next()
	if w.ended.Load() {
		return watchstream.Event[P]{}, w.why()
	}
	return ev, err
}
