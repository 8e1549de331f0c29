package leaderelection_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/leaderelection"
)

// TestNewChecksTheConfig: the durations must nest as client-go requires
// (LeaseDuration > RenewDeadline > RetryPeriod), the Lease's duration is
// whole seconds, and the required fields are named in the error.
func TestNewChecksTheConfig(t *testing.T) {
	c := newClient(t, newServer(t), nil)
	ok := leaderelection.Config{Client: c, Namespace: "default", Name: "l", Identity: "a",
		OnStartedLeading: func(context.Context) {}}
	for _, tc := range []struct {
		name string
		edit func(*leaderelection.Config)
		want string // "" for valid
	}{
		{"defaults", func(*leaderelection.Config) {}, ""},
		{"no identity", func(c *leaderelection.Config) { c.Identity = "" }, "needs Client, Namespace, Name, Identity and OnStartedLeading"},
		{"no callback", func(c *leaderelection.Config) { c.OnStartedLeading = nil }, "OnStartedLeading"},
		{"renew deadline past the lease", func(c *leaderelection.Config) { c.RenewDeadline = 20 * time.Second },
			"need LeaseDuration (15s) > RenewDeadline (20s) > RetryPeriod (2s)"},
		{"retry period past the deadline", func(c *leaderelection.Config) { c.RetryPeriod = 10 * time.Second }, "> RetryPeriod (10s)"},
		{"lease in fractions of a second", func(c *leaderelection.Config) {
			c.LeaseDuration = 1500 * time.Millisecond
			c.RenewDeadline = time.Second
			c.RetryPeriod = time.Millisecond
		},
			"not whole seconds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := ok
			tc.edit(&cfg)
			_, err := leaderelection.New(cfg)
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.want)
		})
	}
}
