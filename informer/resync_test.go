package informer

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestAddingAHandlerDoesNotPostponeResync: a handler added 50 s into a
// 1-minute resync period must not restart the first handler's countdown;
// with handlers coming and going often enough, it would never resync.
func TestAddingAHandlerDoesNotPostponeResync(t *testing.T) {
	clk := newFakeClock()
	inf := newInformer[pod](newLiveLW(pods("a"), "5"), Options[*pod]{Clock: clk, Process: ProcessOptions{ResyncPeriod: time.Minute}, Observe: ObserveOptions{Logger: quiet()}})
	first := newView()
	_, err := inf.AddHandler(first, HandlerOptions{})
	require.NoError(t, err)
	startInformer(t, inf)
	require.NoError(t, inf.WaitForSync(t.Context()))
	timers := func() int { return len(clk.Delays()) }
	// Two timers: one at start, one after the signal of the first AddHandler.
	require.Eventually(t, func() bool { return timers() >= 2 }, wait, time.Millisecond)

	clk.Advance(50 * time.Second)
	before := timers()
	second := newView()
	_, err = inf.AddHandler(second, HandlerOptions{})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return timers() > before }, wait, time.Millisecond, "the resync loop saw the new handler")
	delays := clk.Delays()
	last := delays[len(delays)-1]
	require.Equal(t, 10*time.Second, last, "the first handler's resync is still due at 1 minute")

	clk.Advance(10 * time.Second)
	require.Eventually(t, func() bool { return len(first.lines()) >= 2 }, wait, time.Millisecond)
	require.Equal(t, "update a@1->1", first.lines()[1])
	require.Len(t, second.lines(), 1, "the second handler's period has 50 s to go")
}
