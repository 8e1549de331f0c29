package apiclient_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/meta"
)

// Over HTTP/1.1 a request in flight holds its connection: the connection
// gate must let concurrent requests dial their own once the first is up,
// or a second watch would wait forever behind the first.
func TestConcurrentRequestsOverHTTP1AllReachTheServer(t *testing.T) {
	const n = 5
	arrived := make(chan struct{}, n)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-release
		_, _ = w.Write([]byte(`{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[]}`))
	}))
	defer srv.Close()
	c, err := apiclient.New(&apiclient.Config{Host: srv.URL, QPS: -1})
	require.NoError(t, err)
	defer c.CloseIdleConnections()
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			_, err := apiclient.List[meta.Raw](context.Background(), c, podsRef, apiclient.ListOptions{}, func(*meta.Raw) error { return nil })
			require.NoError(t, err)
		})
	}
	deadline := time.After(30 * time.Second)
	for i := range n {
		select {
		case <-arrived:
		case <-deadline:
			t.Fatalf("%d of %d concurrent requests reached the server", i, n)
		}
	}
	close(release)
	wg.Wait()
}
