package clock_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/clock"
	"github.com/zerokube/zerokube/clock/clocktest"
)

func TestRealTimersFireAndStop(t *testing.T) {
	var c clock.Clock = clock.Real{}
	tm := c.NewTimer(time.Millisecond)
	select {
	case <-tm.C():
	case <-time.After(10 * time.Second):
		t.Fatal("the timer never fired")
	}
	fired := make(chan struct{})
	af := c.AfterFunc(time.Millisecond, func() { close(fired) })
	require.Nil(t, af.C(), "an AfterFunc timer has no channel")
	<-fired
	stopped := c.AfterFunc(time.Hour, func() { t.Error("a stopped timer fired") })
	require.True(t, stopped.Stop())
	require.False(t, c.Now().IsZero())
}

// Example shows the one way zerokube waits: on a Clock's timer, so a test
// can pass a fake one.
func Example() {
	var c clock.Clock = clock.Real{}
	t := c.NewTimer(time.Millisecond)
	defer t.Stop()
	<-t.C()
	// Output:
}

func TestSleepEndsWithTheContextsCause(t *testing.T) {
	c := clocktest.New()
	ctx, cancel := context.WithCancelCause(t.Context())
	stop := context.DeadlineExceeded
	done := make(chan error)
	go func() { done <- clock.Sleep(ctx, c, time.Hour) }()
	require.NoError(t, c.AwaitTimers(t.Context(), 1))
	cancel(stop)
	require.ErrorIs(t, <-done, stop)
	require.Zero(t, c.Pending(), "Sleep stops its timer")
	require.ErrorIs(t, clock.Sleep(ctx, c, 0), stop, "a done ctx wins over a zero wait")
	require.NoError(t, clock.Sleep(t.Context(), c, 0), "a zero wait needs no Advance")
	require.Zero(t, c.Pending())
}
