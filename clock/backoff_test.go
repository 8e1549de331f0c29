package clock_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/clock"
)

func TestBackoffDoublesToItsCapWithJitter(t *testing.T) {
	b := clock.Backoff{Initial: 800 * time.Millisecond, Max: 30 * time.Second, Jitter: 1}
	var got []time.Duration
	for n := range 8 {
		got = append(got, b.Delay(n, 0))
	}
	ms := time.Millisecond
	// The doubling stops at Max/(1+Jitter): 15 s, so that 15 s plus up to
	// 100 % jitter stays within the 30 s cap.
	require.Equal(t, []time.Duration{800 * ms, 1600 * ms, 3200 * ms, 6400 * ms, 12800 * ms, 15 * time.Second, 15 * time.Second, 15 * time.Second}, got)
	require.Equal(t, 1200*ms, b.Delay(0, 0.5), "jitter adds up to Jitter×delay")
	require.Equal(t, 22500*ms, b.Delay(1000, 0.5), "no overflow after many failures; jitter spreads the capped delay")
	require.Equal(t, 800*ms, clock.Backoff{Initial: 800 * ms, Max: time.Minute}.Delay(-1, 0.9), "no jitter when Jitter is 0")
	require.Equal(t, time.Minute, clock.Backoff{Initial: 800 * ms, Max: time.Minute}.Delay(100, 0.9), "without jitter the cap is Max itself")
}

// The cap is a promise: no failure count and no draw of the jitter waits
// longer than Max (client-go's jitter comes after its cap, up to twice it).
func TestBackoffNeverWaitsPastItsCap(t *testing.T) {
	for _, b := range []clock.Backoff{
		{Initial: 800 * time.Millisecond, Max: 30 * time.Second, Jitter: 1},
		{Initial: time.Second, Max: 10 * time.Second, Jitter: 0.3},
		{Initial: 5 * time.Millisecond, Max: 1000 * time.Second, Jitter: 3},
	} {
		for n := range 80 {
			for _, r := range []float64{0, 0.25, 0.5, 0.999999} {
				d := b.Delay(n, r)
				require.LessOrEqual(t, d, b.Max, "%+v: failures %d, r %v", b, n, r)
				require.Positive(t, d)
			}
		}
	}
}
