package informer

import (
	"time"

	"github.com/zerokube/zerokube/fifo"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
)

// change is what the dispatcher makes of one delta: the handlers'
// notification, whether it is only a resync, and the store-updated trace observe.Op.
type change[P meta.Object] struct {
	n      notification[P]
	isSync bool
	op     observe.Op
}

// classifyDelta turns a delta into a change, given what the cache held for its
// key. As in client-go's processDeltas: Added, Updated, Replaced and Sync
// store the object and notify an Update when it was cached, an Add
// otherwise; a Sync, and a Replaced at the cached resourceVersion (a relist
// that found the object unchanged), are resyncs; Deleted notifies a Delete.
// fromSnapshot says the initial list was loaded from a snapshot: its adds
// are marked for SnapshotHandler.
func classifyDelta[P meta.Object](dl fifo.Delta[P], key string, old P, had, initial, fromSnapshot bool, now time.Time) change[P] {
	c := change[P]{n: notification[P]{key: key, obj: dl.Object, queued: now}}
	switch {
	case dl.Type == fifo.Deleted:
		c.n.kind, c.n.flag = notifDelete, dl.FinalStateUnknown
		c.op = observe.OpDelete
		if dl.FinalStateUnknown {
			c.op = observe.OpTombstone
		}
	case had:
		c.isSync = dl.Type == fifo.Sync || (dl.Type == fifo.Replaced &&
			old.GetResourceVersion() == dl.Object.GetResourceVersion())
		c.n.kind, c.n.old, c.n.flag = notifUpdate, old, c.isSync
		c.op = deltaOp(dl.Type, c.isSync, observe.OpUpdate)
	default:
		c.n.kind, c.n.flag, c.n.snap = notifAdd, initial, initial && fromSnapshot
		c.op = deltaOp(dl.Type, false, observe.OpAdd)
		if c.n.snap {
			c.op = observe.OpSnapshot
		}
	}
	return c
}

// deltaOp names what the cache did with a stored delta, for the trace.
func deltaOp(t fifo.DeltaType, isSync bool, watchOp observe.Op) observe.Op {
	switch {
	case t == fifo.Sync:
		return observe.OpSync
	case t == fifo.Replaced && isSync:
		return observe.OpUnchanged
	case t == fifo.Replaced:
		return observe.OpReplace
	}
	return watchOp
}

// isRelist reports whether a batch carries a relist: Replaced deltas or the
// tombstones of objects the list no longer has. The queues newQueue builds
// keep relists whole, so such a batch is one whole relist: nothing else
// from InOrder; from DeltaFIFO, with the other deltas of the relist's keys
// too (those before the list and those that came before the Pop).
func isRelist[P any](deltas []fifo.Delta[P]) bool {
	for _, dl := range deltas {
		if dl.Type == fifo.Replaced || dl.FinalStateUnknown {
			return true
		}
	}
	return false
}

// applyRelistLocked applies a whole relist as one cache write: it works out
// every change against the cache plus the relist's earlier deltas, swaps
// the cache to the result with one Replace (readers see the old list or the
// new one, never a mix), and only then notifies the handlers, in the
// relist's order. d.mu held.
func (d *dispatcher[P]) applyRelistLocked(deltas []fifo.Delta[P], initial, fromSnapshot bool, now time.Time) {
	type entry struct {
		obj     P
		present bool
	}
	staged := make(map[string]entry, len(deltas))
	changes := make([]change[P], 0, len(deltas))
	for _, dl := range deltas {
		key := meta.Key(dl.Object)
		e, ok := staged[key]
		if !ok {
			e.obj, e.present = d.read.GetByKey(key)
		}
		changes = append(changes, classifyDelta(dl, key, e.obj, e.present, initial, fromSnapshot, now))
		staged[key] = entry{obj: dl.Object, present: dl.Type != fifo.Deleted}
	}
	list := make([]P, 0, len(staged))
	for _, e := range staged {
		if e.present {
			list = append(list, e.obj)
		}
	}
	// A relist names every cached key (listed or tombstoned), so this
	// finds nothing; it keeps the swap right even if a queue did not.
	for _, k := range d.read.ListKeys() {
		if _, ok := staged[k]; !ok {
			if obj, ok := d.read.GetByKey(k); ok {
				list = append(list, obj)
			}
		}
	}
	d.store.Replace(list)
	d.obs.emit(observe.Event{Stage: observe.StageCacheReplaced, Items: len(list)})
	for _, c := range changes {
		d.traceStored(c)
		d.distributeLocked(c.n, c.isSync)
	}
}

// traceStored reports that the cache holds c (store-updated).
func (d *dispatcher[P]) traceStored(c change[P]) {
	d.obs.emit(observe.Event{Stage: observe.StageStoreUpdated, Op: c.op, Key: c.n.key,
		ResourceVersion: c.n.obj.GetResourceVersion()})
}
