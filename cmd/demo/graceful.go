package main

import (
	"sync"

	"github.com/zerokube/zerokube/meta"
)

// terminating remembers the objects whose last update the demo's handler
// printed carried a deletionTimestamp: the first step of a graceful
// deletion, which the server announces as MODIFIED before the DELETED. The
// handler marks them; the trace words of that handler call (--trace and
// the live page) read the mark to say why an Update: comes before the
// Delete:. A nil *terminating marks nothing.
type terminating struct {
	mu   sync.Mutex // guards keys
	keys map[string]bool
}

// saw records the object the handler was given under key.
func (t *terminating) saw(key string, obj meta.Object, deleted bool) {
	if t == nil {
		return
	}
	fm, ok := obj.(meta.FullMeta)
	marked := ok && !deleted && fm.GetObjectMeta().DeletionTimestamp != nil
	t.mu.Lock()
	defer t.mu.Unlock()
	if marked {
		t.keys[key] = true
	} else {
		delete(t.keys, key)
	}
}

// has reports whether key's last update was marked for deletion.
func (t *terminating) has(key string) bool {
	if t == nil {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.keys[key]
}

func newTerminating() *terminating { return &terminating{keys: map[string]bool{}} }
