package informer

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/cache"
	"github.com/zerokube/zerokube/clock"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
)

// Transport says how the informer lists and watches: the wire, not what
// is selected. It changes no object the informer sees.
type Transport struct {
	// Websocket, when set, watches over a websocket instead of chunked
	// HTTP: websocket.Dialer{} of package apiclient/websocket.
	Websocket apiclient.WebsocketDialer
	// MaxObjectSize caps the bytes of one object read from the server: a
	// LIST item or a watch event (watchstream.Options.MaxEventSize). A
	// larger one fails the page or ends the watch (Problem TooLarge). 0:
	// watchstream.DefaultMaxEventSize (16 MiB; etcd refuses objects over
	// 1.5 MiB).
	MaxObjectSize int
	// JSON asks for JSON only. By default a resource of a built-in API
	// group/version (one in kubeproto's table) is listed and watched in
	// protobuf, with JSON as the server's fallback, and decoded straight
	// into the informer's type; other resources (custom resources) in
	// JSON. See wire.go.
	JSON bool
	// FullObjects asks for whole objects even when the informer's type
	// declares nothing beyond object metadata. By default such a type
	// (meta.SlimMeta or meta.ObjectMeta under "metadata", with or without
	// kind and apiVersion) is fed from meta.k8s.io/v1 PartialObjectMetadata
	// lists and watches, as client-go's metadata informer is, which costs
	// the server and the wire far less; the trace's relist and
	// watch-opened lines say metadata=true.
	FullObjects bool
}

// asksMetadata is the one rule for whether an informer of T asks for
// PartialObjectMetadata: T reads nothing beyond metadata, and the options
// do not ask for whole objects.
func asksMetadata[T any, P meta.Object](o Options[P]) bool {
	return !o.Transport.FullObjects && metadataOnly[T]()
}

// Options configure an Informer. The zero value means every default.
//
// They are grouped by the stage that reads them: what the informer keeps
// (the top level), how it syncs (Sync), how it watches (Watch), what it
// makes of each object (Decode), how deltas reach the cache and handlers
// (Process), when it calls itself unhealthy (Health), whom it tells
// (Observe), how it retries (Backoff), the wire (Transport), and the warm
// restart and audit (Snapshot, Audit).
//
// One rule for every duration (and PageSize, UnhealthyAfterFailures): 0
// means the default, a negative value means off, as each field says what
// off is. Backoff is the exception: a backoff cannot be off, and a
// negative BackoffOptions duration makes New panic. Defaults are applied
// once, by New (withDefaults), and each setting is read by the one stage
// it configures: the decode settings and the reply watchdogs by the
// resource's ListerWatcher, the recovery settings by the reflector, the
// health bounds by Health.
type Options[P meta.Object] struct {
	// Name appears in logs, traces and errors; default "informer".
	Name string
	// LabelSelector and FieldSelector narrow what the informer lists and
	// watches: the server filters by them, and a Factory shares an informer
	// only among callers with the same ones.
	LabelSelector, FieldSelector string
	// Shard, when set, keeps only one shard of the resource: filtered by
	// the server when it supports shard selectors, by the informer
	// otherwise, with the same result (see Shard). Nil: everything.
	Shard *Shard
	// Indexers are added to the cache; the namespace index is always there.
	// More can be added later, before or after Run, with Informer.AddIndexers.
	Indexers cache.Indexers[P]
	// Sync: how the informer lists (pages, streaming, the first list's
	// consistency, the reply watchdog) and when it gives up at the start.
	Sync SyncOptions
	// Watch: how long each WATCH runs and when a silent one is reopened.
	Watch WatchOptions
	// Decode: what the informer makes of each object it reads.
	Decode DecodeOptions[P]
	// Process: how deltas reach the cache and the handlers.
	Process ProcessOptions
	// Health: when Health calls the informer unhealthy.
	Health HealthOptions
	// Observe: logs, metrics, the trace and the error callback.
	Observe ObserveOptions
	// Backoff shapes retry delays; zero value: client-go's.
	Backoff BackoffOptions
	// Snapshot turns on warm restarts: a snapshot of the cache saved on a
	// period and at a clean stop, loaded at the next start instead of a
	// relist. Zero: off.
	Snapshot SnapshotOptions
	// Audit turns on the cache audit: once a period, the cache compared
	// with the server's list at the resourceVersion it is in step with
	// (see AuditOptions). Zero: off.
	Audit AuditOptions
	// Transport says how the informer lists and watches: the wire.
	Transport Transport
	// WrapListerWatcher, if non-nil, is given the ListerWatcher New builds
	// and returns the one the informer uses: to count or trace requests, or
	// to replace it in a test.
	WrapListerWatcher func(ListerWatcher[P]) ListerWatcher[P]
	// Clock and Rand are for tests; defaults: real time, math/rand/v2.
	Clock clock.Clock
	Rand  func() float64
}

// SyncOptions configure how an informer lists: the first sync and every
// relist.
type SyncOptions struct {
	// PageSize is the LIST page size for lists at "" and "0"; default 500.
	// Negative: off, unpaginated.
	PageSize int64
	// ConsistentFirstList makes the first list a consistent read (at
	// resourceVersion "") instead of one at "0". A server answers a list at
	// "0" from its watch cache, whole, whatever the page size; a consistent
	// list is served in pages of PageSize. It costs the server more (a
	// quorum read, or a wait for its cache to catch up; measured, 1.1-2.5
	// times the CPU of a LIST at "0") and is off by default, as in
	// client-go. Use it where the first list must not be older than your
	// own last write, or to keep a cluster-wide metadata-only first list
	// from being built whole in the server's memory; the demo's
	// --consistent-list uses it to show pagination.
	ConsistentFirstList bool
	// StreamingList syncs with a streaming list (sendInitialEvents) instead
	// of LIST, falling back to LIST for good when the server rejects it
	// (400, 422, 405), and for one list when a stream ends, or sends no
	// initial-events-end bookmark within InitialEventsTimeout. Off by
	// default, unlike client-go: it costs kube-apiserver v1.37.2 about the
	// same as a LIST cluster-wide, but 6-13 times as much for one node's
	// pods (by field selector), and zerokube decodes a LIST object by
	// object anyway (docs/agents.md, "The cheapest request"). It is for
	// servers before v1.33, which build a whole LIST reply in memory.
	StreamingList bool
	// InitialEventsTimeout bounds a streaming list's initial events, as an
	// idle timeout (each event restarts it): a stream silent for that long
	// has stalled (observe.FailureStalled), and a LIST replaces it; default
	// 1 min. Negative: off, Watch.IdleTimeout bounds them too.
	InitialEventsTimeout time.Duration
	// StallTimeout abandons a LIST page that delivers no object for this
	// long between two objects (or before its end): a server or proxy
	// that stops mid-page, or trickles bytes that make no object. With
	// the default, the first object may take what kube-apiserver allows a
	// LIST, 60 s (watchstream.ServerListTimeout), and 5 s more: a server
	// may build a page before it sends a byte. A StallTimeout you set
	// bounds the first object too. It is reported
	// as observe.FailureStalled and retried after a backoff. Default 30 s
	// (a healthy server sends a page's objects back to back); negative:
	// off. Objects a filter drops (another shard's, the wrong kind) and
	// objects stepped over (SkipUndecodable) count: the server sent them.
	// A streaming list's InitialEventsTimeout and a watch's
	// Watch.IdleTimeout are the same bound for those; the three are one
	// watchdog of the reply's reader (watchstream), and whichever fires
	// the failure is the same: observe.FailureStalled.
	StallTimeout time.Duration
	// FailFast stops Run, and makes WaitForSync return, at the first
	// failure that retrying alone cannot fix (401, 403, 404, 400 Bad
	// Request, http:// to an HTTPS server or the reverse, a TLS handshake
	// refused) before the server first
	// answered a list (or the watch that resumes a snapshot: a snapshot's
	// cache does not count, so a 403 after a restart stops too), instead
	// of retrying forever while reporting it.
	FailFast bool
}

// WatchOptions configure an informer's WATCHes.
type WatchOptions struct {
	// MinTimeout: each WATCH asks for a random timeoutSeconds in
	// [MinTimeout, 2·MinTimeout); default 5 minutes. Negative:
	// off, the server chooses (kube-apiserver: 30 to 60 minutes).
	MinTimeout time.Duration
	// IdleTimeout ends a watch that delivered nothing (not even a
	// bookmark) for this long and reopens it from the last resourceVersion;
	// default 3 minutes (servers bookmark about once a minute). Once the
	// server has shown a bookmark cadence (a watch's bookmark; the one
	// that ends a streaming list does not count, kube-apiserver sends it
	// even where it sends no other), such a watch has stalled: a failure
	// (observe.FailureStalled), reopened after a backoff; before, it is a
	// quiet resource, reopened at once. It is the watch's bound of the
	// reply's one watchdog (see SyncOptions.StallTimeout). Negative: off.
	IdleTimeout time.Duration
}

// DecodeOptions configure what an informer makes of each object it reads:
// which it keeps, what it drops from them, what they share.
type DecodeOptions[P meta.Object] struct {
	// Transform runs on every object before it is queued and stored, e.g. to
	// drop managedFields. It may modify and return its argument. On error the
	// object is kept as received and the error logged.
	Transform func(P) (P, error)
	// KeepManagedFields keeps metadata.managedFields on cached objects. By
	// default the reflector drops them before Transform runs: they are often
	// the largest part of an object's metadata (kilobytes per pod) and only
	// field-ownership tooling reads them, which is why client-go users add
	// a transform to strip them. New goes further and skips them
	// while decoding (meta.SkipManagedFields), so they are never even copied.
	// Raw objects keep them in their bytes either way; types without a
	// whole ObjectMeta (meta.SlimMeta) never keep them.
	KeepManagedFields bool
	// Sharer decodes the label and annotation maps (every map[string]string
	// of the type) of the objects the informer lists and watches, so that
	// objects share what they have in common (see meta.Sharer): the pods of
	// a ReplicaSet then hold one labels map, and often one annotations map,
	// where each held a copy of about 340 bytes before its strings. Nil: a
	// Sharer of the informer's own sharing equal maps (meta.ShareMaps), or
	// none when Transform is set (a transform may modify its argument, and
	// a shared map would change under other objects). meta.NewSharer(0)
	// shares nothing: every object has maps of its own, as client-go's
	// have. Shared maps must not be modified, as no cached object may be.
	// Informers may share one Sharer.
	Sharer *meta.Sharer
	// ExpectedKind and ExpectedAPIVersion, when set, make the reflector drop
	// (and report) objects that carry another kind or apiVersion.
	ExpectedKind, ExpectedAPIVersion string
	// SkipUndecodable skips objects that do not fit the type, in JSON or
	// protobuf (a field declared int32 where the server sends a string, a
	// field of a type whose UnmarshalJSON refuses the value) instead of
	// failing the LIST, and so the sync, until they are fixed or deleted.
	// Each one is logged, counted (observe.Metrics.Skipped "undecodable"), shown
	// in Health, and listed by Informer.Undecodable. Off by default: the
	// cache is then never silently incomplete, and WaitForSync reports
	// such an object as observe.FailureUndecodable, naming it.
	SkipUndecodable bool
}

// ProcessOptions configure the path from the reflector to the cache and
// the handlers.
type ProcessOptions struct {
	// DeltaFIFO groups the deltas of each key in the queue between the
	// reflector and the processing loop (fifo.DeltaFIFO, client-go's
	// classic queue) instead of keeping every delta in arrival order
	// (fifo.InOrder, the default; doc.go says why).
	DeltaFIFO bool
	// InlineProcessing processes deltas (cache writes, handler queues) on
	// the goroutine that wrote them (the reflector, the resync timer's)
	// instead of on a processing loop of their own, client-go's shape and
	// the default: a goroutine wake-up less per watch event, but no
	// overlap between reading the next events and applying the last ones,
	// and the reflector waits while a relist is applied. Off by default:
	// measured, it saves nothing beyond the noise at a few hundred events
	// a second and costs throughput at saturation (doc.go, "Processing").
	InlineProcessing bool
	// ResyncPeriod is the default handler resync period: every period each
	// handler gets OnUpdate(obj, obj) for every cached object. 0 or
	// negative: none (client-go's default too).
	ResyncPeriod time.Duration
}

// HealthOptions configure when Informer.Health calls an informer unhealthy.
type HealthOptions struct {
	// StaleAfter: a synced informer whose cache has not been in step with
	// the server for longer (nothing heard from it: no list, watch opened,
	// event or bookmark; or what it said not applied, a blocked handler)
	// is stale, and unhealthy, in its Health; default 3 minutes, three of
	// kube-apiserver's roughly once-a-minute bookmarks. A server that
	// sends no bookmarks makes a quiet resource look stale: raise it
	// there. Negative: never stale.
	StaleAfter time.Duration
	// UnhealthyAfterFailures: an informer whose LISTs and WATCHes have
	// failed this many times in a row (a list that works between two
	// failures does not end the count, a watch that works does) is
	// unhealthy at once, whatever StaleAfter says: with the default
	// backoff, a server that refuses connections is known within about
	// 3-5 seconds. Default 3; negative: failures alone never make it
	// unhealthy. Health is unhealthy at whichever of the two comes first.
	UnhealthyAfterFailures int
}

// ObserveOptions configure whom an informer tells what it does.
type ObserveOptions struct {
	// Logger; default slog.Default().
	Logger *slog.Logger
	// Metrics (observe.Metrics); default none.
	Metrics observe.Metrics
	// Trace, when set, receives every observe.Event synchronously on the
	// goroutine of the stage; it must be quick.
	Trace func(observe.Event)
	// WatchErrorHandler is called with every error that ends a LIST or WATCH
	// attempt (after logging, before backing off), as the informer recorded
	// it: a *SyncError, whose Reason is the failure's class and which
	// wraps the attempt's error (errors.Is and errors.As reach it). Reading
	// Health for the reason instead races: a reply on another goroutine (a
	// snapshot check, the audit) may end the failure before the handler
	// reads it. Nil: logging only.
	WatchErrorHandler func(ctx context.Context, err error)
}

// withDefaults fills in the defaults: the one place they are applied.
// It is idempotent (a negative "off" stays negative, to be read by on),
// so that an entry point may apply it to options already defaulted.
func (o Options[P]) withDefaults() Options[P] {
	if o.Name == "" {
		o.Name = "informer"
	}
	if o.Sync.PageSize == 0 {
		o.Sync.PageSize = 500
	}
	if o.Sync.InitialEventsTimeout == 0 {
		o.Sync.InitialEventsTimeout = time.Minute
	}
	if o.Watch.MinTimeout == 0 {
		o.Watch.MinTimeout = 5 * time.Minute
	}
	if o.Sync.StallTimeout == 0 {
		o.Sync.StallTimeout = 30 * time.Second
	}
	if o.Health.StaleAfter == 0 {
		o.Health.StaleAfter = 3 * time.Minute
	}
	if o.Health.UnhealthyAfterFailures == 0 {
		o.Health.UnhealthyAfterFailures = 3
	}
	if o.Watch.IdleTimeout == 0 {
		o.Watch.IdleTimeout = 3 * time.Minute
	}
	o.Backoff = o.Backoff.withDefaults()
	if o.Observe.Logger == nil {
		o.Observe.Logger = slog.Default()
	}
	if o.Observe.Metrics == nil {
		o.Observe.Metrics = observe.NopMetrics{}
	}
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.Rand == nil {
		o.Rand = rand.Float64
	}
	return o
}

// on reads a setting under the one rule: negative is off (0), anything
// else (defaults applied) is itself.
func on[N time.Duration | int64 | int](v N) N { return max(v, 0) }

func defaultReflectorConfig[P meta.Object](o Options[P]) reflectorConfig[P] {
	o = o.withDefaults()
	return reflectorConfig[P]{
		name: o.Name, pageSize: on(o.Sync.PageSize), streaming: o.Sync.StreamingList, consistentFirstList: o.Sync.ConsistentFirstList,
		minWatchTimeout: on(o.Watch.MinTimeout), idleTimeout: on(o.Watch.IdleTimeout), expectedKind: o.Decode.ExpectedKind,
		expectedAPIVersion: o.Decode.ExpectedAPIVersion, transform: o.Decode.Transform,
		keepManagedFields: o.Decode.KeepManagedFields,
		watchErrorHandler: o.Observe.WatchErrorHandler, failFast: o.Sync.FailFast, skipUndecodable: o.Decode.SkipUndecodable, clock: o.Clock,
		rand: o.Rand, obs: observersOf(o), metrics: o.Observe.Metrics, backoff: o.Backoff,
	}
}
