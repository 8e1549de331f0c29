package workqueue

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/zerokube/zerokube/clock"
	"github.com/zerokube/zerokube/clock/clocktest"
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
		advance(t, clock, s.step)
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
	advance(t, clock, 5*time.Second)
	require.Equal(t, 1, q.Len())
	require.Equal(t, "a", get(t, q))
	advance(t, clock, time.Hour)
	require.Zero(t, q.Len(), "a waited once, so it is queued once")
}

func TestAddAfterOfAQueuedItemDeduplicates(t *testing.T) {
	clock := clocktest.New()
	q := New[string](Options[string]{Clock: clock})
	q.Add("a")
	q.AddAfter("a", time.Second)
	advance(t, clock, time.Second)
	require.Equal(t, 1, q.Len())
}

func TestShutDownDropsWaitingItems(t *testing.T) {
	clock := clocktest.New()
	q := New[string](Options[string]{Clock: clock})
	q.AddAfter("a", time.Second)
	q.ShutDown()
	require.Zero(t, clock.Pending(), "timer not stopped")
	q.AddAfter("b", time.Second)
	advance(t, clock, time.Minute)
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
	advance(t, clock, time.Second) // tokens refill with time
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
		advance(t, clock, wait*time.Millisecond-1)
		require.Zero(t, q.Len(), "failure %d: retried early", failure+1)
		advance(t, clock, 1)
		require.Equal(t, 1, q.Len(), "failure %d: not retried", failure+1)
	}
	require.Equal(t, 3, q.NumRequeues("a"))
	q.Forget("a")
	require.Zero(t, q.NumRequeues("a"))
}

// advance moves clk by d, and fails the test if the move has not returned
// within a few seconds: a queue that re-arms a timer for an item already due
// makes the fake clock's Advance fire it again for ever, and a test must then
// fail at once rather than hang the package until go test's timeout.
func advance(t testing.TB, clk *clocktest.Fake, d time.Duration) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		clk.Advance(d)
	}()
	deadline := time.NewTimer(2 * time.Second)
	defer deadline.Stop()
	select {
	case <-done:
	case <-deadline.C:
		t.Fatalf("the fake clock's Advance(%s) has not returned: a timer re-arms itself for ever", d)
	}
}

// handClock is a Clock whose AfterFunc timers fire only when the test says
// so: unlike the fake's Advance, which fires every timer due and so would
// spin forever on a queue that re-arms a zero timer instead of queueing an
// item, a test on it can see one firing and stop.
type handClock struct {
	now   time.Time
	armed []handTimer
}

type handTimer struct {
	at time.Time
	f  func()
}

func (c *handClock) Now() time.Time { return c.now }
func (c *handClock) NewTimer(time.Duration) clock.Timer {
	panic("handClock: NewTimer is not used by AddAfter")
}
func (c *handClock) AfterFunc(d time.Duration, f func()) clock.Timer {
	c.armed = append(c.armed, handTimer{at: c.now.Add(d), f: f})
	return stoppedTimer{}
}

type stoppedTimer struct{}

func (stoppedTimer) C() <-chan time.Time      { return nil }
func (stoppedTimer) Stop() bool               { return true }
func (stoppedTimer) Reset(time.Duration) bool { return false }

// TestAnItemDueExactlyNowIsQueuedWhenItsTimerFires: the timer armed for an
// item fires at its due time, not after it; the item is due then and is
// queued by that firing, with no timer left to arm. Regression guard for a
// due test of "at before now": such a queue re-arms a zero timer for ever,
// which on the fake clock hung the whole package's tests.
func TestAnItemDueExactlyNowIsQueuedWhenItsTimerFires(t *testing.T) {
	clk := &handClock{now: time.Unix(1000, 0)}
	q := New[string](Options[string]{Clock: clk})
	q.AddAfter("a", time.Second)
	require.Len(t, clk.armed, 1)
	fire := clk.armed[0]
	require.Equal(t, clk.now.Add(time.Second), fire.at)
	clk.armed, clk.now = nil, fire.at // exactly the due time, as a timer fires
	fire.f()
	require.Equal(t, 1, q.Len(), "the item due exactly now is queued by its timer")
	require.Empty(t, clk.armed, "no timer re-armed for an item that was due")
}
