package reliability

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/apiclient/websocket"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
)

// TestAuthFailuresAreTyped: credentials the server refuses must surface as a
// *informer.SyncError with the matching reason, from WaitForSync (and from
// Run with FailFast), over every transport; the token never appears in it.
func TestAuthFailuresAreTyped(t *testing.T) {
	const good, bad = "good-token-0123456789", "stolen-token-9876543210"
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet(), TLS: true,
		Tokens: []fakeapiserver.Token{{Value: good, Resources: []string{"pods"}}}})
	for _, tc := range []struct {
		token  string
		reason observe.FailureReason
	}{
		{bad, observe.FailureUnauthorized},
		{"", observe.FailureUnauthorized},
		{good, observe.FailureForbidden}, // the token covers pods, not configmaps
	} {
		for _, failFast := range []bool{true, false} {
			for _, mode := range []string{"list", "streaming", "websocket"} {
				name := fmt.Sprintf("%s/failfast=%t/%s", tc.reason, failFast, mode)
				if tc.token == "" {
					name = "no token/" + name
				}
				t.Run(name, func(t *testing.T) {
					cfg := fakeapiservertest.ClientConfig(srv)
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
					opts := informer.Options[*object]{
						Transport: informer.Transport{Websocket: wsDialer(mode == "websocket")},
						Backoff:   informer.BackoffOptions{Initial: time.Millisecond, Max: 5 * time.Millisecond},
						Sync: informer.SyncOptions{
							FailFast:      failFast,
							StreamingList: mode == "streaming",
						},
						Observe: informer.ObserveOptions{Logger: logger},
					}
					inf := informer.New[object](c, allCMs, opts)
					ctx, cancel := context.WithCancel(context.Background())
					done := make(chan error, 1)
					go func() { done <- inf.Run(ctx) }()
					defer func() {
						cancel()
						<-done
					}()
					wait := 10 * time.Second // with FailFast, WaitForSync returns at the failure
					if !failFast {
						// Without it, WaitForSync waits for its context: end it
						// soon once a failure has been recorded.
						require.Eventually(t, func() bool { return inf.SyncError() != nil }, 10*time.Second, time.Millisecond)
						wait = 10 * time.Millisecond
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

// TestTokenFileRotationUnderARunningInformer rotates the service-account
// token the way kubelet does (a new file, the server accepting only the new
// token from then on) while an informer runs: after its watch is dropped it
// must come back with the new token, without a restart, and keep up.
func TestTokenFileRotationUnderARunningInformer(t *testing.T) {
	var current atomic.Value
	current.Store("token-one")
	var refused atomic.Int64
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet(), Intercept: func(r *http.Request, verb string) error {
		if r.Header.Get("Authorization") != "Bearer "+current.Load().(string) {
			refused.Add(1)
			return meta.NewStatusError(401, meta.ReasonUnauthorized, "Unauthorized")
		}
		return nil
	}})
	file := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(file, []byte("token-one"), 0o600))
	cfg := fakeapiservertest.ClientConfig(srv)
	cfg.BearerTokenFile = file
	c, err := apiclient.NewWithOptions(cfg, apiclient.Options{Logger: quiet(), Retry: apiclient.RetryOptions{MaxAttempts: 1}})
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	inf := informer.New[object](c, allCMs, informer.Options[*object]{
		Backoff: informer.BackoffOptions{Initial: 5 * time.Millisecond, Max: 50 * time.Millisecond},
		Observe: informer.ObserveOptions{Logger: quiet()},
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	defer func() { cancel(); require.NoError(t, <-done) }()
	require.NoError(t, inf.WaitForSync(ctx))
	put := func(name string) {
		_, err := srv.Create(cmGVR, map[string]any{"metadata": map[string]any{"name": name, "namespace": "default"}})
		require.NoError(t, err)
	}
	rotate := func(i int, tok string) {
		require.NoError(t, os.WriteFile(file, []byte(tok), 0o600))
		mt := time.Now().Add(time.Duration(i+1) * time.Minute)
		require.NoError(t, os.Chtimes(file, mt, mt))
	}
	for i, tok := range []string{"token-two", "token-three"} {
		require.NoError(t, srv.AwaitWatchers(ctx, 1))
		if i == 0 {
			// The file changes first, as kubelet rewrites it well before
			// the old token expires; then the server refuses the old one.
			rotate(i, tok)
			current.Store(tok)
			srv.DropWatches()
		} else {
			// The server refuses the old token before the file changes:
			// the informer gets 401s until it reads the new file.
			before := refused.Load()
			current.Store(tok)
			srv.DropWatches()
			require.Eventually(t, func() bool { return refused.Load() > before }, 10*time.Second, time.Millisecond)
			rotate(i, tok)
		}
		name := fmt.Sprintf("after-rotation-%d", i)
		put(name)
		require.Eventually(t, func() bool { _, ok := inf.Lister().Get("default", name); return ok },
			10*time.Second, time.Millisecond, "the informer resumed with %s", tok)
	}
	t.Logf("%d requests refused during the rotations", refused.Load())
}

// wsDialer is websocket.Dialer{} when ws, else nil: chunked HTTP.
func wsDialer(ws bool) apiclient.WebsocketDialer {
	if ws {
		return websocket.Dialer{}
	}
	return nil
}
