package fifo_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fifo"
)

func TestInOrder(t *testing.T) {
	tests := []struct {
		name  string
		known []obj
		batch int
		ops   func(q *fifo.InOrder[obj])
		want  [][]string
	}{{
		name:  "every delta in arrival order, nothing merged, in batches",
		batch: 2,
		ops: func(q *fifo.InOrder[obj]) {
			q.Add(o("a", 1))
			q.Add(o("b", 1))
			q.Update(o("a", 2))
			q.Delete(o("a", 2))
			q.Delete(o("a", 2))
		},
		want: [][]string{{"Added a/1", "Added b/1"}, {"Updated a/2", "Deleted a/2"}, {"Deleted a/2"}},
	}, {
		name:  "replace: listed objects, then tombstones for vanished known ones",
		known: []obj{o("a", 1), o("b", 1)},
		ops: func(q *fifo.InOrder[obj]) {
			q.Replace([]obj{o("a", 2), o("c", 1)}, "10")
		},
		want: [][]string{{"Replaced a/2", "Replaced c/1", "Deleted? b/1"}},
	}, {
		name:  "replace: queued objects never stored get a tombstone with their newest state",
		known: []obj{o("k", 1)},
		ops: func(q *fifo.InOrder[obj]) {
			q.Add(o("q", 1))
			q.Update(o("q", 2))
			q.Update(o("k", 2))
			q.Add(o("d", 1))
			q.Delete(o("d", 1)) // already going away: no tombstone
			q.Replace(nil, "10")
		},
		want: [][]string{{"Added q/1", "Updated q/2", "Updated k/2", "Added d/1", "Deleted d/1", "Deleted? q/2", "Deleted? k/2"}},
	}, {
		name:  "resync skips keys with queued deltas",
		known: []obj{o("a", 1), o("b", 1)},
		ops: func(q *fifo.InOrder[obj]) {
			q.Update(o("b", 2))
			q.Resync()
		},
		want: [][]string{{"Updated b/2", "Sync a/1"}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := newStore()
			for _, x := range tt.known {
				st.m[x.Key] = x
			}
			q := fifo.NewInOrder(fifo.InOrderOptions[obj]{Key: objKey, KnownObjects: st, BatchSize: tt.batch})
			tt.ops(q)
			require.Equal(t, tt.want, justDeltas(popAll(t, q, nil)))
		})
	}
}

func TestInOrderBatchNeverMixesInitialList(t *testing.T) {
	st := newStore()
	st.m["gone"] = o("gone", 1)
	q := fifo.NewInOrder(fifo.InOrderOptions[obj]{Key: objKey, KnownObjects: st, BatchSize: 10})
	q.Replace([]obj{o("a", 1), o("b", 1)}, "1")
	q.Add(o("c", 1))
	q.Add(o("d", 1))
	require.False(t, q.HasSynced())
	require.Equal(t, []popped{
		{[]string{"Replaced a/1", "Replaced b/1", "Deleted? gone/1"}, true},
		{[]string{"Added c/1", "Added d/1"}, false},
	}, popAll(t, q, nil))
	require.True(t, q.HasSynced())
}

func TestInOrderRequeueGoesBackToTheFront(t *testing.T) {
	q := fifo.NewInOrder(fifo.InOrderOptions[obj]{Key: objKey, BatchSize: 2})
	q.Replace([]obj{o("a", 1), o("b", 1)}, "1")
	q.Add(o("c", 1))
	err := q.Pop(context.Background(), func(ds []fifo.Delta[obj], initial bool) error {
		require.True(t, initial)
		q.Add(o("d", 1)) // arrives while the batch is out
		return fifo.ErrRequeue
	})
	require.ErrorIs(t, err, fifo.ErrRequeue)
	require.False(t, q.HasSynced(), "a requeued initial batch is still initial")
	require.Equal(t, []popped{
		{[]string{"Replaced a/1", "Replaced b/1"}, true},
		{[]string{"Added c/1", "Added d/1"}, false},
	}, popAll(t, q, nil))
}

func TestNewPanicsOnBadOptions(t *testing.T) {
	require.PanicsWithValue(t, "fifo: DeltaOptions.Key is required", func() { fifo.NewDelta(fifo.DeltaOptions[obj]{}) })
	require.PanicsWithValue(t, "fifo: InOrderOptions.Key is required", func() { fifo.NewInOrder(fifo.InOrderOptions[obj]{}) })
	require.Panics(t, func() { fifo.NewInOrder(fifo.InOrderOptions[obj]{Key: objKey, BatchSize: -1}) })
}

func TestDeltaTypeString(t *testing.T) {
	for typ, want := range map[fifo.DeltaType]string{
		fifo.Added: "Added", fifo.Updated: "Updated", fifo.Deleted: "Deleted",
		fifo.Replaced: "Replaced", fifo.Sync: "Sync", 0: "DeltaType(0)", 9: "DeltaType(9)",
	} {
		require.Equal(t, want, typ.String())
	}
}

// With WholeRelists a Replace pops as one batch, whatever the batch size,
// and never shares it with the deltas queued before or after it; a requeued
// relist comes back whole.
func TestInOrderWholeRelistsPopAsOneBatch(t *testing.T) {
	st := newStore()
	st.m["gone"] = o("gone", 1)
	q := fifo.NewInOrder(fifo.InOrderOptions[obj]{Key: objKey, KnownObjects: st, BatchSize: 2, WholeRelists: true})
	q.Add(o("x", 1))
	q.Replace([]obj{o("a", 1), o("b", 1), o("c", 1)}, "5")
	q.Add(o("d", 1))
	q.Add(o("e", 1))
	var got [][]string
	requeued := false
	for q.Len() > 0 {
		err := q.Pop(context.Background(), func(ds []fifo.Delta[obj], _ bool) error {
			if len(ds) == 5 && !requeued {
				requeued = true
				return fifo.ErrRequeue
			}
			got = append(got, deltaStrings(ds))
			return nil
		})
		if err != nil {
			require.ErrorIs(t, err, fifo.ErrRequeue)
		}
	}
	require.True(t, requeued)
	require.Equal(t, [][]string{
		{"Added x/1"},
		{"Replaced a/1", "Replaced b/1", "Replaced c/1", "Deleted? x/1", "Deleted? gone/1"},
		{"Added d/1", "Added e/1"},
	}, got)
}

// A relist of one delta is a relist too: it pops alone, never grouped with
// the deltas queued after it (a batch would mix the relist, which the
// informer applies as one swap, with ordinary changes).
func TestInOrderOneDeltaRelistPopsAlone(t *testing.T) {
	for _, tc := range []struct {
		name  string
		list  []obj
		relst []string
	}{
		{"one object", []obj{o("a", 2)}, []string{"Replaced a/2"}},
		{"one tombstone", nil, []string{"Deleted? a/1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := newStore()
			q := fifo.NewInOrder(fifo.InOrderOptions[obj]{Key: objKey, KnownObjects: st, BatchSize: 10, WholeRelists: true})
			q.Replace([]obj{o("a", 1)}, "1")
			require.Equal(t, []popped{{[]string{"Replaced a/1"}, true}}, popAll(t, q, nil))
			st.m["a"] = o("a", 1)
			q.Replace(tc.list, "2")
			q.Add(o("d", 1))
			q.Add(o("e", 1))
			require.Equal(t, []popped{
				{tc.relst, false},
				{[]string{"Added d/1", "Added e/1"}, false},
			}, popAll(t, q, nil))
		})
	}
}
