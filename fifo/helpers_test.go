package fifo_test

import (
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/zerokube/zerokube/fifo"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
	os.Exit(0) // unreachable: VerifyTestMain exits
}

// obj is the test object: a key and a version that changes on every write,
// so a test can tell which state of an object a delta carries.
type obj struct {
	Key string
	Ver int
}

func objKey(o obj) string { return o.Key }

func o(k string, v int) obj { return obj{Key: k, Ver: v} }

// store is the consumer's store in tests: what an informer keeps from
// applying popped deltas. It is the queues' KnownObjects.
type store struct {
	mu sync.Mutex
	m  map[string]obj
}

func newStore() *store { return &store{m: map[string]obj{}} }

func (s *store) GetByKey(k string) (obj, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[k]
	return v, ok
}

// ListKeys is sorted so a seeded test run is reproducible.
func (s *store) ListKeys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := make([]string, 0, len(s.m))
	for k := range s.m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// apply does what an informer does with a delta.
func (s *store) apply(d fifo.Delta[obj]) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch d.Type {
	case fifo.Added, fifo.Updated, fifo.Replaced, fifo.Sync:
		s.m[d.Object.Key] = d.Object
	case fifo.Deleted:
		delete(s.m, d.Object.Key)
	}
}

func (s *store) snapshot() map[string]obj {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := make(map[string]obj, len(s.m))
	for k, v := range s.m {
		m[k] = v
	}
	return m
}

// kind names a queue constructor so every behaviour test runs on both.
type kind struct {
	name string
	new  func(known fifo.KnownObjects[obj]) fifo.Queue[obj]
}

func kinds() []kind {
	return []kind{
		{"DeltaFIFO", func(known fifo.KnownObjects[obj]) fifo.Queue[obj] {
			return fifo.NewDelta(fifo.DeltaOptions[obj]{Key: objKey, KnownObjects: known})
		}},
		{"InOrder", func(known fifo.KnownObjects[obj]) fifo.Queue[obj] {
			return fifo.NewInOrder(fifo.InOrderOptions[obj]{Key: objKey, KnownObjects: known})
		}},
		{"InOrder/batch1", func(known fifo.KnownObjects[obj]) fifo.Queue[obj] {
			return fifo.NewInOrder(fifo.InOrderOptions[obj]{Key: objKey, KnownObjects: known, BatchSize: 1})
		}},
		{"DeltaFIFO/whole", func(known fifo.KnownObjects[obj]) fifo.Queue[obj] {
			return fifo.NewDelta(fifo.DeltaOptions[obj]{Key: objKey, KnownObjects: known, WholeRelists: true})
		}},
	}
}

// deltaStrings renders deltas compactly for table tests, e.g. "Added a/1"
// and "Deleted? b/2" for a FinalStateUnknown deletion.
func deltaStrings(ds []fifo.Delta[obj]) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		t := d.Type.String()
		if d.FinalStateUnknown {
			t += "?"
		}
		out[i] = t + " " + d.Object.Key + "/" + strconv.Itoa(d.Object.Ver)
	}
	return out
}
