// Package storage is the storage layer of fakeapiserver: objects,
// resourceVersions, the history of events and the open watchers, behind
// one lock, with no HTTP. It plays the part etcd and the watch cache play
// behind kube-apiserver:
//
//	HTTP front (parse, strategy, wire) ─▶ storage.Store ─▶ watchers' frames
//
// The front decides what an object becomes (defaults, metadata rules,
// managedFields); the store decides when it is written, at which
// resourceVersion, and who sees it.
//
// Invariants:
//  1. One global resourceVersion counter; every committed write increments
//     it by one and appends one event to the history, under Store.mu. (Two
//     faults break this on purpose: Restore takes it back, and a
//     compaction between pages may skip one, as a write to another key
//     would.)
//  2. An update whose result encodes to the bytes already stored is not
//     written: same resourceVersion, no event (kube-apiserver's storage
//     skips such writes too).
//  3. An update that completes a deletion is one write: the DELETED event
//     carries the last stored state at the new resourceVersion, and the
//     caller gets its new state at the previous one.
//  4. A watch is registered and its start (initial state or replayed
//     history) collected under Store.mu, so no event is lost or duplicated
//     between the two.
//  5. Events are encoded once and shared by every watcher that sees them
//     unchanged; a watcher never blocks a writer: a full buffer ends that
//     watch (the client re-watches).
//  6. Every page of one paginated list comes from the snapshot at the first
//     page's resourceVersion, rebuilt from the history and cached (a few,
//     most recently used); once the history is compacted past it, the
//     continue token gets 410 Expired.
//  7. Stored objects are immutable; lists, watches and history share them.
//  8. Each object carries the values of its resource's field selectors,
//     read once when it is built (fields.go): a field selector is matched
//     against those, never by decoding the object.
package storage
