// Package informer keeps a local, indexed cache of one Kubernetes resource in
// step with the API server and tells any number of handlers what changed.
//
// It is the policy layer of the data path:
//
//	apiclient ─▶ watchstream ─▶ reflector ─▶ fifo ─▶ dispatcher ─▶ cache
//	(LIST/WATCH)   (events)     (this pkg)   (deltas)   (this pkg)   │ listers
//	                                                        └─▶ handlers (a goroutine and
//	                                                            queue each, or synchronous)
//	                                                            ─▶ workqueue
//
// The reflector turns LIST and WATCH into queue operations (a list becomes
// Replace, events become Add/Update/Delete) and owns every recovery rule: it
// asks apiclient for one try per request (no client retries underneath),
// so that it sees, counts and reports every failure. The
// dispatcher owns the processing loop: it pops deltas, applies them to the
// cache, hands a notification to each handler's queue, runs resyncs and
// records the sync, all under its own lock. Listers read the cache.
//
// # The pipeline
//
// One function builds an informer's stages, pipeline.go's newPipeline, and
// one runs them, pipeline.run. An object passes through, in this order:
//
//	ListerWatcher ─▶ shard filter ─▶ audit repair ─▶ reflector ─▶ consistent point ─▶ queue ─▶ dispatcher ─▶ cache
//	(resource.go)    (shard.go,       (audit_list.go,  (reflector_*.go)  (consistent.go,  (fifo)   (dispatcher.go,      └─▶ listeners
//	                  Options.Shard)   Audit.Repair)                      Snapshot, Audit)         relist.go)              (listener.go)
//
// newPipeline builds them from the end of the path to its start, so each
// stage is given the stages it hands to when it is built; nothing is
// patched in afterwards. The optional stages are there only with their
// option. Beside the path, the snapshot writer (snapshot.go) and the cache
// audit (audit.go) read the cache at the consistent point: where the
// cache is exactly the server's state at one resourceVersion. Beside the path, the record (record.go) is the informer's one
// account of how it stands with the server: the failures (one streak, the
// backoff's exponent and the 410 streak), when the server last answered,
// when the cache last applied a batch, the resourceVersion, and the objects
// the last list skipped. The reflector's fail is the only writer of
// failures; Health, SyncError, WaitForSync and the backoff all read the
// same record, so they cannot disagree. The reflector's files are one
// machine: reflector.go (the loop, fail, the planned relist),
// reflector_states.go, reflector_list.go, reflector_watch.go,
// reflector_resume.go, reflector_failures.go (the typed reasons),
// reflector_backoff.go and reflector_undecodable.go. Building a state has
// no side effect: a state emits what it does (observers.go) when it runs.
//
// # Processing
//
// The processing loop has a goroutine of its own waiting in Pop, as
// client-go's controller does (controller.processLoop): the reflector
// queues an event and reads the next while the stage applies the last.
// With Options.Process.InlineProcessing the goroutine that wrote the deltas
// processes them instead: the reflector, after each event or list it
// queues, pops what is queued (fifo's TryPop) and applies it before it
// reads on; the resync timer's goroutine does the same for a resync, and
// Run for a loaded snapshot. Handler queues never block, so the reflector
// waits only for the cache write and the appends. A handler with
// HandlerOptions.Synchronous is called on the processing goroutine right
// after the cache holds each change, with no goroutine and wake-up of its
// own: for handlers that return at once, such as the usual one that adds a
// key to a workqueue. Inline processing with a synchronous handler leaves
// one goroutine hop between the socket and the handler (HTTP/2's read loop
// to the reflector) where the default has three.
//
// Both are opt-in: the wake-ups they save did not measure as CPU against
// kube-apiserver, and at saturation the processing loop, which overlaps
// reading the next event with applying the last, is the faster of the two
// (the runs are in bench/HISTORY.md).
//
// # Relists are atomic
//
// A relist reaches the dispatcher as one batch of its own, whichever the
// queue (both are built with WholeRelists). From fifo.InOrder it is a
// Replaced delta per listed object, then a tombstone per object the list no
// longer has. From fifo.DeltaFIFO it is every key queued when the Replace
// ended, each with all its deltas: the same Replaced deltas and tombstones,
// plus what was still pending for those keys before the list and any
// event for them that came before the Pop. The dispatcher works out each
// handler notification against the cache, swaps the cache to the result
// with one cache.Store.Replace, then notifies: readers of the cache and
// listers see the old list or the new one, never a mix. Handlers hear what
// client-go's DeltaFIFO Replace makes them hear: OnUpdate for a listed
// object that was cached (only for handlers due a resync when its
// resourceVersion did not change), OnAdd for a new one,
// OnDelete(obj, finalStateUnknown=true) for one the list lacks. (client-go
// applies a relist in one step only with its AtomicFIFO feature gate, whose
// RealFIFO queues a single ReplacedAll delta; its DeltaFIFO pops, and the
// informer applies, one key at a time.)
//
// # Quick start
//
//	inf := informer.New[Pod](client, apiclient.Ref{GVR: pods, Namespace: "default"},
//		informer.Options[*Pod]{ResyncPeriod: time.Minute})
//	inf.AddHandler(informer.HandlerFuncs[*Pod]{AddFunc: …}, informer.HandlerOptions{})
//	go inf.Run(ctx)
//	if err := inf.WaitForSync(ctx); err != nil { … } // says why: 401, 403, CRD missing, …
//
// # The reflector state machine
//
// The reflector is a small state machine; each state holds only the data
// valid in it, and each has one method that returns the next state:
//
//	listing ──last page──▶ watch-opening ──▶ watching ──clean end──▶ watch-opening
//	   ▲  └─more pages─┘        │  410            │ 410
//	   └────────────────────────┴─────────────────┘
//	stream-listing ─▶ stream-initial ──initial-events-end──▶ watching
//	      ├─rejected (400/422/405)──▶ listing, for good
//	      ├─an undecodable object, SkipUndecodable──▶ listing, for good
//	      └─cut short / silent InitialEventsTimeout──▶ listing, this cycle only
//	resuming (a snapshot) ──opened──▶ watching ──410 before any event──▶ relist (snapshot-expired)
//	any failure ─▶ backing-off ─▶ (the state to retry)
//	Shard.Set (errReshardMoved) ─▶ relist at once (reshard): not a failure
//
// An informer with StreamingList relists by streaming list too, until the
// server rejects one.
//
// # Health
//
// Health says whether the informer is in step with the server now; it is
// unhealthy at whichever comes first of two thresholds:
//   - UnhealthyAfterFailures (default 3) consecutive failed LISTs and
//     WATCHes: a server that refuses connections is known within about
//     3-5 s of the default backoff. A list that works between two failures
//     does not end the count (a loop of watch 410s is failing); a watch
//     that works (an event, a bookmark, a clean end) does, and so does
//     BackoffOptions.ResetAfter without a failure.
//   - StaleAfter (default 3 min) without progress: the cache last held
//     what the server had said that long ago. Progress is the server
//     answering (a list, a watch opened, an event, a bookmark) while
//     nothing waits to be applied; a handler that blocks the processing
//     stage stops it. Before any progress the reference is Run's start,
//     so an informer resumed from a snapshot that never reaches a
//     blackholed server goes stale too.
//
// With Options.Audit a third makes it unhealthy: Diverged, the last audit
// found the cache different from the server and no list has replaced it
// since (see "Cache audit").
//
// Health.Failure.Since and Health.FailingFor say since when, the "failing
// now and for how long" of a liveness probe; HealthHandler serves it as
// JSON, 503 when any informer is unhealthy.
//
// # Slim structs or Transform
//
// The cheapest way to cache less is to decode less: declare a struct with
// only the fields you read (meta.ObjectMeta plus a few). When you need the
// full type but not all of it, Options.Decode.Transform runs before an object is
// queued and stored. ObjectMeta.ManagedFields is dropped by default before
// that (Options.Decode.KeepManagedFields keeps it): on a typical pod it is a third
// or more of the JSON, and almost no informer reads it.
//
// # Protobuf or JSON
//
// New asks for protobuf for a
// resource of a built-in API group/version (one in kubeproto's table),
// with JSON as the server's fallback, and package protodec decodes it
// straight into your struct by the fields' JSON names: the same struct
// works for both, and kube-apiserver spends about half the CPU on a
// protobuf list (bench/README.md). Custom resources are asked for in
// JSON. Transport.JSON asks for JSON for every resource; wire.go says how
// the choice is made and when it turns to JSON by itself.
//
// # Queue choice
//
// The default delta queue is fifo.InOrder: it keeps every
// delta in the order the server sent it, so handlers see changes to
// different objects in server order, and it hands the processing loop
// batches of up to 100 deltas per Pop, which amortises the queue's lock and
// wake-up. Its cost, a queue entry per event instead of per object, does not
// grow in practice because the loop only writes the cache and appends to
// handler queues, which bound themselves. client-go made the same switch
// (RealFIFO). It was never slower than DeltaFIFO in the informer's
// benchmarks (bench/HISTORY.md has the runs). fifo.DeltaFIFO
// (Options.Process.DeltaFIFO) groups deltas per key, as the classic informer did.
//
// # Observing
//
// Each happening is said once: the stage where it happens emits one typed
// [observe.Event] (observers.go's emit), and three observers hear it
// there. Options.Observe.Trace receives it as it is: every stage of an object's
// way (list page, watch opened, event, bookmark, delta queued, cache
// replaced by a relist, store updated, resync, handler called, relist with
// its cause) and what goes wrong beside it (list or watch failed, backoff,
// skipped, transform failed, queue coalesced, the snapshot's fate), which
// the demo prints in its --trace mode. Each relist and watch-opened says
// the shape of its request and why each part was chosen
// ([observe.Request]: LIST at rv 0 or consistent, paged or streaming,
// protobuf or JSON, gzip, metadata-only, selectors, the shard's), which is what sets
// its cost to the API server (docs/agents.md, "The cheapest request";
// TestTheTraceSaysEachRequestsShapeAndWhy). Options.Observe.Metrics ([observe.Metrics])
// gets the counter each one moves (list/watch calls, relists by cause,
// events by type, handler lag and duration, skips, snapshots), and
// Options.Observe.Logger (log/slog) the line an operator should read, at its
// level. So a happening cannot be traced but not counted, and the log
// uses the trace's words; a test (TestOnlyTheObserversCountAndLog) keeps
// counting and logging out of every other file. The gauges (queue depths,
// resourceVersion) sample states, not happenings, and are set where the
// state changes. Package metrics (github.com/zerokube/zerokube/metrics)
// exports the Metrics in Prometheus's format, and the prom module into a
// client_golang registry.
//
// # Warm restart
//
// With Options.Snapshot the informer saves its cache (objects as stored,
// after Transform) with the resourceVersion it is in step with, every
// period and at a clean stop (package snapshot: checksummed, written
// atomically). At the next start it loads a sound snapshot as its initial
// list, marks itself synced without listing, and watches from the saved
// resourceVersion: the server sends only what changed meanwhile. It asks
// the server two small questions first (snapshot_identity.go): the
// cluster's id, and a LIST of one item at least as new as the snapshot,
// which a history that has not reached it (a cluster made anew or
// restored at the same URL) answers 504; a WATCH from there would be
// accepted and stay silent. A snapshot either answer rules out is not
// used; one the server cannot answer for at start (an outage) is loaded
// all the same, and the questions are asked again before the resume's
// watch, a wrong answer then making the informer relist at ""
// (snapshot_verify.go). Over https the snapshot also carries the client's
// TLS session: the next process offers it on the connection of the
// resume's WATCH, sent before any of the snapshot is used, and a
// connection that resumed it reached the very server process the
// snapshot was taken from, which answers both questions without asking
// them: that WATCH is the resume's only request. A connection that did
// not resume it has its WATCH dropped unread, and the questions are asked
// as above. If that resourceVersion has left the server's
// history (410), it relists and the relist reconciles the cache. Handlers
// get the snapshot's objects as initial adds, or through OnSnapshotAdd
// when they implement [SnapshotHandler]. The snapshot's batch is applied
// alone, on Run's goroutine, before the reflector and the processing loop
// start, so no later delta can join it and pass for a snapshot object.
//
// A snapshot is loaded only into an informer that would cache the same
// objects the same way: its identity names the server and the cluster
// (the uid of its kube-system namespace, read at start: a cluster made
// anew at the same URL is another one; SnapshotOptions.Cluster), resource,
// namespace, selectors, Go type, the shard (selector and field), the
// request shape (whole objects or PartialObjectMetadata), the
// managed-fields choice and the transform (SnapshotOptions.TransformVersion:
// change it when the Transform changes). A sharded informer resumes its
// own shard's snapshot.
//
// Objects skipped under SkipUndecodable are not in the cache, so not in
// the snapshot, and a watch would never bring them back (they changed
// nowhere). The decision: a snapshot records how many objects its list
// skipped (snapshot.Header.Skipped), and an informer that loads one with
// skipped objects uses its objects but relists at once (cause
// snapshot-incomplete) instead of resuming the watch: after an upgrade
// whose type fits them they arrive, and otherwise Undecodable names them
// again. A snapshot without skipped objects resumes as before.
//
// A snapshot is not an answer from the server: until the server first
// answers (a list, or the watch that resumes), FailFast still stops Run on
// a failure retrying cannot fix, and Health measures staleness from Run's
// start.
//
// A snapshot is taken without stopping the processing loop for long: the
// reflector's queue writes are paused, the stage applies what is queued,
// the cache's list of pointers is copied under its read lock, and the
// objects are encoded afterwards, outside every lock.
//
// # Cache audit
//
// With Options.Audit the informer checks its cache against the server in
// production, once a period (the first at a random point of the first
// period, so a fleet started together spreads its audits; then a period
// apart, so a difference is found within one period of its cause). A
// watch event lost on the way (a proxy, a bug) leaves the cache silently
// different from the server; an agent acting on it does the wrong thing
// and nothing says so. client-go's consistency detector makes the same
// comparison in CI only, and panics.
//
// Each audit captures the cache at the consistent point (consistent.go:
// the reflector's writes wait, the queue drains, and the cache is then
// exactly the server's state at the resourceVersion of the last event or
// bookmark), lets the data path go on, and asks for the metadata of every
// object at exactly that resourceVersion: a paged LIST with
// resourceVersionMatch=Exact of a PartialObjectMetadataList in protobuf,
// with the informer's selectors and shard. Objects changed since need no
// care: the list is at that resourceVersion too. It compares namespace,
// name, uid and resourceVersion, and reports each object missing from the
// cache, extra in it or stale (the audited and audit-difference trace
// stages, observe.AuditMetrics, a log line, Health.Audit); Health is
// unhealthy (Diverged) until a list replaces the cache. With
// AuditOptions.Repair it relists at once. A resourceVersion the server no
// longer serves exactly (410) is said (audit-failed) and waited out until
// the next period: the audit never relists for it.
//
// # Invariants
//
// Each has at least one test (named in brackets).
//
//  1. The first list is at resourceVersion "0" (at "" with
//     Options.Sync.ConsistentFirstList) in pages of Options.Sync.PageSize (500). A relist at a later resourceVersion is unpaginated, unless the
//     first list, at "0", came back in pages (no watch cache on the server);
//     a paged list at "" proves nothing. [TestFirstListIsAtRVZeroPaginatedBy500,
//     TestRelistAtAnRVIsUnpaginatedUnlessTheServerPaged,
//     TestOnlyAPagedListAtZeroMakesRelistsPaged]
//  2. 410 on a continue token lists once more, unpaginated, at the
//     resourceVersion first asked for (client-go's pager); 410 on a list at
//     a resourceVersion relists at "" (consistent), whatever the 410's
//     reason; 504 ResourceVersionTooLarge, on a LIST, a WATCH or a
//     streaming list, as a reply or as an ERROR event, lists at "" at once.
//     A continue token repeated within one list fails it
//     (apiclient.ErrContinueLoop) instead of paging forever.
//     [TestListErrorTransitions, TestGoneMidPaginatedListListsOnceWhole,
//     TestRepeatedContinueTokenFailsTheList, TestStreamingTooLargeRVListsConsistently]
//  3. A watch asks for bookmarks and a timeout drawn from [Watch.MinTimeout,
//     2·Watch.MinTimeout). A clean end re-watches from the last
//     resourceVersion without relisting or waiting; a watch silent for
//     Watch.IdleTimeout is ended and reopened: quietly, without a failure,
//     on a server that has shown no bookmark cadence (the bookmark that
//     ends a streaming list does not count: kube-apiserver with its watch
//     cache off sends it and no other), after a backoff as
//     observe.FailureStalled on one that has; a broken stream or a 429
//     re-watches after a backoff; 410 and 504 ResourceVersionTooLarge
//     relist at once (rule 5); any other ERROR event (500 included), an
//     event that does not decode, and a watch closed within a second with
//     no event relist after a backoff, as client-go does.
//     [TestWatchOpeningAsksForBookmarksAndARandomTimeout,
//     TestWatchingAppliesEventsAndRewatchesAfterCleanEnd,
//     TestWatchEndTransitions, TestWatchOpeningErrorTransitions,
//     TestIdleWatchdogReopensTheWatch,
//     TestAQuietInformerStaysHealthyWithoutPeriodicBookmarks]
//     Every reply has one progress watchdog, the reply reader's
//     (watchstream.Options.StallTimeout, set up by the resource's
//     ListerWatcher from StallTimeout, InitialEventsTimeout and
//     Watch.IdleTimeout): it counts objects, not bytes, and objects the
//     shard filter or the kind check drop count. A reply that stops is
//     observe.FailureStalled whichever bound fired, said once.
//     [TestAStalledReplyIsAbandonedAndRetried, TestAShardTheServerIgnoresDoesNotStall]
//  4. The stored resourceVersion is that of the last list, event or bookmark
//     queued, except that it does not move during the synthetic ADDED events
//     at the start of a watch from "" or "0". [TestBookmarkAloneAdvancesTheRV,
//     TestWatchFromZeroHoldsRVDuringSyntheticAdds, TestBookmarksAdvanceTheResourceVersion]
//  5. Nothing retries in a hot loop: one recovery cycle. Whatever ended
//     the last list-and-watch, the next starts after a backoff of 0.8 s
//     doubling, with jitter, never past 30 s (BackoffOptions.Max holds
//     with the jitter), reset after 2 minutes without failure, or after
//     the server's Retry-After hint capped at that maximum. A successful
//     list does not reset the backoff, so a server that answers every
//     WATCH with 410 gets ever rarer LISTs. Only a 410 (a list's
//     resourceVersion or continue token expired, or a watch's), a 504
//     ResourceVersionTooLarge, or a streaming list that failed (LIST for
//     that cycle) is followed by its next request at once, as client-go's
//     list and pager do: the server answered; and never twice in a row
//     without a backoff or a healthy period between (two rules that each
//     retry at once, taken in turn, were a loop of thousands of requests
//     a second). 410s and 504s since a watch last worked count alike
//     toward FailureRepeatedGone. Each failure is recorded once, in the
//     record: one WatchErrorHandler call, one step of SyncError.Attempts.
//     A list that works does not end the count of consecutive failures; a
//     watch that works does.
//     [TestNoFaultMakesMoreRequestsThanTheBackoffAllows,
//     TestBackoffDoublesToMaxAndResetsAfterHealth,
//     TestBackingOffHonoursRetryAfter, TestRepeatedWatch410sWaitEverLonger,
//     TestRepeatedGoneIsReportedAndBacksOff, TestResourceVersionTooLargeCountsLikeGone,
//     TestEachFailureIsRecordedOnce, TestFailuresCountAcrossRelists]
//  6. A streaming list is complete only at its initial-events-end bookmark.
//     If the server rejects it (400, 422, 405) the informer uses LIST from
//     then on, and so it does, without a failure, when the list meets an
//     object that does not fit the type under SkipUndecodable; if it ends
//     earlier or stays silent for InitialEventsTimeout (an idle timeout:
//     a list still delivering is never cut), or fails in any other way but
//     410, 504 too-large-rv or an object that does not fit (a frame that
//     does not decode), LIST for that one cycle only, at once, the relist
//     event saying why.
//     [TestStreaming*, watchstream's TestInitialStallTimeoutHoldsUntilTheEndBookmark,
//     TestAStreamingListSkipsAnUndecodableObjectWithoutAFailure,
//     TestAStreamingListThatDoesNotDecodeFallsBackToList]
//  7. A list replaces the queue's content: objects deleted while nobody
//     watched are delivered as OnDelete(obj, finalStateUnknown=true); an
//     object a relist finds unchanged (same resourceVersion) is a resync, not
//     an update. With either queue the cache swaps to a relist in one step:
//     readers never see a mix of two lists.
//     [TestRelistDeliversMissedDeletesAsTombstones,
//     TestDeletesWhileDisconnectedArriveAsTombstones,
//     TestRelistNotifiesLikeClientGo, TestRelistIsAtomicForReaders]
//  8. The cache is updated before any handler hears of the change, and each
//     handler hears of changes to one object in order.
//     [TestInformerSyncsAndDeliversLiveEvents]
//  9. Every handler has its own queue, and its own goroutine unless it is
//     Synchronous; a slow handler with a goroutine never blocks another one
//     or the cache. A bounded queue that is full merges a
//     new notification into the pending one for the same object, so the last
//     state always arrives. [TestSlowHandlerDoesNotBlockAFastOne,
//     TestBoundedHandlerQueueKeepsFinalStates]
//  10. A handler added at any time gets the cached objects replayed as adds,
//     atomically with the stream: it hears of every object exactly once.
//     Registration.WaitForSync returns once it has seen all of them, or
//     says why it cannot (context, removed, informer stopped).
//     [TestLateHandlerGetsReplay, TestRandomWritesAndFaultsConverge,
//     TestRegistrationWaitForSync]
//  11. A handler panic is recovered, logged and counted; the informer goes on.
//     [TestHandlerPanicIsRecoveredAndCounted]
//  12. Every failure is classified (unauthorized, forbidden, resource not
//     found, bad request, repeated 410, unreachable, server) as a
//     *SyncError, which WaitForSync returns with the context's cause until
//     the first sync, and which says "failing since" once synced. With
//     FailFast, 401/403/404/400 stop Run until the server first answered
//     (a snapshot's cache does not count), and WaitForSync says what to
//     fix for a 400 (the selectors, named). [TestSyncFailuresAreTyped,
//     TestTypedSyncFailures, TestWaitForSyncReportsWhy,
//     TestAFailureAfterTheSyncSaysFailingSince,
//     TestABadRequestStopsFailFastAndSaysWhatToFix,
//     TestFailFastStopsAResumedInformerOnForbidden]
//  13. Objects of an unexpected kind or apiVersion are dropped and reported,
//     never stored, and their resourceVersion is not adopted; Transform runs
//     before an object is queued. [TestObjectsOfTheWrongKindAreSkipped,
//     TestObjectsOfAnotherAPIVersionAreDropped, TestTransformRunsBeforeQueueing]
//  14. Run returns once every goroutine it started has ended (goleak checks
//     every test); pending handler notifications are abandoned, not drained.
//     [TestStoppingAbandonsAHandlerBacklog, TestStoppedInformerIsCollected]
//  15. Whatever the faults, the cache and every handler's view converge to
//     the server's state. [TestRandomWritesAndFaultsConverge]
//  16. A handler's resync falls due one period after its last one (or its
//     registration); adding or removing other handlers does not postpone
//     it. [TestAddingAHandlerDoesNotPostponeResync]
//  17. A saved snapshot is the server's state at its resourceVersion. An
//     informer started on it syncs without a list and hears, from the watch,
//     exactly what changed meanwhile; after a 410 the relist delivers
//     exactly the differences (deletes as tombstones). A corrupt, truncated,
//     foreign or other-version snapshot, or one of another shard, transform
//     or managed-fields choice, is logged, counted (observe.Metrics.SnapshotLoaded)
//     and traced with its reason, and ignored; a sharded informer resumes
//     its own; one saved while objects were skipped relists; the
//     snapshot's adds are exactly its objects.
//     [TestEverySnapshotIsTheServersStateAtItsResourceVersion,
//     TestRestartWithNothingChangedResumesWithoutAList,
//     TestRestartAfterChangesDeliversExactlyTheDifferences,
//     TestRestartAfterHistoryCompactedRelistsAndReconciles,
//     TestABadSnapshotIsReportedAndIgnored,
//     TestAnUnshardedInformerDoesNotResumeAShardsSnapshot,
//     TestASnapshotOfDifferentlyShapedObjectsIsNotResumed,
//     TestAShardedInformerResumesFromItsSnapshot,
//     TestObjectsSkippedBeforeARestartAreListedAgain,
//     TestASnapshotBatchIsClosedBeforeTheFirstRelist]
//  18. An object that does not fit the type (in JSON or in protobuf alike)
//     never leaves the cache silently incomplete: by default the list
//     fails, naming the object (namespace/name, page, JSON path, the same
//     on both wires), and WaitForSync reports observe.FailureUndecodable until it
//     is fixed or deleted; with Options.Decode.SkipUndecodable it is skipped,
//     logged, counted and listed by Informer.Undecodable. A watch event
//     that does not decode ends the watch (its error names the event, the
//     object and the path) for a relist, which applies the same rule.
//     [TestUndecodableObjectIsNamedUntilDeleted, TestSkipUndecodableSyncsWithoutTheObject,
//     TestWatchEndTransitions, Test*OnEitherWire]
//  19. Health is current as soon as WaitForSync returns: the last progress
//     (the server answered and the cache applied it), the current failure
//     with its typed reason, consecutive count and start, Stale once a
//     synced informer has made no progress for StaleAfter (measured from
//     Run's start before any), and Failing at UnhealthyAfterFailures
//     consecutive failures. HealthHandler answers 200 only when every
//     informer is healthy (synced, neither stale nor failing).
//     [TestHealthTracksProgressAndStaleness, TestHealthShowsTheCurrentFailure,
//     TestHealthHandlerAnswersWithTheWorstInformer,
//     TestABlockedSynchronousHandlerMakesTheInformerStale,
//     TestAResumedInformerThatNeverReachesTheServerTurnsUnhealthy,
//     TestHealthTurnsUnhealthyAtTheThirdFailureNotAfterStaleAfter]
//  20. With InlineProcessing the reflector processes each event before it
//     reads the next; a Synchronous handler has then been called for it,
//     after the cache held the change. A Synchronous handler keeps every
//     other handler rule (order, replay before AddHandler returns, sync
//     marker, panics recovered) with or without InlineProcessing, and may
//     add and remove handlers from inside a call.
//     Traces keep data-path order. [TestSynchronousHandlerRunsBeforeTheNextEventIsRead,
//     TestSynchronousHandler, TestRelistNotifiesLikeClientGo,
//     TestRandomWritesAndFaultsConverge, TestTraceIsOneSequenceWithInlineProcessing]
//  21. Moving the shard (Shard.Set) is a planned relist (cause reshard): no
//     failure is recorded, no WatchErrorHandler call, no backoff.
//     [TestReshardingIsAPlannedRelistNotAFailure]
//  22. A snapshot is resumed only on the cluster it was taken on (the
//     kube-system namespace's uid, "" where RBAC forbids reading it), for
//     the same request shape, selectors and shard, and only within the
//     server's history (a LIST of one item at least as new as it): a
//     cluster made anew or restored at the same URL gets the relist, not
//     the snapshot. Checks the server cannot answer at start are made
//     before the resume's WATCH, a wrong answer making it relist at "".
//     A connection that resumed the TLS session saved with the snapshot
//     answers both checks; one that did not makes them, as without one.
//     [TestASnapshotIsNotResumedOnAnotherClusterAtTheSameURL,
//     TestAResumedTLSSessionIsAllTheCheckASnapshotNeeds,
//     TestASessionTheServerDoesNotTakeLeavesTheChecksToBeMade,
//     TestNoTLSSessionKeepsTheSessionOutOfTheSnapshot,
//     TestAStopBeforeTheResumeAnsweredAsksNothing,
//     TestACallersClusterIDIsComparedDespiteTheSession,
//     TestARecreatedClusterIsCaughtByItsHistoryWithoutTheClusterID,
//     TestASnapshotNewerThanARestoredHistoryIsNotResumed,
//     TestASnapshotOfMetadataIsNotResumedForWholeObjects,
//     TestACallersIdentityStillComparesTheSelectors,
//     TestAClusterIDThatFailsToReadIsCheckedBeforeTheResume,
//     TestAHistoryUncheckedAtStartIsCheckedBeforeTheResume]
//  23. An informer is fed PartialObjectMetadata only when its type reads
//     nothing beyond metadata: no decoder of its own (UnmarshalJSONFrom,
//     UnmarshalJSON, UnmarshalText), no unexported state; and a Factory
//     warns when a caller's options would change what the shared informer
//     caches. [TestATypeThatDecodesItselfOrHidesStateIsNotMetadataOnly,
//     TestFactoryWarnsOnEveryOptionThatChangesWhatIsCached]
//  24. With Options.Audit the cache is compared, at most one Period apart
//     and within one Period of a lost event, with the server's list at
//     exactly the resourceVersion it is in step with, captured with the
//     queue drained, so an event in flight is never a difference; only
//     what the informer selects (selectors, shard) is compared, and what
//     a list skipped on purpose is left out. Each object missing, extra or
//     stale is traced, and the audit counted, logged and shown in Health
//     (Diverged, unhealthy, until a list replaces the cache); with Repair
//     the informer relists. A 410 is said and waited out: the audit never
//     relists for it. [TestAuditFindsAnObjectWhoseADDEDWasLostWithinOnePeriod,
//     TestAuditFindsLostModifiedAndDeletedEvents,
//     TestAuditSeesNoDifferenceWhileTheWatchKeepsApplyingEvents,
//     TestAuditCapturesOnlyOnceTheQueueHasDrained,
//     TestAuditComparesOnlyWhatTheInformerSelects, TestAuditLeavesOutWhatTheListSkipped,
//     TestAuditAtACompactedResourceVersionSaysSoAndWaits,
//     TestAuditRepairRelistsAndTheCacheConverges, TestRepairStageEndsTheWatchUntilAListComes]
package informer
