package fifo_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fifo"
)

// model drives a queue with random operations and checks it against a plain
// map: server is the truth, st the consumer's store built only from popped
// deltas. Whenever the queue is drained and no event was missed since the
// last Replace, st must equal server.
type model struct {
	t      *testing.T
	rng    *rand.Rand
	q      fifo.Queue[obj]
	st     *store
	server map[string]obj
	ver    int
	perKey bool // DeltaFIFO: a pop holds one key's deltas, or a relist's keys each with theirs
	missed bool // server changed without the queue hearing of it
	inPop  bool
}

const modelKeys = 24

func (m *model) key() string { return fmt.Sprintf("k%02d", m.rng.IntN(modelKeys)) }

func (m *model) next(k string) obj {
	m.ver++
	return o(k, m.ver)
}

func (m *model) serverList() []obj {
	keys := slices.Sorted(maps.Keys(m.server))
	list := make([]obj, len(keys))
	for i, k := range keys {
		list[i] = m.server[k]
	}
	return list
}

// write is a watch event the queue hears about (or, if silent, misses).
func (m *model) write(silent bool) {
	k := m.key()
	old, exists := m.server[k]
	var err error
	switch {
	case !exists:
		m.server[k] = m.next(k)
		if !silent {
			err = m.q.Add(m.server[k])
		}
	case m.rng.IntN(3) == 0:
		delete(m.server, k)
		if !silent {
			err = m.q.Delete(old)
		}
	default:
		m.server[k] = m.next(k)
		if !silent {
			err = m.q.Update(m.server[k])
		}
	}
	require.NoError(m.t, err)
	m.missed = m.missed || silent
}

func (m *model) replace() {
	require.NoError(m.t, m.q.Replace(m.serverList(), "rv"))
	m.missed = false
}

// step runs one random operation. Inside process (m.inPop) it never pops:
// that is how the test simulates producers racing a slow consumer,
// deterministically.
func (m *model) step() {
	r := m.rng.IntN(100)
	if m.inPop {
		r = m.rng.IntN(60) // producers only; replaces are 1 in 12
	}
	switch {
	case r < 45:
		m.write(false)
	case r < 50:
		m.write(true)
	case r < 55:
		m.replace()
	case r < 58:
		require.NoError(m.t, m.q.Resync())
	case r < 60:
		m.tryPopBusy()
	case r < 94:
		if m.q.Len() > 0 { // an empty queue would block Pop forever
			m.pop(true)
		}
	default:
		m.drainAndCheck()
	}
}

// tryPopBusy checks TryPop where it must not pop: inside a process call
// (another consumer holds the turn) and on an empty queue.
func (m *model) tryPopBusy() {
	if !m.inPop && m.q.Len() > 0 {
		return
	}
	popped, err := m.q.TryPop(func([]fifo.Delta[obj], bool) error {
		m.t.Fatal("TryPop processed while another consumer held the turn, or with nothing queued")
		return nil
	})
	require.NoError(m.t, err)
	require.False(m.t, popped)
}

// pop takes one pop unit with Pop or, at random, TryPop: both hand over
// the same batches under the same rules.
func (m *model) pop(chaos bool) {
	pop := func(process func([]fifo.Delta[obj], bool) error) error {
		return m.q.Pop(context.Background(), process)
	}
	if m.rng.IntN(2) == 0 {
		pop = func(process func([]fifo.Delta[obj], bool) error) error {
			popped, err := m.q.TryPop(process)
			require.True(m.t, popped, "TryPop with %d queued", m.q.Len())
			return err
		}
	}
	err := pop(func(ds []fifo.Delta[obj], _ bool) error {
		m.checkBatch(ds)
		if chaos && m.rng.IntN(3) == 0 {
			m.inPop = true
			for range 1 + m.rng.IntN(3) {
				m.step()
			}
			m.inPop = false
		}
		if chaos && m.rng.IntN(10) == 0 {
			return fmt.Errorf("try later: %w", fifo.ErrRequeue)
		}
		for _, d := range ds {
			if d.Type == fifo.Sync {
				// Resync only queues keys with nothing pending, so a
				// Sync always repeats exactly what the store holds.
				got, ok := m.st.GetByKey(d.Object.Key)
				require.True(m.t, ok, "Sync of %v not in store", d.Object)
				require.Equal(m.t, d.Object, got, "stale Sync")
			}
			m.st.apply(d)
		}
		return nil
	})
	if err != nil {
		require.ErrorIs(m.t, err, fifo.ErrRequeue)
	}
}

func (m *model) checkBatch(ds []fifo.Delta[obj]) {
	require.NotEmpty(m.t, ds)
	if !m.perKey {
		return
	}
	done := map[string]bool{} // keys whose deltas ended earlier in the pop
	for i, d := range ds {
		k := d.Object.Key
		if i > 0 && ds[i-1].Object.Key != k {
			done[ds[i-1].Object.Key] = true
			require.False(m.t, done[k], "one key's deltas together: %v", deltaStrings(ds))
			continue
		}
		if i > 0 && d.Type == fifo.Deleted {
			require.NotEqual(m.t, fifo.Deleted, ds[i-1].Type, "deletes collapse: %v", deltaStrings(ds))
		}
	}
}

func (m *model) drainAndCheck() {
	for m.q.Len() > 0 {
		m.pop(false)
	}
	if !m.missed {
		require.Equal(m.t, m.server, m.st.snapshot())
	}
}

func TestModel(t *testing.T) {
	for _, k := range kinds() {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			for seed := range uint64(modelSeeds) {
				st := newStore()
				m := &model{
					t: t, rng: rand.New(rand.NewPCG(seed, 7)), st: st,
					q: k.new(st), server: map[string]obj{}, perKey: strings.HasPrefix(k.name, "DeltaFIFO"),
				}
				for range 8 {
					m.write(true)
				}
				m.replace()
				for range 1500 {
					m.step()
				}
				m.replace()
				m.drainAndCheck()
				require.Equal(t, m.server, st.snapshot(), "seed %d", seed)
				require.True(t, m.q.HasSynced(), "seed %d", seed)
				m.q.Close()
				require.ErrorIs(t, m.q.Pop(context.Background(), nil), fifo.ErrClosed)
				popped, err := m.q.TryPop(nil)
				require.ErrorIs(t, err, fifo.ErrClosed)
				require.False(t, popped)
				require.ErrorIs(t, m.q.Add(o("x", 1)), fifo.ErrClosed)
			}
		})
	}
}

// TestModelRequeueErrorIsReturned checks the error surface of a requeue:
// the caller sees the cause, and errors.Is still finds ErrRequeue.
func TestModelRequeueErrorIsReturned(t *testing.T) {
	for _, k := range kinds() {
		t.Run(k.name, func(t *testing.T) {
			q := k.new(nil)
			require.NoError(t, q.Add(o("a", 1)))
			cause := errors.New("store busy")
			err := q.Pop(context.Background(), func([]fifo.Delta[obj], bool) error {
				return errors.Join(cause, fifo.ErrRequeue)
			})
			require.ErrorIs(t, err, cause)
			require.ErrorIs(t, err, fifo.ErrRequeue)
			require.Equal(t, 1, q.Len(), "requeued")

			err = q.Pop(context.Background(), func([]fifo.Delta[obj], bool) error { return cause })
			require.ErrorIs(t, err, cause)
			require.Equal(t, 0, q.Len(), "a plain error drops the deltas")
			q.Close()
		})
	}
}
