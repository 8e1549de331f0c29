package observe

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/zerokube/zerokube/meta"
)

// Stage names a step of an object's way from the server to a handler. A
// [Event] reports one; the demo's --trace mode prints them to teach the
// data path.
type Stage uint8

// The stages, in data-path order.
const (
	StageListPage      Stage = iota + 1 // a LIST page arrived: Page, Items, ResourceVersion, More
	StageReplace                        // a full list goes into the queue: Items, ResourceVersion
	StageWatchOpened                    // a WATCH was opened from ResourceVersion (Streaming for a streaming list); Request, its shape, while tracing
	StageEvent                          // a watch event arrived: EventType, Key, ResourceVersion
	StageBookmark                       // a BOOKMARK moved the resourceVersion: ResourceVersion; Op OpInitialEventsEnd when it ends a streaming list
	StageWatchEnded                     // a WATCH ended: Items events, Stopping (Run is stopping: nobody closed it but us), Err (nil = clean close by the server; the context's cause when Stopping)
	StageDeltaQueued                    // the reflector queues a delta: Op, Key
	StageStoreUpdated                   // the dispatcher applied a delta to the cache: Op, Key, ResourceVersion
	StageHandlerCalled                  // a handler returned: Handler, Op, Key, Duration, Lag (queued to called); Err when it panicked
	StageRelist                         // a relist starts: Cause; Err, for a streaming-fallback, the streaming list's failure; Request, the LIST's (or streaming list's) shape, while tracing
	StageBackoff                        // the reflector waits Duration after Err
	StageSynced                         // the initial list is in the cache: Items at ResourceVersion; Op OpSnapshot when a snapshot, not a list, filled it
	StageSkipped                        // an object was dropped: Key, Err (wrong kind)
	StageResync                         // a resync is due for the handlers named in Handler; Items objects cached
	StageCacheReplaced                  // a relist's result replaced the cache in one step: Items
)

// The stages of warm restarts (Options.Snapshot).
const (
	StageSnapshotLoaded   = StageCacheReplaced + 1 + iota // the cache was loaded from a snapshot: Items at ResourceVersion; the watch resumes from it
	StageSnapshotRejected                                 // a saved snapshot was rejected (Err says why): the informer lists instead
	StageSnapshotSaved                                    // a snapshot was written: Items at ResourceVersion, Bytes, in Duration; Err when writing failed
)

// The stages of what goes wrong beside the data path, and of what it
// skips: each was a log line or a counter of its own before it was a
// stage, and is now one event that the trace, the metrics and the log all
// hear (the informer's observers.go).
const (
	StageListFailed      = StageSnapshotSaved + 1 + iota // a LIST page failed: Page (the one asked for), ResourceVersion (the list's), Err
	StageWatchFailed                                     // a WATCH (or a streaming list) could not be opened: ResourceVersion, Streaming, Err
	StageCoalesced                                       // a handler's queue was full: the notification for Key merged into the one pending (Handler, Key)
	StageTransformFailed                                 // Options.Decode.Transform failed: Key is kept as received, Err says why
	StageSnapshotMissing                                 // Options.Snapshot found nothing saved: the informer lists
	StageSnapshotSkipped                                 // no snapshot was written at stop: Err says why
)

// The stages of the cache audit (the informer's Options.Audit): the cache
// compared with the server's exact list at the resourceVersion it is in
// step with.
const (
	// StageAudited: an audit compared the cache at ResourceVersion with
	// the server's list at exactly that resourceVersion: Items objects
	// listed, in Duration. Err is nil when they agree, else the
	// difference (an informer.AuditDifference, counting the objects
	// missing, extra and stale).
	StageAudited = StageSnapshotSkipped + 1 + iota
	// StageAuditDifference: one object an audit found different: Key, Op
	// (OpMissing, OpExtra or OpStale), ResourceVersion (the server's; the
	// cache's for OpExtra).
	StageAuditDifference
	// StageAuditFailed: an audit could not compare: ResourceVersion, Err.
	// A 410 means the resourceVersion is older than the server serves an
	// exact list at; the audit waits for the next period, at a newer one,
	// and never relists for it.
	StageAuditFailed
)

var stageNames = [...]string{
	StageListPage: "list-page", StageReplace: "replace", StageWatchOpened: "watch-opened",
	StageEvent: "event", StageBookmark: "bookmark", StageWatchEnded: "watch-ended",
	StageDeltaQueued: "delta-queued", StageStoreUpdated: "store-updated",
	StageHandlerCalled: "handler-called", StageRelist: "relist", StageBackoff: "backoff",
	StageSynced: "synced", StageSkipped: "skipped", StageResync: "resync",
	StageCacheReplaced:  "cache-replaced",
	StageSnapshotLoaded: "snapshot-loaded", StageSnapshotRejected: "snapshot-rejected", StageSnapshotSaved: "snapshot-saved",
	StageListFailed: "list-failed", StageWatchFailed: "watch-failed", StageCoalesced: "coalesced",
	StageTransformFailed: "transform-failed", StageSnapshotMissing: "snapshot-missing", StageSnapshotSkipped: "snapshot-skipped",
	StageAudited: "audited", StageAuditDifference: "audit-difference", StageAuditFailed: "audit-failed",
}

// String returns the stage's short name, e.g. "list-page".
func (s Stage) String() string {
	if int(s) < len(stageNames) && stageNames[s] != "" {
		return stageNames[s]
	}
	return "stage(?)"
}

// Event is one step of the data path. Only the fields named in the
// Stage's doc are set. Producer stages (replace, delta-queued) are reported
// just before the hand-over, so one object's events arrive in data-path
// order even though the stages run on different goroutines.
type Event struct {
	Stage           Stage
	Page            int
	Items           int
	ResourceVersion string
	Streaming       bool
	// Metadata: relist and watch-opened ask for the objects' metadata only
	// (PartialObjectMetadata, Transport.FullObjects).
	Metadata bool
	// Request: relist and watch-opened, the shape of the request and why
	// it was chosen; set only while a trace (Options.Observe.Trace) listens.
	Request *Request
	More    bool // list-page: the page carried a continue token, more pages follow
	// Stopping: watch-ended because Run's context ended (shutdown), not
	// because the server or the connection ended the watch; no re-watch
	// follows. Err is then the context's cause, whatever the stream said.
	Stopping  bool
	EventType meta.EventType
	Key       string
	Op        Op // what happened to Key (see Op's constants), or the bookmark's kind
	Handler   string
	Cause     RelistCause
	Duration  time.Duration
	// Lag: handler-called's wait between the notification's dispatch and
	// the call.
	Lag time.Duration
	// Bytes: snapshot-saved's size.
	Bytes int64
	Err   error
}

// Op says what a stage did with one object. Which stages set which Op is
// said at each constant; a stage the list does not name leaves Op zero.
// Its String is the short name --trace prints after "op=", stable like the
// stage names, so scripts reading the trace can match it.
type Op uint8

// The operations.
const (
	// OpAdd, OpUpdate, OpDelete: a watch event's delta (delta-queued), its
	// cache write (store-updated) and the handler call it became
	// (handler-called).
	OpAdd Op = iota + 1
	OpUpdate
	OpDelete
	// OpReplace: store-updated of a relisted object stored anew; handlers
	// hear an add or an update.
	OpReplace
	// OpUnchanged: store-updated of a relisted object at the resourceVersion
	// cached: only handlers due a resync hear of it.
	OpUnchanged
	// OpTombstone: store-updated of a cached object the relist lacks: it was
	// deleted while nobody watched, and handlers hear a delete whose
	// finalStateUnknown is true (handler-called of that delete says
	// OpTombstone too).
	OpTombstone
	// OpSync: a resync's store-updated, and handler-called of the update it
	// became (old == new).
	OpSync
	// OpSnapshot: store-updated of an object of a snapshot loaded at start;
	// synced when the snapshot, not a list, made the first sync.
	OpSnapshot
	// OpInitialEventsEnd: the bookmark that ends a streaming list.
	OpInitialEventsEnd
	// OpMissing, OpExtra, OpStale: audit-difference of an object the
	// server has and the cache lacks, of one the cache has and the server
	// does not, and of one both have at different resourceVersions (or
	// uids: deleted and created again).
	OpMissing
	OpExtra
	OpStale
)

var opNames = [...]string{
	OpAdd: "add", OpUpdate: "update", OpDelete: "delete", OpReplace: "replace",
	OpUnchanged: "unchanged", OpTombstone: "tombstone", OpSync: "sync",
	OpSnapshot: "snapshot", OpInitialEventsEnd: "initial-events-end",
	OpMissing: "missing", OpExtra: "extra", OpStale: "stale",
}

// String returns the operation's short name, e.g. "tombstone"; "" for the
// zero Op.
func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return "op(?)"
}

// MarshalText writes the short name, so that an Op in JSON (a map key
// included) reads as --trace prints it.
func (o Op) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// UnmarshalText reads a short name back, so that JSON made by MarshalText
// round-trips.
func (o *Op) UnmarshalText(b []byte) error {
	for i, name := range opNames {
		if name != "" && name == string(b) {
			*o = Op(i)
			return nil
		}
	}
	if len(b) == 0 {
		*o = 0
		return nil
	}
	return fmt.Errorf("observe: unknown trace op %q", b)
}

// String renders the event on one line with only its set fields, e.g.
// "list-page page=1 items=500 rv=1234", for --trace style output.
func (e Event) String() string {
	var b strings.Builder
	b.WriteString(e.Stage.String())
	add := func(k, v string) {
		if v != "" {
			b.WriteString(" " + k + "=" + v)
		}
	}
	if e.Page > 0 {
		add("page", strconv.Itoa(e.Page))
	}
	if e.Items > 0 || e.Stage == StageListPage || e.Stage == StageReplace {
		add("items", strconv.Itoa(e.Items))
	}
	add("handler", e.Handler)
	add("op", e.Op.String())
	add("type", string(e.EventType))
	add("key", e.Key)
	add("rv", e.ResourceVersion)
	if e.More {
		add("more", "true")
	}
	if e.Streaming {
		add("streaming", "true")
	}
	if e.Metadata {
		add("metadata", "true")
	}
	if e.Stopping {
		add("stopping", "true")
	}
	if e.Cause != 0 {
		add("cause", e.Cause.String())
	}
	if e.Duration > 0 {
		add("took", e.Duration.String())
	}
	if e.Lag > 0 {
		add("lag", e.Lag.String())
	}
	if e.Bytes > 0 {
		add("bytes", strconv.FormatInt(e.Bytes, 10))
	}
	if e.Err != nil {
		add("err", e.Err.Error())
	}
	// Last: the longest, and quoted, so the fields before keep their
	// places for scripts that read them.
	if e.Request != nil {
		add("request", strconv.Quote(e.Request.String()))
		if len(e.Request.Why) > 0 {
			add("why", strconv.Quote(strings.Join(e.Request.Why, "; ")))
		}
	}
	return b.String()
}
