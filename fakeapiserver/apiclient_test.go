package fakeapiserver_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/apiclient/websocket"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/meta"
)

// The configuration the server hands out works with zerokube's own client,
// over TLS with a token, for lists, watch-lists and websocket watches.
func TestClientConfigWorksWithApiclient(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet(), TLS: true,
		Tokens: []fakeapiserver.Token{{Value: "t0k"}}})
	createPods(t, srv, 3)
	c, err := apiclient.New(fakeapiservertest.ClientConfig(srv))
	require.NoError(t, err)
	defer c.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), shortWait)
	defer cancel()
	ref := apiclient.Ref{GVR: podsGVR, Namespace: "default"}

	var names []string
	lm, err := apiclient.ListAll[meta.Raw](ctx, c, ref, apiclient.ListOptions{Limit: 2}, nil, func(p *meta.Raw) error {
		names = append(names, p.Name)
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, []string{"p0", "p1", "p2"}, names)

	for _, ws := range []bool{false, true} {
		s, err := apiclient.Watch[meta.Raw](ctx, c, ref, apiclient.WatchOptions{SendInitialEvents: true,
			AllowWatchBookmarks: true, Websocket: wsDialer(ws), ResourceVersion: lm.ResourceVersion})
		require.NoError(t, err, "websocket=%v", ws)
		for range 3 {
			e, err := s.Next()
			require.NoError(t, err)
			require.Equal(t, meta.Added, e.Type)
			require.Equal(t, "Pod", e.Object.Kind)
		}
		e, err := s.Next()
		require.NoError(t, err)
		require.True(t, e.InitialEventsEnd, "websocket=%v", ws)
		s.Stop()
	}
}

// wsDialer is websocket.Dialer{} when ws, else nil: chunked HTTP.
func wsDialer(ws bool) apiclient.WebsocketDialer {
	if ws {
		return websocket.Dialer{}
	}
	return nil
}
