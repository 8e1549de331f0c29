package clock_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/internal/clock"
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
