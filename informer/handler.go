package informer

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Handler receives an informer's notifications, one at a time, on its own
// goroutine (or, with HandlerOptions.Synchronous, on the goroutine that
// processes the informer's deltas). Objects are shared with the cache and
// other handlers: never modify them.
type Handler[P any] interface {
	// OnAdd: obj is new to this handler. isInInitialList is true for objects
	// of the initial list (and of the replay a late handler gets).
	OnAdd(obj P, isInInitialList bool)
	// OnUpdate: obj changed from old to new; on a resync old == new.
	OnUpdate(old, new P)
	// OnDelete: obj is gone. finalStateUnknown means the delete was not
	// observed (it was inferred by a relist) and obj is the last state known.
	OnDelete(obj P, finalStateUnknown bool)
}

// SnapshotHandler is a Handler that tells the objects loaded from a snapshot
// at start (Options.Snapshot) from those the server sent: it gets them
// through OnSnapshotAdd. Any other Handler gets OnAdd(obj, true) for them,
// as for the objects of an initial list, which they are: the cache as of
// the snapshot's resourceVersion. What changed on the server since then
// follows as adds, updates and deletes, as soon as the watch (or, if the
// snapshot is too old, a relist) catches up.
type SnapshotHandler[P any] interface {
	Handler[P]
	// OnSnapshotAdd replaces OnAdd(obj, true) for an object of the snapshot.
	OnSnapshotAdd(obj P)
}

// HandlerFuncs adapts functions to Handler; nil functions are skipped.
type HandlerFuncs[P any] struct {
	AddFunc    func(obj P, isInInitialList bool)
	UpdateFunc func(old, new P)
	DeleteFunc func(obj P, finalStateUnknown bool)
	// SnapshotAddFunc, when set, receives the objects loaded from a
	// snapshot (see SnapshotHandler); nil: AddFunc gets them, with
	// isInInitialList true.
	SnapshotAddFunc func(obj P)
}

var _ SnapshotHandler[int] = HandlerFuncs[int]{}

// OnSnapshotAdd calls SnapshotAddFunc, or else AddFunc(obj, true).
func (f HandlerFuncs[P]) OnSnapshotAdd(obj P) {
	if f.SnapshotAddFunc != nil {
		f.SnapshotAddFunc(obj)
		return
	}
	f.OnAdd(obj, true)
}

// OnAdd calls AddFunc, if set.
func (f HandlerFuncs[P]) OnAdd(obj P, initial bool) {
	if f.AddFunc != nil {
		f.AddFunc(obj, initial)
	}
}

// OnUpdate calls UpdateFunc, if set.
func (f HandlerFuncs[P]) OnUpdate(old, new P) {
	if f.UpdateFunc != nil {
		f.UpdateFunc(old, new)
	}
}

// OnDelete calls DeleteFunc, if set.
func (f HandlerFuncs[P]) OnDelete(obj P, finalStateUnknown bool) {
	if f.DeleteFunc != nil {
		f.DeleteFunc(obj, finalStateUnknown)
	}
}

// defaultHandlerQueue is a handler queue's default capacity.
const defaultHandlerQueue = 1024

// HandlerOptions configure one handler. The zero value means the defaults.
type HandlerOptions struct {
	// Name appears in logs, metrics and traces; default "handler-<n>".
	Name string
	// ResyncPeriod overrides the informer's ResyncPeriod for this handler;
	// negative: never resync.
	ResyncPeriod time.Duration
	// QueueCapacity bounds the handler's queue; default 1,024.
	// When the queue is full, a new notification for an object that already
	// has one pending is merged into it (add+update → add of the new state,
	// update+update → update from the first old to the last new, update+
	// delete → delete, add+delete → nothing), so the final state of every
	// object is always delivered; merges are counted (observe.Metrics.Coalesced).
	// A notification that cannot merge is queued anyway, so the queue holds
	// at most max(QueueCapacity, about one entry per object) entries.
	QueueCapacity int
	// Unbounded never merges: every notification is delivered, as client-go
	// does, and the queue grows as needed.
	Unbounded bool
	// Synchronous calls the handler on the goroutine that processes the
	// informer's deltas (the processing loop's, or the reflector's with
	// Options.Process.InlineProcessing), right after the cache holds each change,
	// instead of on a goroutine of its own: one goroutine wake-up less per
	// event. For handlers that return at once, such as one that only adds
	// a key to a workqueue. Everything else is as for any handler: calls
	// in order and one at a time, panics recovered and counted, the same
	// metrics and traces, the replay of the cache when added (on the
	// caller's goroutine, before AddHandler returns), the sync marker
	// (Registration.HasSynced).
	//
	// While it runs no change reaches the cache or any other handler (and
	// with InlineProcessing nothing is read from the server), so it must
	// not block: not on I/O, not on a full channel, not on a lock held
	// elsewhere for long, and never on something only this informer's
	// processing would bring about (its own Registration.WaitForSync,
	// say): that waits for the goroutine it is running on, a deadlock.
	// It may call AddHandler and Registration.Remove: the calls are made
	// outside the informer's lock, a handler added from inside gets its
	// replay, and one removed (itself included) gets no further call.
	Synchronous bool
}

// Registration is the handle AddHandler returns.
type Registration struct {
	name    string
	synced  <-chan struct{} // closed once the handler has seen the initial list
	removed <-chan struct{} // closed by Remove
	stopped <-chan struct{} // closed when the informer's Run returns
	remove  func()
}

// Name is the handler's name.
func (r *Registration) Name() string { return r.name }

// HasSynced reports whether the informer has synced and this handler has
// been called for every object of the initial list (or of its replay).
func (r *Registration) HasSynced() bool { return isClosed(r.synced) }

// WaitForSync blocks until HasSynced is true (nil), or fails: when ctx
// ends (the error wraps context.Cause(ctx)), when the handler is removed
// ([ErrHandlerRemoved]) or when the informer stops first ([ErrStopped]).
// The informer's own WaitForSync says why a sync is failing; this one is
// for a controller that must not start before its handler has seen
// everything, like client-go's ResourceEventHandlerRegistration.HasSynced
// without the polling.
func (r *Registration) WaitForSync(ctx context.Context) error {
	if r.HasSynced() {
		return nil
	}
	select {
	case <-r.synced:
		return nil
	case <-r.removed:
		return fmt.Errorf("informer: handler %s: %w", r.name, ErrHandlerRemoved)
	case <-r.stopped:
		if r.HasSynced() {
			return nil
		}
		return fmt.Errorf("informer: handler %s: %w", r.name, ErrStopped)
	case <-ctx.Done():
		return fmt.Errorf("informer: handler %s not synced: %w", r.name, context.Cause(ctx))
	}
}

// ErrHandlerRemoved is returned by Registration.WaitForSync after Remove.
var ErrHandlerRemoved = errors.New("informer: handler removed")

// Remove stops deliveries to the handler. Notifications still queued are
// dropped; a call in progress completes. Idempotent.
func (r *Registration) Remove() { r.remove() }
