package informer_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/clock/clocktest"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
)

// listFailures counts failed LIST calls.
type listFailures struct {
	observe.NopMetrics
	n atomic.Int32
}

func (m *listFailures) ListCall(err error) {
	if err != nil {
		m.n.Add(1)
	}
}

// TestReflectorSeesEveryListFailure: the reflector owns recovery, so three
// 503s on a LIST are three failures it reports (error handler, metric) and
// backs off from, even on a client that opted into read retries, which
// would otherwise swallow them behind waits of their own.
func TestReflectorSeesEveryListFailure(t *testing.T) {
	e := newEnv(t)
	e.put(t, "a", "0", nil)
	clk := clocktest.New()
	clk.SetInstant(true) // a retry of the client would not wait
	c, err := apiclient.NewWithOptions(fakeapiservertest.ClientConfig(e.srv), apiclient.Options{
		Retry: apiclient.RetryOptions{MaxAttempts: 5}, Clock: clk})
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	e.srv.FailNext(fakeapiserver.Failure{Count: 3, Code: 503, Verb: "list"})

	var mu sync.Mutex
	var seen []error
	m := &listFailures{}
	opts := fastOpts()
	opts.Observe.Metrics = m
	opts.Observe.WatchErrorHandler = func(_ context.Context, err error) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, err)
	}
	inf := informer.New[configMap](c, cmRef, opts)
	run(t, inf)
	synced(t, inf)
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, seen, 3)
	for _, err := range seen {
		require.True(t, meta.IsServiceUnavailable(err), "%v", err)
	}
	require.Equal(t, int32(3), m.n.Load())
}
