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

// With WholeRelists the Pop after a Replace hands over every key queued at
// its end as one batch, each key's deltas together; later events join the
// batch only through a key it holds, and a second Replace merges into it.
func TestDeltaFIFOWholeRelistsPopAsOneBatch(t *testing.T) {
	tests := []struct {
		name  string
		known []obj
		ops   func(q *fifo.DeltaFIFO[obj])
		want  []popped
	}{{
		name:  "listed keys, tombstones and keys queued before, then what came after",
		known: []obj{o("a", 1), o("b", 1)},
		ops: func(q *fifo.DeltaFIFO[obj]) {
			q.Add(o("x", 1))
			q.Replace([]obj{o("a", 2), o("c", 1)}, "5")
			q.Add(o("d", 1))    // a key the relist does not hold: after it
			q.Update(o("a", 3)) // a key it holds: joins a's deltas
		},
		want: []popped{
			{[]string{"Added x/1", "Deleted? x/1", "Replaced a/2", "Updated a/3", "Replaced c/1", "Deleted? b/1"}, false},
			{[]string{"Added d/1"}, false},
		},
	}, {
		name:  "a known key deleted between Replace and Pop",
		known: []obj{o("a", 1), o("b", 1)},
		ops: func(q *fifo.DeltaFIFO[obj]) {
			q.Replace([]obj{o("a", 1), o("b", 2)}, "5")
			q.Delete(o("a", 1))
			q.Delete(o("b", 2))
			q.Delete(o("b", 2)) // collapses
		},
		want: []popped{{[]string{"Replaced a/1", "Deleted a/1", "Replaced b/2", "Deleted b/2"}, true}},
	}, {
		name: "a second Replace before the Pop merges into the initial batch",
		ops: func(q *fifo.DeltaFIFO[obj]) {
			q.Replace([]obj{o("a", 1), o("b", 1)}, "1")
			q.Add(o("e", 1))
			q.Replace([]obj{o("b", 2), o("c", 1), o("e", 1)}, "2")
			q.Add(o("f", 1))
		},
		want: []popped{
			{[]string{"Replaced a/1", "Deleted? a/1", "Replaced b/1", "Replaced b/2", "Added e/1", "Replaced e/1", "Replaced c/1"}, true},
			{[]string{"Added f/1"}, false},
		},
	}, {
		name:  "a Replace that lists nothing still pops as one batch",
		known: []obj{o("a", 1), o("b", 1)},
		ops: func(q *fifo.DeltaFIFO[obj]) {
			q.Replace(nil, "5")
		},
		want: []popped{{[]string{"Deleted? a/1", "Deleted? b/1"}, true}},
	}, {
		name: "an empty first Replace syncs at once; a one-key relist pops alone",
		ops: func(q *fifo.DeltaFIFO[obj]) {
			q.Replace(nil, "1")
			q.Add(o("a", 1))
			q.Replace([]obj{o("b", 1)}, "2")
		},
		want: []popped{{[]string{"Added a/1", "Deleted? a/1", "Replaced b/1"}, false}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := newStore()
			for _, x := range tt.known {
				st.m[x.Key] = x
			}
			q := fifo.NewDelta(fifo.DeltaOptions[obj]{Key: objKey, KnownObjects: st, WholeRelists: true})
			tt.ops(q)
			require.Equal(t, tt.want, popAll(t, q, st))
			require.True(t, q.HasSynced())
		})
	}
}

// The initial batch counts as one: HasSynced turns true only once the whole
// of it has been processed, and a requeued batch comes back whole, at the
// head, still initial, with the newer deltas of its keys (they win, as for
// one key) and a relist that came meanwhile merged in.
func TestDeltaFIFOWholeRelistSyncAndRequeue(t *testing.T) {
	st := newStore()
	q := fifo.NewDelta(fifo.DeltaOptions[obj]{Key: objKey, KnownObjects: st, WholeRelists: true})
	require.NoError(t, q.Replace([]obj{o("a", 1), o("b", 1)}, "1"))
	err := q.Pop(context.Background(), func(ds []fifo.Delta[obj], initial bool) error {
		require.True(t, initial)
		require.False(t, q.HasSynced())
		require.NoError(t, q.Add(o("z", 1)))                            // a new key: stays behind
		require.NoError(t, q.Update(o("a", 2)))                         // newer deltas for a key of the batch
		require.NoError(t, q.Replace([]obj{o("a", 3), o("c", 1)}, "2")) // a relist while this one is out
		return fifo.ErrRequeue
	})
	require.ErrorIs(t, err, fifo.ErrRequeue)
	require.ErrorContains(t, err, "relist of 2 keys")
	require.False(t, q.HasSynced(), "a requeued initial batch is still initial")
	require.Equal(t, []popped{
		// b's newer tombstone replaces its requeued Replaced, as for one key.
		{[]string{"Updated a/2", "Replaced a/3", "Deleted? b/1", "Added z/1", "Deleted? z/1", "Replaced c/1"}, true},
	}, popAll(t, q, st))
	require.True(t, q.HasSynced())
	require.Equal(t, map[string]obj{"a": o("a", 3), "c": o("c", 1)}, st.snapshot())

	// A Replace while a batch is processed makes a batch of its own, after it.
	require.NoError(t, q.Replace([]obj{o("a", 4), o("b", 1)}, "3"))
	err = q.Pop(context.Background(), func(ds []fifo.Delta[obj], initial bool) error {
		require.False(t, initial)
		require.Equal(t, []string{"Replaced a/4", "Replaced b/1", "Deleted? c/1"}, deltaStrings(ds))
		require.NoError(t, q.Replace([]obj{o("b", 2)}, "4"))
		for _, d := range ds {
			st.apply(d)
		}
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, []popped{{[]string{"Replaced b/2", "Deleted? a/4"}, false}}, popAll(t, q, st))
}

// Relists that come while the initial batch is being processed do not join
// it: HasSynced turns true when that batch is done, and they pop after it,
// merged into one batch that is not initial. (Counting the second of them
// into the initial population would keep HasSynced false for ever.)
func TestDeltaFIFORelistsDuringTheInitialBatchAreNotInitial(t *testing.T) {
	st := newStore()
	q := fifo.NewDelta(fifo.DeltaOptions[obj]{Key: objKey, KnownObjects: st, WholeRelists: true})
	require.NoError(t, q.Replace([]obj{o("a", 1)}, "1"))
	require.NoError(t, q.Pop(context.Background(), func(ds []fifo.Delta[obj], initial bool) error {
		require.True(t, initial)
		require.NoError(t, q.Replace([]obj{o("a", 2), o("b", 1)}, "2"))
		require.NoError(t, q.Replace([]obj{o("a", 3), o("b", 2), o("c", 1)}, "3"))
		for _, d := range ds {
			st.apply(d)
		}
		return nil
	}))
	require.True(t, q.HasSynced())
	require.Equal(t, []popped{
		{[]string{"Replaced a/2", "Replaced a/3", "Replaced b/1", "Replaced b/2", "Replaced c/1"}, false},
	}, popAll(t, q, st))
	require.True(t, q.HasSynced())
}
