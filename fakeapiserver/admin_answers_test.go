package fakeapiserver_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
)

// TestAdminFaultsAnswerWhatTheyDid: each /fake/ endpoint that acts at once
// answers how many things it acted on, so that a script (or the docs'
// curl lines) can tell a fault that hit from one that found nothing.
// Regression: /fake/compact and /fake/restart answered {"affected":0}
// when they had acted.
func TestAdminFaultsAnswerWhatTheyDid(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	affected := func(name string) int {
		t.Helper()
		code, body := call(t, "POST", srv.URL()+"/fake/"+name, "", "")
		require.Equal(t, 200, code, "%s: %v", name, body)
		return int(body["affected"].(float64))
	}
	watch := func() *watchStream {
		w := openWatch(t, srv.URL()+"/api/v1/pods?watch=1&resourceVersion="+strconv.FormatInt(srv.ResourceVersion(), 10), nil)
		ctx, cancel := context.WithTimeout(context.Background(), shortWait)
		defer cancel()
		require.NoError(t, srv.AwaitWatchers(ctx, 1))
		return w
	}

	require.Zero(t, affected("drop-watches"), "no watch open")
	w := watch()
	require.Equal(t, 1, affected("drop-watches"))
	_, more := w.next()
	require.False(t, more)

	affected("compact") // the server's own objects (namespaces, …) made history too
	for _, name := range []string{"a", "b", "c"} {
		mustCreate(t, srv, podsGVR, pod(name, nil))
	}
	require.Equal(t, 3, affected("compact"), "three creates in the history")
	require.Zero(t, affected("compact"), "nothing left to drop")

	w = watch()
	require.GreaterOrEqual(t, affected("restart"), 1, "the watch's connection at least")
	_, more = w.next()
	require.False(t, more, "the restart dropped the watch")
	code, _ := get(t, srv.URL()+"/api/v1/pods")
	require.Equal(t, 200, code, "the server serves on after its restart")
}
