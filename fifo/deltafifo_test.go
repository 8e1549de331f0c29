package fifo_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fifo"
)

// popped is one Pop as a test sees it.
type popped struct {
	deltas  []string
	initial bool
}

// popAll pops until the queue is empty, applying each delta to st if st is
// not nil, and returns what each Pop carried.
func popAll(t *testing.T, q fifo.Queue[obj], st *store) []popped {
	t.Helper()
	var out []popped
	for q.Len() > 0 {
		err := q.Pop(context.Background(), func(ds []fifo.Delta[obj], initial bool) error {
			out = append(out, popped{deltaStrings(ds), initial})
			for _, d := range ds {
				if st != nil {
					st.apply(d)
				}
			}
			return nil
		})
		require.NoError(t, err)
	}
	return out
}

func justDeltas(ps []popped) [][]string {
	out := make([][]string, len(ps))
	for i, p := range ps {
		out[i] = p.deltas
	}
	return out
}

// TestDeltaFIFO is a step table: each case seeds the known store, runs
// operations on a DeltaFIFO, then pops everything.
func TestDeltaFIFO(t *testing.T) {
	tests := []struct {
		name  string
		known []obj
		ops   func(q *fifo.DeltaFIFO[obj])
		want  [][]string
	}{{
		name: "keys pop in first-in order with all their deltas",
		ops: func(q *fifo.DeltaFIFO[obj]) {
			q.Add(o("a", 1))
			q.Add(o("b", 1))
			q.Update(o("a", 2))
		},
		want: [][]string{{"Added a/1", "Updated a/2"}, {"Added b/1"}},
	}, {
		name:  "two deletes in a row collapse into the newer one",
		known: []obj{o("a", 1)},
		ops: func(q *fifo.DeltaFIFO[obj]) {
			q.Delete(o("a", 1))
			q.Delete(o("a", 2))
		},
		want: [][]string{{"Deleted a/2"}},
	}, {
		name:  "a tombstone after a real delete is dropped: it knows less",
		known: []obj{o("a", 1)},
		ops: func(q *fifo.DeltaFIFO[obj]) {
			q.Delete(o("a", 2))
			q.Replace(nil, "")
		},
		want: [][]string{{"Deleted a/2"}},
	}, {
		name: "delete of an object nobody knows is dropped",
		ops: func(q *fifo.DeltaFIFO[obj]) {
			q.Delete(o("ghost", 1))
		},
		want: [][]string{},
	}, {
		name:  "replace: listed objects, then tombstones for vanished known ones",
		known: []obj{o("a", 1), o("b", 1)},
		ops: func(q *fifo.DeltaFIFO[obj]) {
			q.Replace([]obj{o("a", 2), o("c", 1)}, "10")
		},
		want: [][]string{{"Replaced a/2"}, {"Replaced c/1"}, {"Deleted? b/1"}},
	}, {
		name: "replace: an object queued but never stored gets a tombstone with its newest state",
		ops: func(q *fifo.DeltaFIFO[obj]) {
			q.Add(o("q", 1))
			q.Update(o("q", 2))
			q.Replace([]obj{o("a", 1)}, "10")
		},
		want: [][]string{{"Added q/1", "Updated q/2", "Deleted? q/2"}, {"Replaced a/1"}},
	}, {
		name:  "replace: a known object with queued deltas uses the queued state",
		known: []obj{o("k", 1)},
		ops: func(q *fifo.DeltaFIFO[obj]) {
			q.Update(o("k", 2))
			q.Replace(nil, "10")
		},
		want: [][]string{{"Updated k/2", "Deleted? k/2"}},
	}, {
		name:  "resync skips keys with pending deltas",
		known: []obj{o("a", 1), o("b", 1)},
		ops: func(q *fifo.DeltaFIFO[obj]) {
			q.Update(o("b", 2))
			q.Resync()
		},
		want: [][]string{{"Updated b/2"}, {"Sync a/1"}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := newStore()
			for _, x := range tt.known {
				st.m[x.Key] = x
			}
			q := fifo.NewDelta(fifo.DeltaOptions[obj]{Key: objKey, KnownObjects: st})
			tt.ops(q)
			require.Equal(t, tt.want, justDeltas(popAll(t, q, nil)))
		})
	}
}

func TestDeltaFIFOWithoutKnownObjectsQueuesEveryDelete(t *testing.T) {
	q := fifo.NewDelta(fifo.DeltaOptions[obj]{Key: objKey})
	require.NoError(t, q.Delete(o("a", 1)))
	require.NoError(t, q.Resync()) // nothing to resync without a store
	require.Equal(t, [][]string{{"Deleted a/1"}}, justDeltas(popAll(t, q, nil)))
}

func TestDeltaFIFORequeue(t *testing.T) {
	requeue := func([]fifo.Delta[obj], bool) error { return fifo.ErrRequeue }

	t.Run("put back at the end", func(t *testing.T) {
		q := fifo.NewDelta(fifo.DeltaOptions[obj]{Key: objKey})
		q.Add(o("a", 1))
		q.Add(o("b", 1))
		require.ErrorIs(t, q.Pop(context.Background(), requeue), fifo.ErrRequeue)
		require.Equal(t, [][]string{{"Added b/1"}, {"Added a/1"}}, justDeltas(popAll(t, q, nil)))
	})
	t.Run("newer deltas that arrived meanwhile win", func(t *testing.T) {
		q := fifo.NewDelta(fifo.DeltaOptions[obj]{Key: objKey})
		q.Add(o("a", 1))
		err := q.Pop(context.Background(), func([]fifo.Delta[obj], bool) error {
			q.Update(o("a", 2)) // a producer, while the consumer works
			return fifo.ErrRequeue
		})
		require.ErrorIs(t, err, fifo.ErrRequeue)
		require.Equal(t, [][]string{{"Updated a/2"}}, justDeltas(popAll(t, q, nil)))
	})
}

// TestReplaceWhileProcessing covers the key a Pop is working on outside the
// lock, for both queues: it is neither queued nor (yet) stored, yet a relist
// that lacks it must still report its deletion, and a resync must skip it.
func TestReplaceWhileProcessing(t *testing.T) {
	for name, newQueue := range map[string]func(*store) fifo.Queue[obj]{
		"DeltaFIFO": func(st *store) fifo.Queue[obj] {
			return fifo.NewDelta(fifo.DeltaOptions[obj]{Key: objKey, KnownObjects: st})
		},
		"InOrder": func(st *store) fifo.Queue[obj] {
			return fifo.NewInOrder(fifo.InOrderOptions[obj]{Key: objKey, KnownObjects: st})
		},
	} {
		t.Run(name, func(t *testing.T) {
			st := newStore()
			q := newQueue(st)
			q.Add(o("a", 1))
			err := q.Pop(context.Background(), func(ds []fifo.Delta[obj], _ bool) error {
				require.NoError(t, q.Resync())
				require.Equal(t, 0, q.Len(), "resync skips the in-flight key")
				require.NoError(t, q.Replace(nil, "10"))
				st.apply(ds[0])
				return nil
			})
			require.NoError(t, err)
			require.Equal(t, [][]string{{"Deleted? a/1"}}, justDeltas(popAll(t, q, st)))
			require.Empty(t, st.snapshot())
		})
	}
}

func TestDeltaFIFOHasSynced(t *testing.T) {
	t.Run("after the first replace's keys are processed", func(t *testing.T) {
		st := newStore()
		st.m["gone"] = o("gone", 1)
		q := fifo.NewDelta(fifo.DeltaOptions[obj]{Key: objKey, KnownObjects: st})
		require.False(t, q.HasSynced())
		q.Replace([]obj{o("a", 1), o("b", 1)}, "1")
		q.Add(o("c", 1)) // after the initial list
		var seen []string
		for q.Len() > 0 {
			require.NoError(t, q.Pop(context.Background(), func(ds []fifo.Delta[obj], initial bool) error {
				seen = append(seen, fmt.Sprintf("%s:%v:synced=%v", ds[0].Object.Key, initial, q.HasSynced()))
				return nil
			}))
		}
		require.Equal(t, []string{"a:true:synced=false", "b:true:synced=false", "gone:true:synced=false", "c:false:synced=true"}, seen)
		require.True(t, q.HasSynced())
	})
	t.Run("at once for an empty first replace", func(t *testing.T) {
		q := fifo.NewDelta(fifo.DeltaOptions[obj]{Key: objKey})
		q.Replace(nil, "1")
		require.True(t, q.HasSynced())
	})
	t.Run("at once when an add comes first", func(t *testing.T) {
		q := fifo.NewDelta(fifo.DeltaOptions[obj]{Key: objKey})
		q.Add(o("a", 1))
		require.True(t, q.HasSynced())
	})
}
