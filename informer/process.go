package informer

import (
	"context"
	"errors"
	"time"

	"github.com/zerokube/zerokube/fifo"
	"github.com/zerokube/zerokube/meta"
)

// processLoop pops deltas, applies them to the store and hands them to the
// handlers, until the queue closes or ctx ends.
func (i *Informer[T, P]) processLoop(ctx context.Context) {
	for {
		err := i.queue.Pop(ctx, i.process)
		switch {
		case err == nil:
		case errors.Is(err, fifo.ErrClosed), ctx.Err() != nil:
			return
		default:
			i.opts.Logger.Error("informer: processing deltas", "informer", i.opts.Name, "err", err)
		}
		i.checkSynced()
		i.opts.Metrics.QueueDepth(i.queue.Len())
	}
}

// process applies one batch under the processor's lock (see processor).
// Added, Updated, Replaced and Sync deltas store the object: an Update
// notification when it was cached, an Add otherwise. Deleted removes it.
func (i *Informer[T, P]) process(deltas []fifo.Delta[P], isInInitialList bool) error {
	i.proc.mu.Lock()
	defer i.proc.mu.Unlock()
	now := i.opts.Clock.Now()
	for _, d := range deltas {
		key := meta.Key(d.Object)
		n := notification[P]{key: key, obj: d.Object, queued: now}
		isSync := false
		switch d.Type {
		case fifo.Added, fifo.Updated, fifo.Replaced, fifo.Sync:
			if old, ok := i.store.GetByKey(key); ok {
				i.store.Update(d.Object)
				n.kind, n.old = notifUpdate, old
				// A relist that found the object unchanged is a resync, not news.
				isSync = d.Type == fifo.Sync || (d.Type == fifo.Replaced &&
					old.GetResourceVersion() == d.Object.GetResourceVersion())
			} else {
				i.store.Add(d.Object)
				n.kind, n.flag = notifAdd, isInInitialList
			}
		case fifo.Deleted:
			i.store.DeleteKey(key)
			n.kind, n.flag = notifDelete, d.FinalStateUnknown
		}
		if i.opts.Trace != nil {
			i.opts.Trace(TraceEvent{Stage: StageStoreUpdated, Op: n.op(), Key: key})
		}
		i.proc.distributeLocked(n, isSync)
	}
	return nil
}

// resyncLoop asks the queue for a resync whenever a handler's period is due.
func (i *Informer[T, P]) resyncLoop(ctx context.Context) {
	for i.resyncWait(ctx) {
	}
}

// resyncWait waits for the next resync tick (or a change of handlers) and
// resyncs when due; false when the loop should end.
func (i *Informer[T, P]) resyncWait(ctx context.Context) bool {
	var tick <-chan time.Time
	if d := i.proc.minResync(); d > 0 {
		t := i.opts.Clock.NewTimer(d)
		defer t.Stop()
		tick = t.C()
	}
	select {
	case <-ctx.Done():
		return false
	case <-i.proc.changed:
	case <-tick:
		if i.proc.resyncDue(i.opts.Clock.Now()) {
			return i.queue.Resync() == nil
		}
	}
	return true
}
