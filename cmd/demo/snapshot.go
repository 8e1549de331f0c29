package main

import (
	"fmt"
	"time"

	"github.com/zerokube/zerokube/informer"
)

// describeSnapshot says what a warm-restart stage (--snapshot) did.
func describeSnapshot(ev informer.TraceEvent) (string, bool) {
	switch ev.Stage {
	case informer.StageSnapshotLoaded:
		return fmt.Sprintf("resumed from snapshot at RV %s, watching: %d objects loaded into the cache, no LIST; "+
			"the WATCH from %s brings only what changed while the demo was stopped", ev.ResourceVersion, ev.Items, ev.ResourceVersion), true
	case informer.StageSnapshotRejected:
		return fmt.Sprintf("snapshot not used, listing instead: %s", errText(ev.Err)), true
	case informer.StageSnapshotSaved:
		return fmt.Sprintf("snapshot saved: %d objects at resourceVersion %s (took %v)", ev.Items, ev.ResourceVersion,
			ev.Duration.Round(time.Microsecond)), true
	}
	return "", false
}
