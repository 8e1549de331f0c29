package fakeapiserver

import "sync"

// maxPooledBuffer is the largest buffer kept for reuse: a reply that needed
// more (one huge object) gives its buffer back to the garbage collector
// rather than pinning it.
const maxPooledBuffer = 1 << 20

// bufferPool recycles the buffers list replies and initial watch events
// are gathered in, so serving them allocates nothing proportional to their
// size. The zero value is ready to use.
type bufferPool struct{ p sync.Pool }

func (bp *bufferPool) get() *[]byte {
	if b, ok := bp.p.Get().(*[]byte); ok {
		return b
	}
	b := make([]byte, 0, listFlushAt+16<<10)
	return &b
}

func (bp *bufferPool) put(b *[]byte) {
	if cap(*b) > maxPooledBuffer {
		return
	}
	*b = (*b)[:0]
	bp.p.Put(b)
}
