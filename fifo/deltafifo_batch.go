package fifo

// The relist batch of a DeltaFIFO with WholeRelists: how a Pop takes it and
// how a requeue puts it back.

// inflight is what a Pop is processing: one key's deltas, or the keys of a
// relist batch with theirs.
type inflight[T any] struct {
	keys   []string     // in pop order; empty when no Pop is processing
	deltas [][]Delta[T] // deltas[i] are keys[i]'s, oldest first
	// index maps keys[i] to i for a relist batch, so that Replace and
	// Resync, which ask about every known key, need no scan. nil when a
	// Pop took one key outside a relist: get compares that key.
	index map[string]int
}

// get returns k's in-flight deltas.
func (p *inflight[T]) get(k string) ([]Delta[T], bool) {
	if p.index != nil {
		if i, ok := p.index[k]; ok {
			return p.deltas[i], true
		}
		return nil, false
	}
	if len(p.keys) == 1 && p.keys[0] == k {
		return p.deltas[0], true
	}
	return nil, false
}

// takeBatchLocked pops the f.relist keys of the relist batch into f.cur and
// returns their deltas, key after key. f.mu held, f.relist > 0.
func (f *DeltaFIFO[T]) takeBatchLocked() []Delta[T] {
	n := f.relist
	f.relist = 0
	f.cur = inflight[T]{keys: make([]string, n), deltas: make([][]Delta[T], n), index: make(map[string]int, n)}
	total := 0
	for i := range n {
		k := f.queue.Pop()
		ds := f.items[k]
		delete(f.items, k)
		f.cur.keys[i], f.cur.deltas[i], f.cur.index[k] = k, ds, i
		total += len(ds)
	}
	all := make([]Delta[T], 0, total)
	for _, ds := range f.cur.deltas {
		all = append(all, ds...)
	}
	return all
}

// requeueBatchLocked puts a relist batch back at the head of the queue,
// whole, so it pops again before anything newer. A key that got newer
// deltas meanwhile keeps only those (as a requeued single key does) but
// moves back into the batch; a Replace that came meanwhile merges into the
// batch. f.mu held.
func (f *DeltaFIFO[T]) requeueBatchLocked(b inflight[T], initial bool) {
	relist := len(b.keys)
	rest := make([]string, 0, f.queue.Len())
	for i := 0; f.queue.Len() > 0; i++ {
		k := f.queue.Pop()
		if _, ok := b.index[k]; ok {
			continue
		}
		if i < f.relist {
			relist++
		}
		rest = append(rest, k)
	}
	for i, k := range b.keys {
		if _, newer := f.items[k]; !newer {
			f.items[k] = b.deltas[i]
		}
		f.queue.Push(k)
	}
	for _, k := range rest {
		f.queue.Push(k)
	}
	f.relist = relist
	if initial {
		f.initialLeft = relist
	}
	f.sig.notify()
}
