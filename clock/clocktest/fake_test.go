package clocktest_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/clock"
	"github.com/zerokube/zerokube/clock/clocktest"
)

func TestAdvanceFiresDueTimersInDueOrder(t *testing.T) {
	c := clocktest.New()
	var got []string
	c.AfterFunc(3*time.Second, func() { got = append(got, "3s") })
	c.AfterFunc(time.Second, func() {
		got = append(got, "1s")
		// Callbacks see the time Advance moved to (3 s): a timer they arm
		// for 0 is due, and this Advance fires it after the others due
		// earlier; one armed for 1 s is not due yet.
		c.AfterFunc(0, func() { got = append(got, "armed at 3s for 0") })
		c.AfterFunc(time.Second, func() { got = append(got, "armed at 3s for 1s") })
	})
	c.AfterFunc(time.Second, func() { got = append(got, "1s, armed second") })
	late := c.AfterFunc(time.Hour, func() { got = append(got, "1h") })
	tm := c.NewTimer(2 * time.Second)

	c.Advance(3 * time.Second)
	require.Equal(t, []string{"1s", "1s, armed second", "3s", "armed at 3s for 0"}, got)
	require.Equal(t, clocktest.Start.Add(3*time.Second), c.Now())
	select {
	case at := <-tm.C():
		require.Equal(t, c.Now(), at, "a timer sends the clock's time when it fires")
	default:
		t.Fatal("a NewTimer timer due by now did not fire")
	}
	require.Equal(t, 2, c.Pending(), "the hour timer and the one armed for 4 s are left")
	require.True(t, late.Stop())
	require.False(t, late.Stop(), "a stopped timer is no longer scheduled")
	c.Advance(time.Second)
	require.Equal(t, "armed at 3s for 1s", got[len(got)-1])
	require.Zero(t, c.Pending())
}

func TestStopAndResetDropAValueNotReceived(t *testing.T) {
	c := clocktest.New()
	tm := c.NewTimer(time.Second)
	c.Advance(time.Second)
	require.False(t, tm.Reset(time.Minute), "a timer that fired is not scheduled")
	c.Advance(time.Second)
	select {
	case <-tm.C():
		t.Fatal("a value from before Reset was received")
	default:
	}
	c.Advance(time.Minute)
	require.Equal(t, c.Now(), <-tm.C())
}

func TestInstantTimersFireAtOnceAndRecordTheirDelays(t *testing.T) {
	c := clocktest.New()
	c.SetInstant(true)
	for _, d := range []time.Duration{time.Second, 2 * time.Second} {
		require.NoError(t, clock.Sleep(t.Context(), c, d))
	}
	require.Equal(t, []time.Duration{time.Second, 2 * time.Second}, c.Delays())
	require.Equal(t, clocktest.Start, c.Now(), "instant timers do not move time")
}

func TestAwaitTimersWaitsForATimerArmedElsewhere(t *testing.T) {
	c := clocktest.New()
	slept := make(chan error)
	go func() { slept <- clock.Sleep(context.Background(), c, time.Minute) }()
	require.NoError(t, c.AwaitTimers(t.Context(), 1))
	c.Advance(time.Minute)
	require.NoError(t, <-slept)

	ctx, cancel := context.WithCancelCause(t.Context())
	cause := context.Canceled
	cancel(cause)
	require.ErrorIs(t, c.AwaitTimers(ctx, 1), cause, "no timer is armed; ctx ends the wait")
}
