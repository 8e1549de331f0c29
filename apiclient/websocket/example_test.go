package websocket_test

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/apiclient/websocket"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/meta"
)

// A watch over a websocket: one event a message, read as a chunked watch's.
func Example() {
	srv := fakeapiserver.New(fakeapiserver.Options{Logger: slog.New(slog.DiscardHandler)})
	if err := srv.Start(context.Background()); err != nil {
		panic(err)
	}
	defer srv.Close()
	pods := apiclient.Ref{GVR: meta.GVR{Version: "v1", Resource: "pods"}, Namespace: "default"}
	if _, err := srv.Create(pods.GVR, map[string]any{"metadata": map[string]any{"name": "web", "namespace": "default"},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}}}); err != nil {
		panic(err)
	}
	c, err := apiclient.New(&apiclient.Config{Host: srv.URL()})
	if err != nil {
		panic(err)
	}
	defer c.CloseIdleConnections()

	type Pod struct {
		meta.SlimMeta `json:"metadata"`
	}
	s, err := apiclient.Watch[Pod](context.Background(), c, pods, apiclient.WatchOptions{
		ResourceVersion: "0", // the current state first, as ADDED
		Websocket:       websocket.Dialer{},
	})
	if err != nil {
		panic(err)
	}
	defer s.Stop()
	ev, err := s.Next()
	if err != nil {
		panic(err)
	}
	fmt.Println(ev.Type, meta.Key(ev.Object))
	// Output: ADDED default/web
}
