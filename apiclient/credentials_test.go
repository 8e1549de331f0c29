package apiclient_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	zkws "github.com/zerokube/zerokube/apiclient/websocket"
	"github.com/zerokube/zerokube/clock"
	"github.com/zerokube/zerokube/clock/clocktest"
	"github.com/zerokube/zerokube/meta"
)

// revokingServer accepts only its current token (any, for "*") and records, per request,
// the token it got, the answer it gave and the body it read.
type revokingServer struct {
	mu      sync.Mutex
	current string
	seen    []string // "token code body"
}

func (s *revokingServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	ok := got == s.current || s.current == "*"
	code := 200
	if !ok {
		code = 401
	}
	s.seen = append(s.seen, strings.TrimSpace(got+" "+itoa(code)+" "+string(body)))
	s.mu.Unlock()
	if !ok {
		writeStatus(w, 401, "Unauthorized", "Unauthorized", "")
		return
	}
	if websocket.IsWebSocketUpgrade(r) {
		conn, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err == nil {
			_ = conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""))
			_ = conn.Close()
		}
		return
	}
	_, _ = w.Write([]byte(`{"metadata":{"name":"x","namespace":"default"}}`))
}

func (s *revokingServer) rotate(tok string) {
	s.mu.Lock()
	s.current = tok
	s.mu.Unlock()
}

// requests returns what the server saw since the last call.
func (s *revokingServer) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.seen
	s.seen = nil
	return out
}

// rewrite replaces the token file's contents and gives it back its old
// modification time, as a second write within the file system's time
// granularity (or a copy that keeps times) leaves it.
func rewrite(t *testing.T, file, tok string) {
	t.Helper()
	fi, err := os.Stat(file)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(file, []byte(tok), 0o600))
	require.NoError(t, os.Chtimes(file, fi.ModTime(), fi.ModTime()))
	after, err := os.Stat(file)
	require.NoError(t, err)
	require.Equal(t, fi.ModTime(), after.ModTime())
	require.Equal(t, fi.Size(), after.Size(), "tokens of the same length")
}

func tokenFileClient(t *testing.T, rs *revokingServer, tok string, clk clock.Clock) (*apiclient.Client, string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(file, []byte(tok), 0o600))
	rs.rotate(tok)
	srv := httptest.NewServer(rs)
	t.Cleanup(srv.Close)
	c, err := apiclient.NewWithOptions(&apiclient.Config{Host: srv.URL, QPS: -1, BearerTokenFile: file},
		apiclient.Options{Logger: slog.New(slog.DiscardHandler), Clock: clk})
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	return c, file
}

func TestATokenRotatedUnseenIsReadAgainAfterA401AndTheRequestSentOnceMore(t *testing.T) {
	rs := &revokingServer{}
	c, file := tokenFileClient(t, rs, "token-aaaa", nil)
	ctx := context.Background()
	_, err := apiclient.Get[pod](ctx, c, podsRef, "x")
	require.NoError(t, err)
	require.Equal(t, []string{"token-aaaa 200"}, rs.requests())

	rewrite(t, file, "token-bbbb")
	rs.rotate("token-bbbb") // the old token is revoked
	_, err = apiclient.Get[pod](ctx, c, podsRef, "x")
	require.NoError(t, err)
	require.Equal(t, []string{"token-aaaa 401", "token-bbbb 200"}, rs.requests())
	_, err = apiclient.Get[pod](ctx, c, podsRef, "x")
	require.NoError(t, err)
	require.Equal(t, []string{"token-bbbb 200"}, rs.requests(), "the new token is kept")

	// A write is sent again too, body and all: a 401 comes before the
	// server does anything.
	rewrite(t, file, "token-cccc")
	rs.rotate("token-cccc")
	_, err = apiclient.Create(ctx, c, podsRef, &pod{ObjectMeta: meta.ObjectMeta{Name: "y"}})
	require.NoError(t, err)
	sent := rs.requests()
	require.Len(t, sent, 2)
	require.True(t, strings.HasPrefix(sent[0], "token-bbbb 401 {"), sent[0])
	require.Equal(t, strings.Replace(sent[0], "token-bbbb 401", "token-cccc 200", 1), sent[1])

	// So is a websocket watch's upgrade.
	rewrite(t, file, "token-dddd")
	rs.rotate("token-dddd")
	s, err := apiclient.Watch[pod](ctx, c, podsRef, apiclient.WatchOptions{Websocket: zkws.Dialer{}})
	require.NoError(t, err)
	s.Stop()
	require.Equal(t, []string{"token-cccc 401", "token-dddd 200"}, rs.requests())
}

func TestA401WithNoOtherCredentialsIsNotSentAgain(t *testing.T) {
	rs := &revokingServer{}
	c, _ := tokenFileClient(t, rs, "token-aaaa", nil)
	rs.rotate("token-zzzz") // the client has no such token
	_, err := apiclient.Get[pod](context.Background(), c, podsRef, "x")
	require.True(t, meta.IsUnauthorized(err), "%v", err)
	require.Equal(t, []string{"token-aaaa 401"}, rs.requests(), "the file holds the same token: no second try")
}

func TestATokenFileIsReadAgainEveryMinuteEvenWhenItLooksUnchanged(t *testing.T) {
	rs := &revokingServer{}
	clk := clocktest.New()
	c, file := tokenFileClient(t, rs, "token-aaaa", clk)
	rewrite(t, file, "token-bbbb")
	rs.rotate("*") // no 401s here: only the clock makes the client read the file
	get := func() []string {
		_, err := apiclient.Get[pod](context.Background(), c, podsRef, "x")
		require.NoError(t, err)
		return rs.requests()
	}
	clk.Advance(time.Minute - time.Nanosecond)
	require.Equal(t, []string{"token-aaaa 200"}, get(), "unchanged metadata, read less than a minute ago")
	clk.Advance(time.Nanosecond)
	require.Equal(t, []string{"token-bbbb 200"}, get(), "a minute later the file is read whatever its metadata")
}
