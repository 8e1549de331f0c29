package fakeapiserver_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
)

// A slowed LIST sends its headers and After bytes, then nothing until the
// client leaves; a corrupted one inverts every byte after After; the next
// LIST is whole again.
func TestSlowAndCorruptBodies(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	u := srv.URL() + "/api/v1/namespaces/default/configmaps"
	_, whole := getBody(t, context.Background(), u)

	srv.SlowBodies(fakeapiserver.SlowBody{Count: 1, Verb: "list", After: 10})
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "GET", u, nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err, "the headers come at once")
	require.Equal(t, 200, resp.StatusCode)
	head := make([]byte, 10)
	_, err = io.ReadFull(resp.Body, head)
	require.NoError(t, err)
	require.Equal(t, whole[:10], head)
	more := make(chan error, 1)
	go func() { _, err := resp.Body.Read(make([]byte, 1)); more <- err }()
	select {
	case err := <-more:
		t.Fatalf("a stalled body went on: %v", err)
	case <-time.After(50 * time.Millisecond): // nothing comes: the stall itself
	}
	cancel()
	require.Error(t, <-more, "the client left")
	resp.Body.Close()

	srv.CorruptBodies(fakeapiserver.CorruptBody{Count: 1, Verb: "list", After: 4})
	_, bad := getBody(t, context.Background(), u)
	require.Len(t, bad, len(whole))
	require.Equal(t, whole[:4], bad[:4])
	for i := 4; i < len(whole); i++ {
		require.Equal(t, whole[i]^0xff, bad[i], "byte %d", i)
	}
	_, again := getBody(t, context.Background(), u)
	require.Equal(t, whole, again)
	require.Equal(t, int64(1), srv.Stats().Faults[fakeapiserver.FaultSlowBody])
	require.Equal(t, int64(1), srv.Stats().Faults[fakeapiserver.FaultCorruptBody])
}

func getBody(t *testing.T, ctx context.Context, u string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, "GET", u, nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, b
}

// A body fault on a websocket watch slows its frames, as it slows a
// chunked body's bytes: the upgrade itself succeeds (it was a 500, which
// no API server answers a watch with), the first frame starts and stops.
func TestSlowBodiesOnAWebsocketWatch(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	createPods(t, srv, 1)
	srv.SlowBodies(fakeapiserver.SlowBody{Count: 1, Verb: "watch", After: 4})
	wsURL := "ws" + strings.TrimPrefix(srv.URL(), "http") + "/api/v1/pods?watch=1"
	conn, resp, err := websocket.DefaultDialer.Dial(wsURL, http.Header{"Origin": {srv.URL()}})
	require.NoError(t, err, "the upgrade goes through")
	require.Equal(t, http.StatusSwitchingProtocols, resp.StatusCode)
	defer conn.Close()
	got := make(chan error, 1)
	go func() { _, _, err := conn.ReadMessage(); got <- err }()
	select {
	case err := <-got:
		t.Fatalf("the slowed frame arrived whole: %v", err)
	case <-time.After(50 * time.Millisecond): // nothing comes: the stall itself
	}
	require.NoError(t, conn.Close())
	require.Error(t, <-got)
	require.Equal(t, int64(1), srv.Stats().Faults[fakeapiserver.FaultSlowBody])
}

// A websocket watch the client closes leaves the server's connection set,
// plain or under a body fault (whose Hijack wraps the connection): the
// server stops counting it (Stats.OpenConns) and Restart does not cut it
// twice. Hijacked connections get no StateClosed from http.Server; the
// watch's end must forget the connection as it was accepted.
func TestAClosedWebsocketWatchLeavesTheConnectionSet(t *testing.T) {
	for _, slow := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "slowed"}[slow], func(t *testing.T) {
			srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
			createPods(t, srv, 1)
			if slow {
				srv.SlowBodies(fakeapiserver.SlowBody{Count: 1, Verb: "watch", After: 4})
			}
			wsURL := "ws" + strings.TrimPrefix(srv.URL(), "http") + "/api/v1/pods?watch=1"
			conn, _, err := websocket.DefaultDialer.Dial(wsURL, http.Header{"Origin": {srv.URL()}})
			require.NoError(t, err)
			require.Equal(t, 1, srv.Stats().OpenConns)
			require.NoError(t, conn.Close())
			require.Eventually(t, func() bool { return srv.Stats().OpenConns == 0 }, 5*time.Second, time.Millisecond,
				"open connections: %d", srv.Stats().OpenConns)
		})
	}
}
