package informer

import (
	"time"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/meta"
)

// ListRequest is one LIST page the reflector asks its ListerWatcher for:
// what the reflector decides (where to read, how many, which page). What
// belongs to the resource (its selectors, the wire, how bodies decode) is
// the ListerWatcher's, set when New built it; the reflector's own
// bookkeeping comes back in the ListPage, so a ListerWatcher in between
// (Options.WrapListerWatcher) cannot drop it by building a request of its
// own.
type ListRequest struct {
	// ResourceVersion and ResourceVersionMatch choose how fresh the list
	// must be: "" a consistent read, "0" any, an rv with NotOlderThan at
	// least that one.
	ResourceVersion, ResourceVersionMatch string
	// Limit is the page size (0: one page); Continue the token of the
	// next page ("" for the first).
	Limit    int64
	Continue string
	// ShardSelector is the shard's selector (Options.Shard), set by the
	// shard stage: the server filters by it where it can.
	ShardSelector string
}

// ListPage is what one page brought besides its objects.
type ListPage struct {
	meta.ListMeta
	// Skipped are the objects the page's reader stepped over because they
	// do not fit the informer's type (Options.Decode.SkipUndecodable), in order.
	Skipped []UndecodableObject
}

// WatchMode says how a watch starts. A closed set: the three ways the
// reflector opens a watch.
type WatchMode uint8

const (
	// WatchFrom sends the events after ResourceVersion ("" or "0": the
	// current state first, as ADDED events in no order).
	WatchFrom WatchMode = iota
	// StreamingList sends the current state at ResourceVersion or later
	// as ADDED events, then a bookmark marked initial-events-end, then the
	// watch (sendInitialEvents=true): a list over the watch protocol.
	StreamingList
	// ResumeFrom is WatchFrom that says it wants no initial state
	// (sendInitialEvents=false), as a streaming-list client resuming from
	// a snapshot's resourceVersion does.
	ResumeFrom
)

// WatchRequest is one WATCH the reflector asks its ListerWatcher for.
// Bookmarks are always asked for.
type WatchRequest struct {
	Mode            WatchMode
	ResourceVersion string
	// TimeoutSeconds asks the server to end the watch after that long
	// (the reflector picks it at random, so a fleet does not reconnect in
	// step); OpenTimeout bounds the wait for the server's answer.
	TimeoutSeconds int64
	OpenTimeout    time.Duration
	// ShardSelector: as ListRequest's.
	ShardSelector string
}

// listOptions is req on the wire, without what the resource adds: the
// one place a reflector's LIST becomes query parameters.
func (req ListRequest) listOptions() apiclient.ListOptions {
	return apiclient.ListOptions{ResourceVersion: req.ResourceVersion, ResourceVersionMatch: req.ResourceVersionMatch,
		Limit: req.Limit, Continue: req.Continue, ShardSelector: req.ShardSelector}
}

// watchOptions is req on the wire, without what the resource adds: the
// one place a reflector's WATCH becomes query parameters.
func (req WatchRequest) watchOptions() apiclient.WatchOptions {
	o := apiclient.WatchOptions{ResourceVersion: req.ResourceVersion, AllowWatchBookmarks: true,
		TimeoutSeconds: req.TimeoutSeconds, OpenTimeout: req.OpenTimeout, ShardSelector: req.ShardSelector}
	switch req.Mode {
	case StreamingList:
		o.SendInitialEvents, o.ResourceVersionMatch = true, meta.MatchNotOlderThan
	case ResumeFrom:
		o.NoInitialEvents = true
	}
	return o
}
