package cache

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestConcurrentReadersSeeWholeWrites runs writers (including Replace and a late
// AddIndexers) against readers. Each reader checks what one call must guarantee
// on its own: every object ByIndex returns is really filed under that value, and
// no key in a bucket lacks its object. Run it with -race.
func TestConcurrentReadersSeeWholeWrites(t *testing.T) {
	s := New(objKey, testIndexers())
	const writers, readers, ops = 4, 8, 2000
	var wg sync.WaitGroup
	done := make(chan struct{})
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for i := range ops {
				o := genObj(byte(r.IntN(256)), byte(r.IntN(256)))
				switch {
				case i == ops/2 && w == 0:
					assert.NoError(t, s.AddIndexers(Indexers[*obj]{"name": nameIndex}))
				case i%200 == 0:
					s.Replace([]*obj{o, genObj(byte(i), byte(w))})
				case r.IntN(3) == 0:
					s.Delete(o)
				default:
					s.Update(o)
				}
			}
		}()
	}
	var rg sync.WaitGroup
	for range readers {
		rg.Add(1)
		go func() {
			defer rg.Done()
			var buf []*obj
			for {
				select {
				case <-done:
					return
				default:
				}
				readOnce(t, s, &buf)
			}
		}()
	}
	wg.Wait()
	close(done)
	rg.Wait()
	checkConsistent(t, s)
}

// readOnce checks one round of reads, each on its own terms. It runs on
// reader goroutines, hence assert rather than require.
func readOnce(t *testing.T, s *Store[*obj], buf *[]*obj) {
	for _, ns := range namespaces {
		objs, err := s.ByIndex(NamespaceIndex, ns)
		assert.NoError(t, err)
		for _, o := range objs {
			assert.NotNil(t, o, "a bucket key without its object")
			assert.Equal(t, ns, o.ns)
		}
	}
	var err error
	*buf, err = s.ByIndexAppend((*buf)[:0], "tags", "hot")
	assert.NoError(t, err)
	for _, o := range *buf {
		assert.Contains(t, o.tags, "hot")
	}
	for _, o := range s.List() {
		got, ok := s.Get(o)
		if ok { // it may have been deleted since List
			assert.Equal(t, objKey(o), objKey(got))
		}
	}
}

// checkConsistent recomputes every index from List and compares, once writes
// have stopped.
func checkConsistent(t *testing.T, s *Store[*obj]) {
	t.Helper()
	_, late := s.indexers["name"]
	m := &modelRun{t: t, s: s, model: map[string]*obj{}, late: late}
	for _, o := range s.List() {
		m.model[objKey(o)] = o
	}
	m.check()
}

// TestIndexFuncErrorPanicsBeforeChanging pins invariant 6: a failing index
// function is a programming error, reported with the index and key, and the
// store is unchanged afterwards.
func TestIndexFuncErrorPanicsBeforeChanging(t *testing.T) {
	bad := func(o *obj) ([]string, error) {
		if o.name == "bad" {
			return nil, fmt.Errorf("boom")
		}
		return []string{o.name}, nil
	}
	s := New(objKey, Indexers[*obj]{"bad": bad, NamespaceIndex: NamespaceIndexFunc(func(o *obj) string { return o.ns })})
	s.Add(&obj{ns: "a", name: "good"})
	require.PanicsWithError(t, `cache: index "bad" of object "a/bad": boom`, func() { s.Add(&obj{ns: "a", name: "bad"}) })
	require.Equal(t, []string{"a/good"}, s.ListKeys())
	keys, err := s.IndexKeys(NamespaceIndex, "a")
	require.NoError(t, err)
	require.Equal(t, []string{"a/good"}, keys)
	s.Add(&obj{ns: "b", name: "still-works"}) // the writer lock was released
	require.Equal(t, 2, s.Len())
}

func TestLookupsOnUnknownIndex(t *testing.T) {
	s := New(objKey, nil)
	s.Add(&obj{ns: "a", name: "x"})
	tests := []struct {
		name string
		call func() error
	}{
		{"ByIndex", func() error { _, err := s.ByIndex("nope", "v"); return err }},
		{"ByIndexAppend", func() error { _, err := s.ByIndexAppend(nil, "nope", "v"); return err }},
		{"IndexKeys", func() error { _, err := s.IndexKeys("nope", "v"); return err }},
		{"Index", func() error { _, err := s.Index("nope", &obj{}); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			require.ErrorIs(t, err, ErrNoIndex)
			require.ErrorContains(t, err, `"nope"`)
		})
	}
	require.Nil(t, s.ListIndexFuncValues("nope"))
}

func TestIndexUnionsValuesOnce(t *testing.T) {
	s := New(objKey, Indexers[*obj]{"tags": tagsIndex})
	s.Add(&obj{ns: "a", name: "1", tags: []string{"x", "y"}})
	s.Add(&obj{ns: "a", name: "2", tags: []string{"y"}})
	s.Add(&obj{ns: "a", name: "3", tags: []string{"z"}})
	got, err := s.Index("tags", &obj{tags: []string{"x", "y"}})
	require.NoError(t, err)
	names := make([]string, 0, len(got))
	for _, o := range got {
		names = append(names, o.name)
	}
	slices.Sort(names)
	require.Equal(t, []string{"1", "2"}, names)
}

// TestReturnedSlicesAreTheCallers pins invariant 4: writing into a returned
// slice changes nothing in the store.
func TestReturnedSlicesAreTheCallers(t *testing.T) {
	s := New(objKey, testIndexers())
	s.Add(&obj{ns: "a", name: "x", tags: []string{"t"}})
	s.Add(&obj{ns: "a", name: "y", tags: []string{"t"}})
	list := s.List()
	list[0] = nil
	keys := s.ListKeys()
	keys[0] = "gone"
	byIdx, err := s.ByIndex("tags", "t")
	require.NoError(t, err)
	byIdx[0] = nil
	ik, err := s.IndexKeys("tags", "t")
	require.NoError(t, err)
	ik[0] = "gone"
	vals := s.ListIndexFuncValues(NamespaceIndex)
	vals[0] = "gone"
	checkConsistent(t, s)
	require.ElementsMatch(t, []string{"a/x", "a/y"}, s.ListKeys())
	require.Equal(t, []string{"a"}, s.ListIndexFuncValues(NamespaceIndex))
}
