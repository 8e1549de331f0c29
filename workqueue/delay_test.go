package workqueue

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/zerokube/zerokube/internal/clock/clocktest"
)

func TestAddAfterQueuesWhenDue(t *testing.T) {
	clock := clocktest.New()
	q := New[string](Options[string]{Clock: clock})
	q.AddAfter("late", 30*time.Second)
	q.AddAfter("soon", 10*time.Second)
	q.AddAfter("now", 0)
	q.AddAfter("past", -time.Second)
	require.Equal(t, 2, q.Len(), "non-positive delays queue at once")
	require.Equal(t, "now", get(t, q))
	require.Equal(t, "past", get(t, q))

	steps := []struct {
		step time.Duration
		want []string
	}{
		{9 * time.Second, nil},
		{time.Second, []string{"soon"}},
		{19 * time.Second, nil},
		{time.Second, []string{"late"}},
	}
	for i, s := range steps {
		clock.Advance(s.step)
		require.Equal(t, len(s.want), q.Len(), "step %d", i)
		for _, w := range s.want {
			require.Equal(t, w, get(t, q), "step %d", i)
		}
	}
	require.Zero(t, clock.Pending(), "a timer left armed with nothing waiting")
}

func TestAddAfterKeepsTheEarlierTime(t *testing.T) {
	clock := clocktest.New()
	q := New[string](Options[string]{Clock: clock})
	q.AddAfter("a", 10*time.Second)
	q.AddAfter("a", 20*time.Second) // later: ignored
	q.AddAfter("a", 5*time.Second)  // earlier: wins
	require.Equal(t, 1, clock.Pending(), "one timer for the earliest item only")
	clock.Advance(5 * time.Second)
	require.Equal(t, 1, q.Len())
	require.Equal(t, "a", get(t, q))
	clock.Advance(time.Hour)
	require.Zero(t, q.Len(), "a waited once, so it is queued once")
}

func TestAddAfterOfAQueuedItemDeduplicates(t *testing.T) {
	clock := clocktest.New()
	q := New[string](Options[string]{Clock: clock})
	q.Add("a")
	q.AddAfter("a", time.Second)
	clock.Advance(time.Second)
	require.Equal(t, 1, q.Len())
}

func TestShutDownDropsWaitingItems(t *testing.T) {
	clock := clocktest.New()
	q := New[string](Options[string]{Clock: clock})
	q.AddAfter("a", time.Second)
	q.ShutDown()
	require.Zero(t, clock.Pending(), "timer not stopped")
	q.AddAfter("b", time.Second)
	clock.Advance(time.Minute)
	require.Zero(t, q.Len())
}

func TestItemBackoffDoublesToCap(t *testing.T) {
	b := NewItemBackoff[string](5*time.Millisecond, time.Second)
	want := []time.Duration{5, 10, 20, 40, 80, 160, 320, 640, 1000, 1000}
	for i, w := range want {
		require.Equal(t, w*time.Millisecond, b.When("x"), "failure %d", i+1)
	}
	require.Equal(t, len(want), b.NumRequeues("x"))
	require.Equal(t, 5*time.Millisecond, b.When("y"), "items back off independently")
	b.Forget("x")
	require.Zero(t, b.NumRequeues("x"))
	require.Equal(t, 5*time.Millisecond, b.When("x"))
	for range 2000 { // no overflow however many failures
		require.LessOrEqual(t, b.When("z"), time.Second)
	}
}

func TestBucketSpacesRetriesAfterBurst(t *testing.T) {
	clock := clocktest.New()
	b := NewBucket[string](rate.NewLimiter(10, 3), clock)
	want := []time.Duration{0, 0, 0, 100 * time.Millisecond, 200 * time.Millisecond}
	for i, w := range want {
		require.Equal(t, w, b.When("any"), "retry %d", i+1)
	}
	clock.Advance(time.Second) // tokens refill with time
	require.Zero(t, b.When("any"))
	require.Zero(t, b.NumRequeues("any"))
}

func TestDefaultRateLimiterTakesTheLarger(t *testing.T) {
	clock := clocktest.New()
	l := DefaultRateLimiter[int](clock)
	// Within the burst, the per-item backoff decides.
	require.Equal(t, 5*time.Millisecond, l.When(1))
	require.Equal(t, 10*time.Millisecond, l.When(1))
	// After the burst of 100 (two tokens taken above), the bucket decides.
	for i := range 98 {
		l.When(1000 + i)
	}
	require.Equal(t, 100*time.Millisecond, l.When(2))
	require.Equal(t, 2, l.NumRequeues(1))
	l.Forget(1)
	require.Zero(t, l.NumRequeues(1))
}

func TestAddRateLimitedRetriesWithBackoff(t *testing.T) {
	clock := clocktest.New()
	q := New[string](Options[string]{Clock: clock})
	q.Add("a")
	for failure, wait := range []time.Duration{5, 10, 20} {
		require.Equal(t, "a", get(t, q))
		q.AddRateLimited("a") // the worker failed
		q.Done("a")
		require.Zero(t, q.Len(), "failure %d: retried before its backoff", failure+1)
		clock.Advance(wait*time.Millisecond - 1)
		require.Zero(t, q.Len(), "failure %d: retried early", failure+1)
		clock.Advance(1)
		require.Equal(t, 1, q.Len(), "failure %d: not retried", failure+1)
	}
	require.Equal(t, 3, q.NumRequeues("a"))
	q.Forget("a")
	require.Zero(t, q.NumRequeues("a"))
}
