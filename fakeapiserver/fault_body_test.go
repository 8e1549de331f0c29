package fakeapiserver_test

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

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
