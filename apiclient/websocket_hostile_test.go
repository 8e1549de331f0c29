package apiclient_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	zkws "github.com/zerokube/zerokube/apiclient/websocket"
	"github.com/zerokube/zerokube/watchstream"
)

// wsServer upgrades every request and hands the connection to serve.
func wsServer(t *testing.T, serve func(c *websocket.Conn)) *apiclient.Client {
	t.Helper()
	up := websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		serve(c)
	}))
	t.Cleanup(srv.Close)
	c, _ := newClient(t, &apiclient.Config{Host: srv.URL, QPS: -1})
	return c
}

func TestWebsocketWatchAgainstAHostileServer(t *testing.T) {
	const limit = 1 << 20
	okEvent := `{"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"1"}}}`
	for name, tc := range map[string]struct {
		serve func(c *websocket.Conn)
		ok    int    // events before the error
		want  error  // errors.Is target, or nil for any DecodeError
		text  string // part of the error
	}{
		"a message that never ends": {func(c *websocket.Conn) {
			_ = c.WriteMessage(websocket.TextMessage, []byte(okEvent))
			w, err := c.NextWriter(websocket.TextMessage)
			if err != nil {
				return
			}
			_, _ = w.Write([]byte(`{"type":"ADDED","object":{"metadata":{"name":"`))
			chunk := []byte(strings.Repeat("x", 64<<10))
			for {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}, 1, watchstream.ErrTooLarge, ""},
		"two events in one message": {func(c *websocket.Conn) {
			_ = c.WriteMessage(websocket.TextMessage, []byte(okEvent+okEvent))
		}, 0, nil, "more than one event"},
		"a binary message of garbage": {func(c *websocket.Conn) {
			_ = c.WriteMessage(websocket.BinaryMessage, []byte{0, 1, 2, 0xff})
		}, 0, nil, "invalid character"},
		"an abnormal close": {func(c *websocket.Conn) {
			_ = c.WriteMessage(websocket.TextMessage, []byte(okEvent))
			_ = c.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseInternalServerErr, "etcd is on fire"))
			_, _, _ = c.ReadMessage()
		}, 1, nil, "etcd is on fire"},
	} {
		t.Run(name, func(t *testing.T) {
			c := wsServer(t, tc.serve)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			s, err := apiclient.Watch[pod](ctx, c, podsRef, apiclient.WatchOptions{Websocket: zkws.Dialer{},
				Decode: watchstream.Options{MaxEventSize: limit}})
			require.NoError(t, err)
			defer s.Stop()
			n := 0
			for {
				if _, err = s.Next(); err != nil {
					break
				}
				n++
			}
			runtime.ReadMemStats(&after)
			require.Equal(t, tc.ok, n)
			var de *watchstream.DecodeError
			require.ErrorAs(t, err, &de, "%v", err)
			if tc.want != nil {
				require.ErrorIs(t, err, tc.want)
			}
			require.ErrorContains(t, err, tc.text)
			require.NoError(t, ctx.Err(), "the error came from the stream, not the deadline")
			require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(32*limit), "memory stays bounded by the event limit")
		})
	}
}
