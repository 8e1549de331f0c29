package informer

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
)

// After the server was out of reach, a backoff grown during the outage
// (15 s here) is cut short by the first probe the server answers: asked
// once a second, so the informer is back within about a second of a heal,
// with one cheap request a second meanwhile. A failure from a server that
// answered is waited out whole, with no probe.
func TestABackoffAfterAnOutageEndsWhenTheServerAnswersAgain(t *testing.T) {
	refused := errors.New("dial tcp 127.0.0.1:1: connect: connection refused")
	for _, tc := range []struct {
		name   string
		err    error
		probes int
		delays []time.Duration
	}{
		{"unreachable, back after three probes", refused, 3, []time.Duration{time.Second, time.Second, time.Second}},
		{"a 503 is waited out", statusErr(503, meta.ReasonServiceUnavailable), 0, []time.Duration{15 * time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			probes := 0
			r, _, clk := testReflector(t, &scriptLW{}, func(c *reflectorConfig[*pod]) {
				c.probe = func(context.Context) error {
					probes++
					if probes < 3 {
						return refused
					}
					return nil
				}
			})
			clk.SetInstant(true)
			for range 6 { // failures enough to grow the backoff to its 15 s top
				r.rec.failed(clk.Now(), tc.err)
			}
			require.Equal(t, observe.FailureUnreachable == classify(tc.err, 0), tc.probes > 0)
			s := r.step(t.Context(), backingOff{err: tc.err, next: watchOpening{rv: "7"}})
			require.Equal(t, watchOpening{rv: "7"}, s)
			require.Equal(t, tc.probes, probes)
			require.Equal(t, tc.delays, clk.Delays())
		})
	}
}
