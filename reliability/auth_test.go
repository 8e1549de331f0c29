package reliability

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/informer"
)

// TestAuthFailuresAreTyped: credentials the server refuses must surface as a
// *informer.SyncError with the matching reason, from WaitForSync (and from
// Run with FailFast), over every transport; the token never appears in it.
func TestAuthFailuresAreTyped(t *testing.T) {
	const good, bad = "good-token-0123456789", "stolen-token-9876543210"
	srv := fakeapiserver.Start(t, fakeapiserver.Options{Logger: quiet(), TLS: true,
		Tokens: []fakeapiserver.Token{{Value: good, Resources: []string{"pods"}}}})
	for _, tc := range []struct {
		token  string
		reason informer.FailureReason
	}{
		{bad, informer.FailureUnauthorized},
		{"", informer.FailureUnauthorized},
		{good, informer.FailureForbidden}, // the token covers pods, not configmaps
	} {
		for _, failFast := range []bool{true, false} {
			for _, mode := range []string{"list", "streaming", "websocket"} {
				name := fmt.Sprintf("%s/failfast=%t/%s", tc.reason, failFast, mode)
				if tc.token == "" {
					name = "no token/" + name
				}
				t.Run(name, func(t *testing.T) {
					cfg := srv.ClientConfig()
					cfg.BearerToken = tc.token
					var logs bytes.Buffer // written by Run's goroutines, read after Run returns
					var logMu sync.Mutex
					logger := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
						logMu.Lock()
						defer logMu.Unlock()
						return logs.Write(p)
					}), &slog.HandlerOptions{Level: slog.LevelDebug}))
					c, err := apiclient.NewWithOptions(cfg, apiclient.Options{Logger: logger})
					require.NoError(t, err)
					t.Cleanup(c.CloseIdleConnections)
					defer func() {
						logMu.Lock()
						defer logMu.Unlock()
						if !failFast {
							require.NotEmpty(t, logs.String(), "retried failures are logged")
						}
						for _, tok := range []string{good, bad} {
							require.NotContains(t, logs.String(), tok, "a token reached the logs")
						}
					}()
					opts := informer.Options[*object]{Logger: logger, FailFast: failFast, StreamingList: mode == "streaming",
						Selectors: informer.Selectors{Websocket: mode == "websocket"},
						Backoff:   informer.BackoffOptions{Initial: time.Millisecond, Max: 5 * time.Millisecond}}
					inf := informer.NewForResource[object](c, allCMs, opts)
					ctx, cancel := context.WithCancel(context.Background())
					done := make(chan error, 1)
					go func() { done <- inf.Run(ctx) }()
					defer func() {
						cancel()
						<-done
					}()
					wait := 300 * time.Millisecond // long enough for a few failed attempts
					if failFast {
						wait = 10 * time.Second // WaitForSync returns at the failure
					}
					wctx, wcancel := context.WithTimeout(context.Background(), wait)
					defer wcancel()
					err = inf.WaitForSync(wctx)
					var se *informer.SyncError
					require.ErrorAs(t, err, &se)
					require.Equal(t, tc.reason, se.Reason, "%v", err)
					if tc.token != "" {
						require.NotContains(t, err.Error(), tc.token)
					}
					if failFast {
						select {
						case runErr := <-done:
							done <- runErr // for the deferred wait
							require.True(t, errors.As(runErr, &se), "Run returns the SyncError: %v", runErr)
						case <-time.After(5 * time.Second):
							t.Fatal("FailFast: Run did not stop on a permanent failure")
						}
					} else {
						require.ErrorIs(t, err, context.DeadlineExceeded, "without FailFast the wait ends with its context")
						require.False(t, inf.HasSynced())
					}
				})
			}
		}
	}
}

// writerFunc adapts a function to io.Writer.
type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
