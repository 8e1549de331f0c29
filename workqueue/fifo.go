package workqueue

// fifo is a slice-backed queue that reuses its array: popping advances head, and
// the array is rewound when it empties or compacted when the dead prefix is
// larger than the live part, so a steady queue does not allocate.
type fifo[K any] struct {
	items []K
	head  int
}

func (f *fifo[K]) len() int { return len(f.items) - f.head }

func (f *fifo[K]) push(item K) {
	if f.head > 0 && f.head >= len(f.items)/2 && len(f.items) == cap(f.items) {
		n := copy(f.items, f.items[f.head:])
		clear(f.items[n:]) // drop references held by the dead tail
		f.items, f.head = f.items[:n], 0
	}
	f.items = append(f.items, item)
}

func (f *fifo[K]) pop() (K, bool) {
	var zero K
	if f.head == len(f.items) {
		return zero, false
	}
	item := f.items[f.head]
	f.items[f.head] = zero
	f.head++
	if f.head == len(f.items) {
		f.items, f.head = f.items[:0], 0
	}
	return item, true
}
