package observe_test

import (
	"fmt"
	"time"

	"github.com/zerokube/zerokube/informer/observe"
)

// An Event prints as the demo's --trace prints it: the stage's short name,
// then only the fields the stage set.
func ExampleEvent_String() {
	for _, e := range []observe.Event{
		{Stage: observe.StageRelist, Cause: observe.CauseWatchGone, ResourceVersion: "1234"},
		{Stage: observe.StageListPage, Page: 1, Items: 500, ResourceVersion: "1240", More: true},
		{Stage: observe.StageHandlerCalled, Handler: "print", Op: observe.OpTombstone, Key: "default/web-1",
			Duration: 13 * time.Microsecond, Lag: 2 * time.Millisecond},
	} {
		fmt.Println(e)
	}
	// Output:
	// relist rv=1234 cause=watch-gone
	// list-page page=1 items=500 rv=1240 more=true
	// handler-called handler=print op=tombstone key=default/web-1 took=13µs lag=2ms
}
