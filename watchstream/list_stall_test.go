package watchstream_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/clock/clocktest"
	"github.com/zerokube/zerokube/watchstream"
)

const listHead = `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":[`

func listItem(i int) string {
	sep := ","
	if i == 0 {
		sep = ""
	}
	return sep + fmt.Sprintf(`{"metadata":{"name":"p%d","namespace":"ns"}}`, i)
}

// decodeAsync decodes a list from r with opts, counting the items, and
// reports the error on the channel.
func decodeAsync(r io.Reader, opts watchstream.Options, items *int) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := watchstream.DecodeList[testPod](r, opts, func(*testPod) error { *items++; return nil })
		done <- err
	}()
	return done
}

// A LIST page's watchdog counts items, not bytes: a body that trickles
// bytes and completes no item stalls (Problem Stalled, the same as a
// watch's stall); a page whose items keep coming within the bound is
// never cut, however long it takes in all; an item stepped over as
// undecodable is progress too (the server served it).
func TestAListStallsOnItemsNotBytes(t *testing.T) {
	const bound = 30 * time.Second
	t.Run("bytes without an item", func(t *testing.T) {
		clk := clocktest.New()
		pr, pw := io.Pipe()
		var items int
		done := decodeAsync(pr, watchstream.Options{StallTimeout: bound, Clock: clk}, &items)
		_, _ = pw.Write([]byte(listHead + listItem(0)))
		// The item restarted the watchdog: time the trickle from there.
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		require.NoError(t, clk.AwaitDeadline(ctx, clk.Now().Add(bound)), "the item restarted the watchdog")
		// The second item trickles, a byte per third of the bound: never
		// a whole item.
		for _, b := range []byte(listItem(1))[:8] {
			if _, err := pw.Write([]byte{b}); err != nil {
				break // the watchdog closed the body
			}
			clk.Advance(bound / 3)
		}
		err := <-done
		require.Equal(t, watchstream.Stalled, watchstream.ProblemOf(err), "%v", err)
		require.ErrorIs(t, err, watchstream.ErrStalled)
		require.Contains(t, err.Error(), "list item 2 ", "the second item, counted from 1")
		require.Contains(t, err.Error(), "stalled: no item for 30s")
		require.Equal(t, 1, items)
	})
	t.Run("items within the bound", func(t *testing.T) {
		clk := clocktest.New()
		pr, pw := io.Pipe()
		var items int
		done := decodeAsync(pr, watchstream.Options{StallTimeout: bound, Clock: clk}, &items)
		_, _ = pw.Write([]byte(listHead))
		for i := range 20 {
			awaitArmed(t, clk, i, bound)
			clk.Advance(bound - time.Second)
			_, _ = pw.Write([]byte(listItem(i)))
		}
		_, _ = pw.Write([]byte(`]}`))
		_ = pw.Close()
		require.NoError(t, <-done)
		require.Equal(t, 20, items)
	})
	t.Run("undecodable items count", func(t *testing.T) {
		clk := clocktest.New()
		pr, pw := io.Pipe()
		var items, skipped int
		opts := watchstream.Options{StallTimeout: bound, Clock: clk,
			SkipUndecodable: func(*watchstream.DecodeError) { skipped++ }}
		done := decodeAsync(pr, opts, &items)
		_, _ = pw.Write([]byte(listHead + listItem(0)))
		for i := 1; i < 10; i++ {
			awaitArmed(t, clk, i, bound)
			clk.Advance(bound - time.Second)
			_, _ = pw.Write([]byte(`,{"metadata":{"name":"x","labels":7}}`)) // labels as a number: does not fit
		}
		_, _ = pw.Write([]byte(`]}`))
		_ = pw.Close()
		require.NoError(t, <-done)
		require.Equal(t, 1, items)
		require.Equal(t, 9, skipped)
	})
}

// awaitArmed waits until the list's watchdog is armed at the current
// time for item i: the reader has taken item i-1 and waits for the next,
// so that the test's next step is timed from there.
func awaitArmed(t *testing.T, clk *clocktest.Fake, i int, bound time.Duration) {
	t.Helper()
	if i == 0 {
		bound = watchstream.ServerListTimeout + 5*time.Second // the first item's
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	require.NoError(t, clk.AwaitDeadline(ctx, clk.Now().Add(bound)), "the watchdog waits for item %d", i)
}

// The first item may take what kube-apiserver allows a LIST (60 s, its
// request timeout) and a little more, even with a shorter StallTimeout: a
// server that builds the whole page first sends nothing until it is built,
// and a watchdog that cut it sooner would retry it for ever.
func TestAListsFirstItemMayTakeWhatTheServerAllows(t *testing.T) {
	clk := clocktest.New()
	pr, pw := io.Pipe()
	var items int
	done := decodeAsync(pr, watchstream.Options{StallTimeout: 30 * time.Second, Clock: clk}, &items)
	require.NoError(t, clk.AwaitTimers(t.Context(), 1))
	clk.Advance(watchstream.ServerListTimeout)
	go func() {
		_, _ = pw.Write([]byte(listHead + listItem(0) + `]}`))
		_ = pw.Close()
	}()
	require.NoError(t, <-done)
	require.Equal(t, 1, items)

	clk = clocktest.New()
	pr, pw = io.Pipe()
	defer pw.Close()
	done = decodeAsync(pr, watchstream.Options{StallTimeout: 30 * time.Second, Clock: clk}, &items)
	require.NoError(t, clk.AwaitTimers(t.Context(), 1))
	clk.Advance(watchstream.ServerListTimeout + 5*time.Second)
	err := <-done
	require.Equal(t, watchstream.Stalled, watchstream.ProblemOf(err), "%v", err)
	require.True(t, strings.HasSuffix(err.Error(), "no item for 1m5s"), "%v", err)
}
