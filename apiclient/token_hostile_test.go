package apiclient_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/internal/testutil"
	"github.com/zerokube/zerokube/meta"
)

// rotatingServer accepts only the current token; it answers 500 to the
// first request of each token (so the client logs a retry), and 401 to
// any other token, echoing what it got in the message the way a careless
// proxy might.
type rotatingServer struct {
	current atomic.Value // string
	seen    sync.Map     // token → struct{}
}

func (s *rotatingServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	if got != s.current.Load().(string) {
		writeStatus(w, 401, "Unauthorized", "Unauthorized", "")
		return
	}
	if _, dup := s.seen.LoadOrStore(got, struct{}{}); !dup {
		writeStatus(w, 500, "InternalError", "try again", "")
		return
	}
	_, _ = w.Write([]byte(`{"metadata":{"name":"x"}}`))
}

// projectToken writes a kubelet-style projected token: dir/token is a
// symlink through dir/..data to a timestamped directory, and a rotation
// swaps ..data atomically.
func projectToken(t *testing.T, dir, token string, gen int) {
	t.Helper()
	ts := filepath.Join(dir, "..gen"+itoa(gen))
	require.NoError(t, os.Mkdir(ts, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(ts, "token"), []byte(token), 0o600))
	// A later generation always carries a later mtime, as a fresh file does.
	mt := time.Now().Add(time.Duration(gen) * time.Second)
	require.NoError(t, os.Chtimes(filepath.Join(ts, "token"), mt, mt))
	tmp := filepath.Join(dir, "..data_tmp")
	require.NoError(t, os.Symlink(filepath.Base(ts), tmp))
	require.NoError(t, os.Rename(tmp, filepath.Join(dir, "..data")))
	if gen == 1 {
		require.NoError(t, os.Symlink(filepath.Join("..data", "token"), filepath.Join(dir, "token")))
	}
}

func TestProjectedTokenRotationIsPickedUpAndNeverLogged(t *testing.T) {
	tokens := []string{"eyJhbGciOiJSUzI1NiJ9.first-secret", "eyJhbGciOiJSUzI1NiJ9.second-secret-longer", "eyJhbGciOiJSUzI1NiJ9.third"}
	dir := t.TempDir()
	projectToken(t, dir, tokens[0], 1)
	rs := &rotatingServer{}
	rs.current.Store(tokens[0])
	srv := httptest.NewServer(rs)
	t.Cleanup(srv.Close)
	var logs testutil.SyncBuffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, err := apiclient.NewWithOptions(&apiclient.Config{Host: srv.URL, QPS: -1, BearerTokenFile: filepath.Join(dir, "token")},
		apiclient.Options{Logger: logger, Retry: apiclient.RetryOptions{MaxAttempts: 5}, Clock: instantClock()})
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	var errs []string
	get := func() error {
		_, err := apiclient.Get[pod](context.Background(), c, podsRef, "x")
		if err != nil {
			errs = append(errs, err.Error())
		}
		return err
	}
	require.NoError(t, get(), "a 500 is retried with the same token")
	for i, tok := range tokens[1:] {
		rs.current.Store(tok) // the server rotates first: the old token is refused
		err := get()
		require.True(t, meta.IsUnauthorized(err), "%v", err)
		projectToken(t, dir, tok, i+2)
		require.NoError(t, get(), "the client reads the rotated file without a restart")
	}
	require.NoError(t, os.RemoveAll(filepath.Join(dir, "..data"))) // a rotation caught half way
	require.NoError(t, get(), "a vanished file keeps the last token")
	out := logs.String() + strings.Join(errs, "\n")
	require.Contains(t, logs.String(), "retrying a read", "the test must exercise the logging paths")
	require.Contains(t, logs.String(), "bearer token file changed")
	require.Contains(t, logs.String(), "keeping the previous bearer token")
	for _, tok := range tokens {
		require.NotContains(t, out, tok)
		require.NotContains(t, out, tok[len(tok)-8:], "not even a tail of the token")
	}
}
