package fifo_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fifo"
)

// waitErr waits for one error from ch, failing the test after a generous
// deadline instead of hanging the suite.
func waitErr(t *testing.T, ch <-chan error) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("Pop did not return")
		return nil
	}
}

func popInBackground(q fifo.Queue[obj], ctx context.Context) <-chan error {
	ch := make(chan error, 1)
	go func() {
		ch <- q.Pop(ctx, func([]fifo.Delta[obj], bool) error { return nil })
	}()
	return ch
}

func TestCloseUnblocksPop(t *testing.T) {
	for _, k := range kinds() {
		t.Run(k.name, func(t *testing.T) {
			q := k.new(nil)
			// Two waiters: one holds the consumer turn, one waits for it.
			a, b := popInBackground(q, context.Background()), popInBackground(q, context.Background())
			q.Close()
			q.Close() // idempotent
			require.ErrorIs(t, waitErr(t, a), fifo.ErrClosed)
			require.ErrorIs(t, waitErr(t, b), fifo.ErrClosed)
			for _, err := range []error{q.Add(o("a", 1)), q.Update(o("a", 1)), q.Delete(o("a", 1)), q.Replace(nil, ""), q.Resync()} {
				require.ErrorIs(t, err, fifo.ErrClosed)
			}
		})
	}
}

func TestContextCancelUnblocksPop(t *testing.T) {
	for _, k := range kinds() {
		t.Run(k.name, func(t *testing.T) {
			q := k.new(nil)
			defer q.Close()
			ctx, cancel := context.WithCancel(context.Background())
			a, b := popInBackground(q, ctx), popInBackground(q, ctx)
			cancel()
			require.ErrorIs(t, waitErr(t, a), context.Canceled)
			require.ErrorIs(t, waitErr(t, b), context.Canceled)

			// A cancelled context wins even over queued work.
			require.NoError(t, q.Add(o("a", 1)))
			require.ErrorIs(t, waitErr(t, popInBackground(q, ctx)), context.Canceled)
			require.Equal(t, 1, q.Len())
		})
	}
}

func TestPopWakesOnAdd(t *testing.T) {
	for _, k := range kinds() {
		t.Run(k.name, func(t *testing.T) {
			q := k.new(nil)
			defer q.Close()
			got := make(chan []string, 1)
			go func() {
				_ = q.Pop(context.Background(), func(ds []fifo.Delta[obj], _ bool) error {
					got <- deltaStrings(ds)
					return nil
				})
			}()
			require.NoError(t, q.Add(o("a", 1)))
			select {
			case ds := <-got:
				require.Equal(t, []string{"Added a/1"}, ds)
			case <-time.After(10 * time.Second):
				t.Fatal("Pop did not wake")
			}
		})
	}
}

// A queue nudges a waiting Pop only when a delta lands in an empty queue:
// bursts separated by the consumer draining the queue (and going back to
// waiting) must each wake it.
func TestPopWakesForEveryBurst(t *testing.T) {
	for _, k := range kinds() {
		t.Run(k.name, func(t *testing.T) {
			q := k.new(nil)
			defer q.Close()
			var mu sync.Mutex
			popped := 0
			go func() {
				for q.Pop(context.Background(), func(ds []fifo.Delta[obj], _ bool) error {
					mu.Lock()
					popped += len(ds)
					mu.Unlock()
					return nil
				}) == nil {
				}
			}()
			count := func() int { mu.Lock(); defer mu.Unlock(); return popped }
			for round := range 30 {
				for i := range 3 {
					require.NoError(t, q.Add(o(fmt.Sprintf("k%d-%d", round, i), 1)))
				}
				deadline := time.Now().Add(10 * time.Second)
				for count() < 3*(round+1) {
					if time.Now().After(deadline) {
						t.Fatalf("round %d: Pop not woken (%d popped)", round, count())
					}
					runtime.Gosched()
				}
			}
		})
	}
}

// TestConcurrentProducersAndConsumers runs writers, a relister and a
// resyncer against two consumer goroutines under -race, then checks that
// the store converged to the writers' final state and that no key was ever
// processed by two consumers at once.
func TestConcurrentProducersAndConsumers(t *testing.T) {
	for _, k := range kinds() {
		t.Run(k.name, func(t *testing.T) {
			st := newStore()
			q := k.new(st)
			const writers, perWriter = 4, 400
			var busy sync.Map // key -> struct{} while a consumer applies it
			consume := func(ctx context.Context) error {
				for {
					err := q.Pop(ctx, func(ds []fifo.Delta[obj], _ bool) error {
						for _, d := range ds {
							if _, dup := busy.LoadOrStore(d.Object.Key, struct{}{}); dup {
								return fmt.Errorf("key %s processed concurrently", d.Object.Key)
							}
							st.apply(d)
							busy.Delete(d.Object.Key)
						}
						return nil
					})
					if errors.Is(err, fifo.ErrClosed) {
						return nil
					}
					if err != nil {
						return err
					}
				}
			}
			ctx := context.Background()
			errs := make(chan error, 2)
			for range 2 {
				go func() { errs <- consume(ctx) }()
			}
			var wg sync.WaitGroup
			final := make([]map[string]obj, writers)
			for w := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					final[w] = writeMany(t, q, w, perWriter)
				}()
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 50 {
					assert.NoError(t, q.Resync())
					if i%5 == 0 { // a relist that misses everything
						assert.NoError(t, q.Replace(nil, "gap"))
					}
				}
			}()
			wg.Wait()
			want := union(final)
			// Every writer owns its keys, so a relist of the union is the
			// truth; after it drains the store must match exactly.
			require.NoError(t, q.Replace(values(want), "end"))
			require.Eventually(t, func() bool { return q.Len() == 0 && equal(st.snapshot(), want) },
				10*time.Second, time.Millisecond)
			q.Close()
			require.NoError(t, <-errs)
			require.NoError(t, <-errs)
		})
	}
}

// TestProducersThatProcessTheirOwnWrites has every producer process what
// it queued on its own goroutine, TryPop until false, with no consumer
// loop: once every producer has returned nothing may be left queued (a
// producer that found the turn taken relies on the holder to look again),
// no key is processed by two producers at once, and the store holds the
// writers' final state.
func TestProducersThatProcessTheirOwnWrites(t *testing.T) {
	for _, k := range kinds() {
		t.Run(k.name, func(t *testing.T) {
			st := newStore()
			q := k.new(st)
			defer q.Close()
			var busy sync.Map // key -> struct{} while a producer applies it
			var failed atomic.Value
			process := func(ds []fifo.Delta[obj], _ bool) error {
				for _, d := range ds {
					if _, dup := busy.LoadOrStore(d.Object.Key, struct{}{}); dup {
						failed.Store(fmt.Sprintf("key %s processed concurrently", d.Object.Key))
					}
					st.apply(d)
					busy.Delete(d.Object.Key)
				}
				return nil
			}
			drain := func() {
				for {
					popped, err := q.TryPop(process)
					if err != nil {
						failed.Store(err.Error())
					}
					if !popped {
						return
					}
				}
			}
			const writers, perWriter = 4, 400
			var wg sync.WaitGroup
			final := make([]map[string]obj, writers)
			for w := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					final[w] = writeMany(t, processing{Queue: q, drain: drain}, w, perWriter)
				}()
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 50 {
					assert.NoError(t, q.Resync())
					drain()
					if i%5 == 0 { // a relist that misses everything
						assert.NoError(t, q.Replace(nil, "gap"))
						drain()
					}
				}
			}()
			wg.Wait()
			require.Nil(t, failed.Load())
			require.Zero(t, q.Len(), "left queued after every producer returned")
			require.True(t, q.Drained())
			want := union(final)
			require.NoError(t, q.Replace(values(want), "end"))
			drain()
			require.Nil(t, failed.Load())
			require.Equal(t, want, st.snapshot())
		})
	}
}

// union merges the final states of writers that each own their keys.
func union(final []map[string]obj) map[string]obj {
	want := map[string]obj{}
	for _, m := range final {
		maps.Copy(want, m)
	}
	return want
}

// processing is a queue whose writes are each followed by drain.
type processing struct {
	fifo.Queue[obj]
	drain func()
}

func (p processing) Add(x obj) error    { defer p.drain(); return p.Queue.Add(x) }
func (p processing) Update(x obj) error { defer p.drain(); return p.Queue.Update(x) }
func (p processing) Delete(x obj) error { defer p.drain(); return p.Queue.Delete(x) }

// writeMany adds, updates and deletes keys owned by writer w, returning
// the final state it produced.
func writeMany(t *testing.T, q fifo.Queue[obj], w, n int) map[string]obj {
	state := map[string]obj{}
	for i := range n {
		k := fmt.Sprintf("w%d-%d", w, i%16)
		old, ok := state[k]
		switch {
		case !ok:
			state[k] = o(k, i)
			assert.NoError(t, q.Add(state[k]))
		case i%5 == 0:
			delete(state, k)
			assert.NoError(t, q.Delete(old))
		default:
			state[k] = o(k, i)
			assert.NoError(t, q.Update(state[k]))
		}
	}
	return state
}

func values(m map[string]obj) []obj {
	out := make([]obj, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

func equal(a, b map[string]obj) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// Drained is false from a write until the Pop that takes it has finished
// processing, including while process runs.
func TestDrainedCoversTheBatchBeingProcessed(t *testing.T) {
	for _, k := range kinds() {
		t.Run(k.name, func(t *testing.T) {
			q := k.new(nil)
			defer q.Close()
			require.True(t, q.Drained(), "a new queue")
			require.NoError(t, q.Add(o("a", 1)))
			require.False(t, q.Drained(), "a queued delta")
			inside := make(chan bool, 1)
			require.NoError(t, q.Pop(context.Background(), func([]fifo.Delta[obj], bool) error {
				inside <- q.Drained()
				return nil
			}))
			require.False(t, <-inside, "while process runs")
			require.True(t, q.Drained(), "after Pop returned")
		})
	}
}
