package informer

import (
	"time"

	"github.com/zerokube/zerokube/informer/observe"
)

// state is one state of the reflector. The set is closed: the types below.
// Each carries only the data valid in it.
type state interface{ stateName() string }

// listing fetches one LIST page. req is the first page's request; cont is
// the continue token of the next page ("" for the first); items holds the
// pages fetched so far. After the last page: Replace, then watchOpening.
type listing[P any] struct {
	req   ListRequest
	cause observe.RelistCause
	cont  string
	page  int
	items []P
	seen  map[string]struct{} // continue tokens of this list: a repeat is a loop
	// skipped are the objects that did not fit the type (SkipUndecodable).
	skipped []UndecodableObject
	// why: the failure of the streaming list this LIST replaces
	// (observe.CauseStreamingFallback), for the relist's trace event.
	why error
}

// streamListing opens a streaming list (sendInitialEvents) from rv ("" for a
// consistent read). Then streamInitial.
type streamListing struct {
	rv    string
	cause observe.RelistCause
}

// streamInitial reads a streaming list's initial events until the bookmark
// that ends them. Then Replace, and watching on the same stream.
type streamInitial[P any] struct {
	w      Watch[P]
	opened time.Time
	cause  observe.RelistCause
}

// watchOpening opens a WATCH from rv. Then watching.
type watchOpening struct{ rv string }

// watching reads events from an open watch until it ends. A clean end leads
// to watchOpening at the last rv (no relist); 410 leads to listing.
type watching[P any] struct {
	w      Watch[P]
	rv     string
	opened time.Time
	events int
	// resumed: the first watch from a snapshot's rv; a 410 before any
	// event means the snapshot is older than the server's history.
	resumed bool
	// holdRV: the watch started at "" or "0", so its first events are the
	// synthetic ADDED of the current state in no particular order; the rv
	// stays put until they are over.
	holdRV bool
}

// resuming opens the first WATCH from the rv of a snapshot the queue was
// filled from. Then watching; 410 leads to listing (snapshot-expired).
// pre, when set, is that WATCH already sent (preopened), taken instead of
// sending it again; a retry's resuming has none.
type resuming[P any] struct {
	rv  string
	pre *preopened[P]
}

// backingOff reports err, waits, then goes to next.
type backingOff struct {
	err  error
	next state
}

// stopped ends Run, with err when fail-fast stopped it.
type stopped struct{ err error }

func (listing[P]) stateName() string       { return "listing" }
func (streamListing) stateName() string    { return "stream-listing" }
func (streamInitial[P]) stateName() string { return "stream-initial" }
func (watchOpening) stateName() string     { return "watch-opening" }
func (resuming[P]) stateName() string      { return "resuming" }
func (watching[P]) stateName() string      { return "watching" }
func (backingOff) stateName() string       { return "backing-off" }
func (stopped) stateName() string          { return "stopped" }
