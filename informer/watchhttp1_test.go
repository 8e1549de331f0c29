package informer_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/informer"
)

// An informer whose client sends watches over HTTP/1.1
// (apiclient.Options.WatchHTTP1) over TLS, against a server offering
// HTTP/2, lists over HTTP/2, watches over its own connection, and its
// cache and handler follow every change made after the sync.
func TestAnInformerWatchingOverHTTP1FollowsTheServer(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet(), TLS: true})
	c, err := apiclient.NewWithOptions(fakeapiservertest.ClientConfig(srv), apiclient.Options{WatchHTTP1: true})
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	e := &env{srv: srv, client: c}
	e.put(t, "a", "1", nil)
	inf := informer.New[configMap](c, cmRef, fastOpts())
	v := newView()
	_, err = inf.AddHandler(v, informer.HandlerOptions{})
	require.NoError(t, err)
	run(t, inf)
	synced(t, inf)
	for i, name := range []string{"a", "b", "c", "a"} {
		e.put(t, name, string(rune('2'+i)), nil)
	}
	converges(t, e, inf, v)
}
