package cache

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// obj is the test object: a namespace, a name and any number of tags.
type obj struct {
	ns, name string
	tags     []string
}

func objKey(o *obj) string { return o.ns + "/" + o.name }

func tagsIndex(o *obj) ([]string, error) { return o.tags, nil }

// nameIndex files an object under the first letter of its name: a late index,
// added with AddIndexers while data exists.
func nameIndex(o *obj) ([]string, error) { return []string{o.name[:1]}, nil }

func testIndexers() Indexers[*obj] {
	return Indexers[*obj]{
		NamespaceIndex: NamespaceIndexFunc(func(o *obj) string { return o.ns }),
		"tags":         tagsIndex,
	}
}

// modelRun drives a Store and a plain map side by side and checks after every
// step that the store says exactly what the map implies.
type modelRun struct {
	t     testing.TB
	s     *Store[*obj]
	model map[string]*obj
	late  bool // whether the "name" index has been added
}

func newModelRun(t testing.TB) *modelRun {
	return &modelRun{t: t, s: New(objKey, testIndexers()), model: map[string]*obj{}}
}

var (
	namespaces = []string{"a", "b", "c"}
	// "hot" is on most objects so its bucket crosses smallBucket both ways.
	tagPool = []string{"hot", "hot", "hot", "x", "y", "z"}
)

// genObj makes an object from two bytes: a small pool of names and namespaces
// so that keys collide, updates happen and buckets grow and shrink.
func genObj(a, b byte) *obj {
	o := &obj{ns: namespaces[int(a)%len(namespaces)], name: fmt.Sprintf("n%02d", int(b)%24)}
	for i := range int(a/3) % 4 { // zero to three tags, duplicates allowed
		o.tags = append(o.tags, tagPool[(int(b)+i*int(a))%len(tagPool)])
	}
	return o
}

// step applies one operation chosen by op; a and b parameterise it.
func (m *modelRun) step(op, a, b byte) {
	switch op % 6 {
	case 0, 1: // Add and Update are the same operation; weight them up
		o := genObj(a, b)
		if op%2 == 0 {
			m.s.Add(o)
		} else {
			m.s.Update(o)
		}
		m.model[objKey(o)] = o
	case 2: // Delete with a different object of the same key (a stale copy)
		o := genObj(a, b)
		stale := &obj{ns: o.ns, name: o.name, tags: []string{"stale"}}
		m.s.Delete(stale)
		delete(m.model, objKey(o))
	case 3: // DeleteKey, often of an absent key
		k := objKey(genObj(a, b))
		m.s.DeleteKey(k)
		delete(m.model, k)
	case 4: // Replace with a random list, duplicates and all
		if b%4 != 0 {
			return // rarer than the rest: it wipes out the history we built
		}
		list := make([]*obj, 0, int(a)%30)
		m.model = map[string]*obj{}
		for i := range cap(list) {
			o := genObj(a+byte(i)*7, b+byte(i)*13)
			list = append(list, o)
			m.model[objKey(o)] = o
		}
		m.s.Replace(list)
	case 5: // declare the late index, once; a second time must fail
		err := m.s.AddIndexers(Indexers[*obj]{"name": nameIndex})
		if m.late {
			require.ErrorIs(m.t, err, ErrIndexExists)
		}
		require.True(m.t, m.late || err == nil, "first AddIndexers: %v", err)
		m.late = true
	}
}

// expected computes index name's contents from the model.
func (m *modelRun) expected(name string, fn IndexFunc[*obj]) map[string][]string {
	out := map[string][]string{}
	for k, o := range m.model {
		vals, _ := fn(o)
		for _, v := range vals {
			if !slices.Contains(out[v], k) {
				out[v] = append(out[v], k)
			}
		}
	}
	return out
}

func (m *modelRun) check() {
	t := m.t
	t.Helper()
	require.Equal(t, len(m.model), m.s.Len())
	require.ElementsMatch(t, keysOf(m.model), m.s.ListKeys())
	require.Len(t, m.s.List(), len(m.model))
	for k, o := range m.model {
		got, ok := m.s.GetByKey(k)
		require.True(t, ok, k)
		require.Same(t, o, got, k)
	}
	indexers := testIndexers()
	if m.late {
		indexers["name"] = nameIndex
	}
	for name, fn := range indexers {
		want := m.expected(name, fn)
		require.ElementsMatch(t, keysOf(want), m.s.ListIndexFuncValues(name), "values of %s", name)
		for v, keys := range want {
			got, err := m.s.IndexKeys(name, v)
			require.NoError(t, err)
			require.ElementsMatch(t, keys, got, "%s=%s", name, v)
			objs, err := m.s.ByIndex(name, v)
			require.NoError(t, err)
			require.Len(t, objs, len(keys))
		}
		got, err := m.s.ByIndex(name, "no-such-value")
		require.NoError(t, err)
		require.Empty(t, got)
	}
	m.checkBuckets()
}

// checkBuckets looks inside: no empty buckets (invariant 3) and each value in
// the representation its size calls for (invariant 5).
func (m *modelRun) checkBuckets() {
	for name, ix := range m.s.indexes {
		for v, k := range ix.one {
			require.NotEmpty(m.t, k, "%s=%s: empty key", name, v)
			require.NotContains(m.t, ix.many, v, "%s=%s: in both forms", name, v)
		}
		for v, b := range ix.many {
			require.Greater(m.t, b.len(), 1, "%s=%s: a bucket of %d keys", name, v, b.len())
			require.True(m.t, (b.large == nil) != (b.small == nil), "%s=%s: exactly one form", name, v)
			if b.large != nil {
				require.Greater(m.t, len(b.large), smallBucket/2, "%s=%s: map too small", name, v)
			} else {
				require.LessOrEqual(m.t, len(b.small), smallBucket, "%s=%s: slice too large", name, v)
			}
		}
	}
}

func keysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestStoreMatchesMapModel(t *testing.T) {
	for seed := range uint64(8) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 42))
			m := newModelRun(t)
			for range 800 {
				op := byte(r.IntN(6))
				if op == 5 && r.IntN(50) != 0 {
					op = 0 // declare the late index somewhere in the middle
				}
				m.step(op, byte(r.IntN(256)), byte(r.IntN(256)))
				m.check()
			}
		})
	}
}

// FuzzStoreModel reads operations three bytes at a time.
func FuzzStoreModel(f *testing.F) {
	f.Add([]byte{0, 1, 2, 0, 1, 3, 2, 1, 2, 5, 0, 0, 4, 9, 4})
	f.Add([]byte{0, 3, 1, 0, 3, 2, 0, 3, 3, 0, 3, 4, 0, 3, 5, 0, 3, 6, 0, 3, 7, 0, 3, 8, 0, 3, 9, 3, 3, 1})
	f.Fuzz(func(t *testing.T, ops []byte) {
		m := newModelRun(t)
		for i := 0; i+2 < len(ops); i += 3 {
			m.step(ops[i], ops[i+1], ops[i+2])
			m.check()
		}
	})
}
