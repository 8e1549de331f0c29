package workqueue

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// get takes an item that must be queued already, so it never blocks.
func get[K comparable](t *testing.T, q *Queue[K]) K {
	t.Helper()
	require.Positive(t, q.Len(), "nothing queued")
	item, err := q.Get(context.Background())
	require.NoError(t, err)
	return item
}

func TestAddDeduplicatesQueuedItems(t *testing.T) {
	q := New[string](Options[string]{})
	for _, k := range []string{"a", "b", "a", "a", "c", "b"} {
		q.Add(k)
	}
	require.Equal(t, 3, q.Len())
	for _, want := range []string{"a", "b", "c"} { // invariant 3: first-queued order
		require.Equal(t, want, get(t, q))
	}
	require.Zero(t, q.Len())
}

func TestItemAddedWhileProcessingIsRequeuedOnDone(t *testing.T) {
	q := New[string](Options[string]{})
	q.Add("a")
	require.Equal(t, "a", get(t, q))
	q.Add("a") // a worker holds it: must not be handed out again yet
	q.Add("a")
	require.Zero(t, q.Len(), "an item held by a worker was queued again")
	q.Done("a")
	require.Equal(t, 1, q.Len())
	require.Equal(t, "a", get(t, q))
	q.Done("a")
	require.Zero(t, q.Len(), "Done without a new Add must not requeue")
	q.Done("never-got") // harmless
	require.Zero(t, q.Len())
}

func TestGetBlocksUntilAdd(t *testing.T) {
	q := New[int](Options[int]{})
	got := make(chan int)
	go func() {
		item, err := q.Get(context.Background())
		if err == nil {
			got <- item
		}
		close(got)
	}()
	q.Add(7)
	require.Equal(t, 7, <-got)
	q.ShutDown()
}

func TestGetReturnsContextCause(t *testing.T) {
	q := New[int](Options[int]{})
	cause := errors.New("worker stopping")
	ctx, cancel := context.WithCancelCause(context.Background())
	errc := make(chan error)
	go func() {
		_, err := q.Get(ctx)
		errc <- err
	}()
	cancel(cause)
	require.ErrorIs(t, <-errc, cause)
}

func TestShutDownHandsOutBacklogThenStops(t *testing.T) {
	q := New[string](Options[string]{})
	q.Add("a")
	q.Add("b")
	q.ShutDown()
	q.Add("late") // ignored
	q.ShutDown()  // idempotent
	require.True(t, q.ShuttingDown())
	require.Equal(t, "a", get(t, q))
	require.Equal(t, "b", get(t, q))
	_, err := q.Get(context.Background())
	require.ErrorIs(t, err, ErrShutDown)
}

func TestShutDownWakesEveryWaitingGet(t *testing.T) {
	q := New[int](Options[int]{})
	const workers = 5
	errc := make(chan error, workers)
	for range workers {
		go func() {
			_, err := q.Get(context.Background())
			errc <- err
		}()
	}
	q.ShutDown()
	for range workers {
		require.ErrorIs(t, <-errc, ErrShutDown)
	}
}

func TestShutDownWithDrainWaitsForDone(t *testing.T) {
	q := New[string](Options[string]{})
	q.Add("held")
	q.Add("queued")
	require.Equal(t, "held", get(t, q))

	drained := make(chan error)
	go func() { drained <- q.ShutDownWithDrain(context.Background()) }()

	require.Equal(t, "queued", get(t, q)) // workers keep draining the backlog
	q.Done("queued")
	select {
	case err := <-drained:
		t.Fatalf("drain returned (%v) while an item was held", err)
	default:
	}
	q.Done("held")
	require.NoError(t, <-drained)
	require.NoError(t, q.ShutDownWithDrain(context.Background()), "drain again when already drained")
}

func TestShutDownWithDrainGivesUpWithContext(t *testing.T) {
	q := New[string](Options[string]{})
	q.Add("held")
	get(t, q)
	ctx, cancel := context.WithTimeoutCause(context.Background(), time.Millisecond, errors.New("drain budget"))
	defer cancel()
	require.EqualError(t, q.ShutDownWithDrain(ctx), "drain budget")
}

// TestNoItemIsProcessedTwiceAtOnce hammers the queue with adders and workers
// and checks invariant 2 directly: a per-item counter of workers holding it
// never exceeds one, and every item added is processed after its last add.
func TestNoItemIsProcessedTwiceAtOnce(t *testing.T) {
	q := New[int](Options[int]{})
	const items, adders, workers, adds = 20, 4, 8, 3000
	var (
		mu      sync.Mutex
		holding = map[int]int{}
		pending = map[int]bool{} // added and not yet processed since
	)
	var ww sync.WaitGroup
	for range workers {
		ww.Add(1)
		go func() {
			defer ww.Done()
			for {
				item, err := q.Get(context.Background())
				if err != nil {
					return
				}
				mu.Lock()
				holding[item]++
				if holding[item] > 1 {
					t.Errorf("item %d held by %d workers", item, holding[item])
				}
				pending[item] = false
				mu.Unlock()
				mu.Lock()
				holding[item]--
				mu.Unlock()
				q.Done(item)
			}
		}()
	}
	var aw sync.WaitGroup
	for a := range adders {
		aw.Add(1)
		go func() {
			defer aw.Done()
			for i := range adds {
				item := (i*7 + a) % items
				mu.Lock()
				pending[item] = true // before Add: a worker may take it at once
				mu.Unlock()
				q.Add(item)
			}
		}()
	}
	aw.Wait()
	require.NoError(t, q.ShutDownWithDrain(context.Background()))
	ww.Wait()
	for item, p := range pending {
		require.False(t, p, "item %d added but never processed after", item)
	}
}

// TestDrainedQueueGivesABurstsRoomBack: a burst of keys (a relist's
// handler calls, each adding its key) grows the queue to one slot per key;
// once the workers have taken them all it holds none of that room, as the
// informer's queues do (internal/ring, invariant 3).
func TestDrainedQueueGivesABurstsRoomBack(t *testing.T) {
	q := New[int](Options[int]{})
	for i := range 10_000 {
		q.Add(i)
	}
	require.GreaterOrEqual(t, q.fifo.Cap(), 10_000)
	for q.Len() > 0 {
		q.Done(get(t, q))
	}
	require.Zero(t, q.fifo.Cap(), "a drained queue after a burst of 10,000")
}

// cancelledOnWake is a context that is live when Get first checks it and
// cancelled from then on: the interleaving in which a Get is woken by an Add
// and its context ends before it takes the item.
type cancelledOnWake struct {
	context.Context
	checks atomic.Int32
}

func (c *cancelledOnWake) Err() error {
	if c.checks.Add(1) > 1 {
		return context.Canceled
	}
	return nil
}

// awaitParkedGets waits until n goroutines block in Get's select.
func awaitParkedGets(t *testing.T, n int) {
	t.Helper()
	buf := make([]byte, 1<<20)
	require.Eventually(t, func() bool {
		parked := 0
		for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
			if strings.Contains(g, "[select") && strings.Contains(g, "workqueue.(*Queue[...]).Get(") {
				parked++
			}
		}
		return parked == n
	}, 10*time.Second, time.Millisecond)
}

// Regression: a Get woken by an Add whose context then ended returned
// without passing the wake-up on, so another Get waited forever beside a
// queued item.
func TestAGetThatGivesUpPassesItsWakeUpOn(t *testing.T) {
	q := New[int](Options[int]{})
	defer q.ShutDown()
	first := &cancelledOnWake{Context: context.Background()}
	errc := make(chan error, 1)
	go func() {
		_, err := q.Get(first)
		errc <- err
	}()
	awaitParkedGets(t, 1) // first in the wake-up channel's queue
	got := make(chan int, 1)
	go func() {
		if item, err := q.Get(context.Background()); err == nil {
			got <- item
		}
	}()
	awaitParkedGets(t, 2)
	q.Add(7) // wakes the first Get, whose context has ended by then
	require.ErrorIs(t, <-errc, context.Canceled)
	select {
	case item := <-got:
		require.Equal(t, 7, item)
	case <-time.After(10 * time.Second):
		t.Fatal("the second Get never took the queued item")
	}
}
