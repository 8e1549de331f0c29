package clock_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/clock"
)

func TestBackoffDoublesToMaxWithJitter(t *testing.T) {
	b := clock.Backoff{Initial: 800 * time.Millisecond, Max: 30 * time.Second, Jitter: 1}
	var got []time.Duration
	for n := range 8 {
		got = append(got, b.Delay(n, 0))
	}
	ms := time.Millisecond
	require.Equal(t, []time.Duration{800 * ms, 1600 * ms, 3200 * ms, 6400 * ms, 12800 * ms, 25600 * ms, 30 * time.Second, 30 * time.Second}, got)
	require.Equal(t, 1200*ms, b.Delay(0, 0.5), "jitter adds up to Jitter×delay")
	require.Equal(t, 45*time.Second, b.Delay(1000, 0.5), "no overflow after many failures; jitter on the capped delay")
	require.Equal(t, 800*ms, clock.Backoff{Initial: 800 * ms, Max: time.Minute}.Delay(-1, 0.9), "no jitter when Jitter is 0")
}
