package fifo

import (
	"context"
	"errors"
	"strconv"
)

// DeltaType says what happened to an object. The zero value is not a valid
// type, so a zero Delta is recognisably empty.
type DeltaType uint8

// The five kinds of delta. Added, Updated and Deleted come from watch events;
// Replaced from a relist (Replace); Sync from a resync (Resync).
const (
	Added DeltaType = iota + 1
	Updated
	Deleted
	Replaced
	Sync
)

// String returns the type's name, e.g. "Added".
func (t DeltaType) String() string {
	switch t {
	case Added:
		return "Added"
	case Updated:
		return "Updated"
	case Deleted:
		return "Deleted"
	case Replaced:
		return "Replaced"
	case Sync:
		return "Sync"
	}
	// Only reachable for values outside the closed set above.
	return "DeltaType(" + strconv.Itoa(int(t)) + ")"
}

// Delta is one change to one object.
type Delta[T any] struct {
	Type   DeltaType
	Object T
	// FinalStateUnknown is set only on a Deleted delta that Replace
	// synthesized because the new list lacked the object: the deletion itself
	// was never observed, and Object is the last state this side knew of
	// (from the queue or from KnownObjects), not the state at deletion.
	FinalStateUnknown bool
}

// KnownObjects is the read side of the store the consumer keeps up to date
// from popped deltas (cache.Store satisfies it). The queues use it to find
// objects a relist no longer contains and to resync.
type KnownObjects[T any] interface {
	GetByKey(key string) (T, bool)
	ListKeys() []string
}

// Queue is what the informer consumes; DeltaFIFO and InOrder both implement
// it. Producers (the reflector) call Add/Update/Delete/Replace/Resync; one
// consumer loop calls Pop, or the producers themselves call TryPop after
// their writes.
type Queue[T any] interface {
	Add(obj T) error
	Update(obj T) error
	Delete(obj T) error
	// Replace states that list is now the complete set of objects, as of
	// resourceVersion: each listed object gets a Replaced delta, and every
	// object the consumer would otherwise still hold gets a Deleted delta
	// with FinalStateUnknown set.
	Replace(list []T, resourceVersion string) error
	// Resync queues a Sync delta for every known object with nothing pending.
	Resync() error
	// Pop waits for deltas and hands them to process. It returns ErrClosed
	// after Close, ctx.Err() when ctx ends first, and process's error
	// (wrapped) otherwise. An error wrapping ErrRequeue puts the deltas back.
	Pop(ctx context.Context, process func(deltas []Delta[T], isInInitialList bool) error) error
	// TryPop is Pop without the wait: it processes one pop unit, the same
	// batch Pop would hand over, and returns true, or returns false at
	// once when nothing is queued or another consumer holds the turn.
	// Producers that process their own writes call it after each write
	// until it returns false; then nothing they wrote is left behind.
	TryPop(process func(deltas []Delta[T], isInInitialList bool) error) (bool, error)
	// HasSynced reports whether everything the first Replace queued (or the
	// first Add/Update/Delete, if one came earlier) has been processed.
	HasSynced() bool
	// Len is the number of pending pop units: keys for DeltaFIFO, deltas for
	// InOrder.
	Len() int
	// Drained reports whether everything written has been processed:
	// nothing is queued and no Pop holds deltas (a popped batch counts
	// until process has returned). With the writers paused, a consumer
	// reading its store when Drained is true reads the state of the last
	// write; the informer takes its snapshots so.
	Drained() bool
	// Close ends the queue: blocked and later Pops return ErrClosed, later
	// writes return ErrClosed. Idempotent.
	Close()
}

var (
	// ErrClosed is returned by Pop and by writes once Close has been called.
	ErrClosed = errors.New("fifo: queue closed")
	// ErrRequeue, wrapped in the error a process function returns, asks the
	// queue to put the popped deltas back instead of dropping them.
	ErrRequeue = errors.New("fifo: requeue")
)
