package apiclient_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	zkws "github.com/zerokube/zerokube/apiclient/websocket"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

func TestWatchQuery(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts apiclient.WatchOptions
		want string
	}{
		{"plain", apiclient.WatchOptions{}, "watch=1"},
		{"everything", apiclient.WatchOptions{LabelSelector: "a=b", FieldSelector: "metadata.name=x", ResourceVersion: "5",
			AllowWatchBookmarks: true, TimeoutSeconds: 300},
			"allowWatchBookmarks=true&fieldSelector=metadata.name%3Dx&labelSelector=a%3Db&resourceVersion=5&timeoutSeconds=300&watch=1"},
		{"streaming list", apiclient.WatchOptions{SendInitialEvents: true, AllowWatchBookmarks: true},
			"allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&watch=1"},
		{"resume without initial events", apiclient.WatchOptions{NoInitialEvents: true, AllowWatchBookmarks: true, ResourceVersion: "42"},
			"allowWatchBookmarks=true&resourceVersion=42&resourceVersionMatch=NotOlderThan&sendInitialEvents=false&watch=1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := make(chan string, 1)
			c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				got <- r.URL.RawQuery
				assert.Equal(t, "gzip", r.Header.Get("Accept-Encoding"))
			})
			s, err := apiclient.Watch[pod](context.Background(), c, podsRef, tc.opts)
			require.NoError(t, err)
			defer s.Stop()
			require.Equal(t, tc.want, <-got)
			_, err = s.Next()
			require.ErrorIs(t, err, io.EOF)
		})
	}
}

// watchServer streams events, gzipped when asked, delaying the last one.
func watchServer(t *testing.T, gzip bool, delay time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if gzip {
			w.Header().Set("Content-Encoding", "gzip")
		}
		enc := watchstream.NewEncoder(w, watchstream.EncoderOptions{Gzip: gzip})
		defer enc.Close()
		if !assert.NoError(t, enc.WriteFrame(watchstream.AppendFrame(nil, meta.Added,
			[]byte(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","resourceVersion":"2"}}`)))) {
			return
		}
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		assert.NoError(t, enc.WriteFrame(watchstream.AppendFrame(nil, meta.Bookmark,
			[]byte(`{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"3"}}`))))
	}
}

func TestWatchChunkedPlainAndGzip(t *testing.T) {
	for _, gz := range []bool{false, true} {
		srv := httptest.NewServer(watchServer(t, gz, 0))
		t.Cleanup(srv.Close)
		c, _ := newClient(t, &apiclient.Config{Host: srv.URL, QPS: -1})
		s, err := apiclient.Watch[pod](context.Background(), c, podsRef, apiclient.WatchOptions{AllowWatchBookmarks: true})
		require.NoError(t, err)
		ev, err := s.Next()
		require.NoError(t, err)
		require.Equal(t, meta.Added, ev.Type)
		require.Equal(t, "a", ev.Object.Name)
		ev, err = s.Next()
		require.NoError(t, err)
		require.Equal(t, meta.Bookmark, ev.Type)
		require.Equal(t, "3", ev.ResourceVersion)
		_, err = s.Next()
		require.ErrorIs(t, err, io.EOF)
		s.Stop()
	}
}

func TestWatchIgnoresTheRequestTimeout(t *testing.T) {
	srv := httptest.NewServer(watchServer(t, false, 150*time.Millisecond))
	t.Cleanup(srv.Close)
	c, _ := newClient(t, &apiclient.Config{Host: srv.URL, Timeout: 20 * time.Millisecond})
	s, err := apiclient.Watch[pod](context.Background(), c, podsRef, apiclient.WatchOptions{})
	require.NoError(t, err)
	defer s.Stop()
	for _, want := range []meta.EventType{meta.Added, meta.Bookmark} {
		ev, err := s.Next()
		require.NoError(t, err)
		require.Equal(t, want, ev.Type)
	}
}

func TestWatchRefusedGivesStatusError(t *testing.T) {
	for _, ws := range []bool{false, true} {
		c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
			writeStatus(w, 403, "Forbidden", `pods is forbidden: User \"x\" cannot watch resource \"pods\"`, "")
		})
		_, err := apiclient.Watch[pod](context.Background(), c, podsRef, apiclient.WatchOptions{Websocket: wsDialer(ws)})
		require.True(t, meta.IsForbidden(err), "websocket=%t: %v", ws, err)
		require.Contains(t, err.Error(), "cannot watch")
	}
}

func TestWatchWebsocket(t *testing.T) {
	up := websocket.Upgrader{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Origin") == "" {
			writeStatus(w, 403, "Forbidden", "no origin", "")
			return
		}
		assert.Equal(t, "Bearer "+secretToken, r.Header.Get("Authorization"))
		assert.Equal(t, "1", r.URL.Query().Get("watch"))
		assert.Equal(t, "7", r.URL.Query().Get("resourceVersion"))
		conn, err := up.Upgrade(w, r, nil)
		if !assert.NoError(t, err) {
			return
		}
		defer conn.Close()
		for _, name := range []string{"a", "b"} {
			if !assert.NoError(t, conn.WriteMessage(websocket.TextMessage, watchstream.AppendFrame(nil, meta.Added,
				[]byte(`{"metadata":{"name":"`+name+`","resourceVersion":"8"}}`)))) {
				return
			}
		}
		_ = conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""))
	}))
	t.Cleanup(srv.Close)
	c, _ := newClient(t, &apiclient.Config{Host: srv.URL, BearerToken: secretToken})
	s, err := apiclient.Watch[pod](context.Background(), c, podsRef, apiclient.WatchOptions{Websocket: zkws.Dialer{}, ResourceVersion: "7"})
	require.NoError(t, err)
	defer s.Stop()
	var names []string
	for ev, err := range s.All() {
		require.NoError(t, err)
		names = append(names, ev.Object.Name)
	}
	require.Equal(t, []string{"a", "b"}, names)
}

func TestWatchWebsocketOverTLS(t *testing.T) {
	up := websocket.Upgrader{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !websocket.IsWebSocketUpgrade(r) {
			assert.Equal(t, 2, r.ProtoMajor, "plain requests speak HTTP/2")
			writeStatus(w, 404, "NotFound", "not here", "")
			return
		}
		conn, err := up.Upgrade(w, r, nil)
		if !assert.NoError(t, err) {
			return
		}
		defer conn.Close()
		if !assert.NoError(t, conn.WriteMessage(websocket.TextMessage, watchstream.AppendFrame(nil, meta.Added, []byte(`{"metadata":{"name":"a"}}`)))) {
			return
		}
		_ = conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""))
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	ca := pemCert(srv.Certificate().Raw)
	c, _ := newClient(t, &apiclient.Config{Host: srv.URL, TLS: apiclient.TLSConfig{CAData: ca}})
	// An HTTP/2 request first: the transport must not leave "h2" in the
	// websocket's TLS config.
	_, err := apiclient.Get[pod](context.Background(), c, podsRef, "x")
	require.True(t, meta.IsNotFound(err), "%v", err)
	s, err := apiclient.Watch[pod](context.Background(), c, podsRef, apiclient.WatchOptions{Websocket: zkws.Dialer{}})
	require.NoError(t, err)
	defer s.Stop()
	ev, err := s.Next()
	require.NoError(t, err)
	require.Equal(t, "a", ev.Object.Name)
}
