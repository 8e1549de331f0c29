package leaderelection_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
)

// TestSafetyUnderRandomFaults runs four candidates for ten minutes of
// world time, their clocks up to an hour apart, while faults come and go
// at random: a candidate cut off or
// healed, its writes answered up to 9 s late, the server restarted and down
// for up to 25 s, a leader stopped (and a fresh candidate started for every
// one whose Run returned). At no instant may two candidates lead (each new
// leader checks, as it starts, that no other work context is live; the
// terms are checked again at the end), and once the faults stop one
// candidate leads. The seed is logged; ZEROKUBE_LE_SEED replays one.
func TestSafetyUnderRandomFaults(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("ZEROKUBE_LE_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		require.NoError(t, err)
		seed = v
	}
	t.Logf("seed %d (replay with ZEROKUBE_LE_SEED=%d)", seed, seed)
	rnd := rand.New(rand.NewPCG(seed, 1))
	w := newWorld(t)
	live := make([]*cand, 4)
	n := 0
	// Each candidate's clock is off by up to an hour, either way, as the
	// clocks of machines are: only their rates must agree.
	fresh := func() *cand {
		n++
		return w.joinSkewed(fmt.Sprint("c", n), time.Duration(rnd.Int64N(int64(2*time.Hour)))-time.Hour)
	}
	for i := range live {
		live[i] = fresh()
	}
	var downUntil time.Time // the server answers 503 until then
	counts := map[string]int{}
	for w.clk.Now().Sub(clockStart(w)) < 10*time.Minute {
		for i, c := range live {
			if c.hasExited() {
				live[i] = fresh()
			}
		}
		c := live[rnd.IntN(len(live))]
		switch r := rnd.IntN(100); {
		case r < 15:
			c.net.set(true, 0)
			counts["cut"]++
		case r < 40:
			c.net.set(false, 0)
			counts["heal"]++
		case r < 50:
			c.net.set(false, time.Duration(rnd.IntN(9000))*time.Millisecond)
			counts["slow"]++
		case r < 55 && downUntil.IsZero():
			w.srv.Restart()
			w.srv.FailNext(fakeapiserver.Failure{Count: fakeapiserver.Forever, Code: 503})
			downUntil = w.clk.Now().Add(time.Duration(1+rnd.IntN(25)) * time.Second)
			counts["outage"]++
		case r < 60 && c.el.IsLeader():
			c.cancel()
			counts["stop leader"]++
		}
		if !downUntil.IsZero() && !w.clk.Now().Before(downUntil) {
			w.srv.ClearFaults()
			downUntil = time.Time{}
		}
		w.run(time.Duration(1+rnd.IntN(4)) * time.Second)
	}
	w.srv.ClearFaults()
	for _, c := range live {
		c.net.set(false, 0)
	}
	// The longest wait once all is well: a candidate that saw a renewal
	// only now counts a full lease, after a slowed answer still in flight.
	w.run(9*time.Second + lease + 2*retry)
	w.checkSafe(false)
	t.Logf("faults %v, %d candidates, %d terms", counts, n, len(w.terms))
	require.Len(t, w.leaders(), 1, "one leader once the faults stop")
	require.Greater(t, len(w.terms), 3, "leadership changed hands: the faults reached the leaders")
}

// clockStart is the world's first instant.
func clockStart(w *world) time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.start
}

func (c *cand) hasExited() bool {
	c.w.mu.Lock()
	defer c.w.mu.Unlock()
	return c.exited
}
