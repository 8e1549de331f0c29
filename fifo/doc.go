// Package fifo holds the queues between the reflector and the cache: the
// reflector writes watch events and relists into a queue, and the informer's
// processing loop pops them, applies them to its store and hands them to
// event handlers: a loop of its own waiting in Pop, or the producers
// themselves, each calling TryPop after its writes.
//
//	apiclient ─▶ watchstream ─▶ reflector ─▶ fifo ─▶ processing loop ─▶ cache + handlers
//
// The package is generic over the object type and a key function and knows
// nothing of HTTP, JSON or Kubernetes types. Two queues implement [Queue]:
//
//   - [DeltaFIFO] (client-go's DeltaFIFO) keeps one list of deltas per key and
//     pops a key with all its deltas. A key that changes ten times while the
//     consumer is busy is popped once, and the queue never holds more keys
//     than there are objects. Choose it when the consumer falls behind in
//     bursts and only the latest state matters (most controllers), or when
//     memory must stay bounded by the object count. With WholeRelists it
//     pops the keys of a relist together, still grouped per key.
//   - [InOrder] (client-go's RealFIFO, its default since 2025) appends every
//     delta in arrival order and merges nothing. The consumer sees exactly
//     the event sequence the server sent, so the resource version of the
//     last applied delta always describes the store as a whole, and handlers
//     see every intermediate state. It pops in batches, so the consumer takes
//     one lock per batch. Choose it when the store's resource version must be
//     meaningful (consistent reads from the cache), when handlers need every
//     transition, or for throughput; it costs memory proportional to the
//     backlog of events rather than to the number of objects.
//
// Both queues keep these invariants (each has a test):
//
//  1. Deltas of one key are delivered in the order they were written; keys
//     (DeltaFIFO) or deltas (InOrder) pop first-in first-out.
//  2. DeltaFIFO: two Deleted deltas in a row for one key collapse into one,
//     the newer one, unless the newer is a Replace tombstone.
//  3. Replace(list) queues Replaced for every listed object, then a Deleted
//     with FinalStateUnknown for every unlisted key the consumer holds or
//     will hold once it applies what is pending: keys in KnownObjects, keys
//     queued but never stored, and the key(s) a Pop is processing. The
//     tombstone carries the newest state known: the newest pending delta's
//     object, else the stored one.
//  4. Resync queues a Sync carrying the stored object for every key of
//     KnownObjects with nothing queued or in flight, so a Sync always equals
//     what the store holds when it is applied.
//  5. HasSynced is true once the first Replace's population has been popped
//     and processed (process returned), at once for an empty first Replace,
//     and at once if an Add/Update/Delete came before any Replace.
//     isInInitialList is true exactly for deltas of that population; an
//     InOrder batch never mixes them with later deltas. With a DeltaFIFO
//     keeping relists whole, a Replace that comes before the initial batch
//     was popped merges into it, and the merged batch is the initial
//     population. [TestDeltaFIFOHasSynced, TestInOrderBatchNeverMixesInitialList,
//     TestDeltaFIFOWholeRelistSyncAndRequeue,
//     TestDeltaFIFORelistsDuringTheInitialBatchAreNotInitial]
//  6. process runs without the queue lock, so producers never wait for a
//     slow consumer; concurrent Pops take turns, so one key's deltas are never
//     processed by two goroutines at once.
//  7. A process error wrapping [ErrRequeue] puts the deltas back: DeltaFIFO
//     at the back, unless newer deltas for that key arrived meanwhile (a
//     relist batch at the front, whole, its keys' newer deltas winning);
//     InOrder at the front, in order. Any other error drops them. Pop returns
//     the error, wrapped, in both cases.
//  8. Close wakes every waiting Pop with [ErrClosed]; later Pops and writes
//     return ErrClosed even if deltas remain. A cancelled ctx ends a waiting
//     Pop with ctx.Err().
//  9. With WholeRelists a relist pops as one batch, and a requeued relist
//     comes back whole, so a consumer can apply a relist to its store in one
//     step. InOrder: everything one Replace queued, whatever the batch size,
//     with no other delta in it. DeltaFIFO: every key queued at the end of
//     the Replace, each with all its deltas, so deltas stay grouped per key:
//     an event for one of those keys that comes before the Pop is in the
//     batch, an event for another key pops after it, and a second Replace
//     before the Pop merges into the batch.
//     [TestInOrderWholeRelistsPopAsOneBatch,
//     TestDeltaFIFOWholeRelistsPopAsOneBatch,
//     TestDeltaFIFOWholeRelistSyncAndRequeue]
//  10. Drained is true only when nothing is queued and no Pop holds deltas:
//     a popped batch counts until process has returned.
//     [TestDrainedCoversTheBatchBeingProcessed]
//  11. TryPop hands over exactly the batch Pop would, under the same rules,
//     or returns false at once: nothing queued, or another Pop or TryPop
//     holds the turn (ErrClosed after Close). When every producer calls
//     TryPop after its writes until it returns false, nothing written is
//     left queued once they have all returned: a consumer whose last look
//     found the queue empty looks again after giving the turn back.
//     [TestModel, TestProducersThatProcessTheirOwnWrites,
//     TestTryLockedLooksAgainAfterReleasing]
//
// The consumer applies Added, Updated, Replaced and Sync as "store this
// object" and Deleted as "remove this key"; the informer turns them into
// OnAdd/OnUpdate/OnDelete by comparing with what its store held.
package fifo
