package apiclient_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

// protoServer is a TLS server offering HTTP/2 that records, for every
// request, the protocol it came in and the connection it came on.
type protoServer struct {
	srv   *httptest.Server
	mu    sync.Mutex
	reqs  []protoRequest // guarded by mu
	conns int            // connections accepted; guarded by mu
}

type protoRequest struct {
	watch bool
	major int    // r.ProtoMajor
	conn  string // r.RemoteAddr: one per connection
}

// startProtoServer answers a watch with one ADDED event and holds it open
// until the client goes; anything else with an empty pod list.
func startProtoServer(t *testing.T) *protoServer {
	s := &protoServer{}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		watch := r.URL.Query().Get("watch") == "1"
		s.mu.Lock()
		s.reqs = append(s.reqs, protoRequest{watch: watch, major: r.ProtoMajor, conn: r.RemoteAddr})
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if !watch {
			_, _ = w.Write([]byte(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[]}`))
			return
		}
		_, _ = w.Write(watchstream.AppendFrame(nil, meta.Added, []byte(`{"metadata":{"name":"a","resourceVersion":"8"}}`)))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	s.srv.EnableHTTP2 = true
	s.srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.mu.Lock()
			s.conns++
			s.mu.Unlock()
		}
	}
	s.srv.StartTLS()
	t.Cleanup(s.srv.Close)
	return s
}

func (s *protoServer) requests() ([]protoRequest, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]protoRequest(nil), s.reqs...), s.conns
}

// Options.WatchHTTP1 reaches the transport: a chunked watch goes over
// HTTP/1.1 on a connection of its own, every other request over the one
// HTTP/2 connection; without it the watch shares that connection. The
// watch is the client's first request, so it is also the one that would
// tell the connection gate an HTTP/2 connection is up if it went through
// the gate: the lists sent at once behind it must still share one
// connection.
func TestWatchHTTP1SendsOnlyWatchesOverHTTP1(t *testing.T) {
	for _, tc := range []struct {
		name       string
		http1      bool
		watchMajor int
		conns      int
	}{
		{"default: one HTTP/2 connection for everything", false, 2, 1},
		{"WatchHTTP1: the watch on a connection of its own", true, 1, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startProtoServer(t)
			c, err := apiclient.NewWithOptions(&apiclient.Config{Host: s.srv.URL, QPS: -1,
				TLS: apiclient.TLSConfig{CAData: pemCert(s.srv.Certificate().Raw)}}, apiclient.Options{WatchHTTP1: tc.http1})
			require.NoError(t, err)
			t.Cleanup(c.CloseIdleConnections)

			w, err := apiclient.Watch[pod](context.Background(), c, podsRef, apiclient.WatchOptions{ResourceVersion: "7"})
			require.NoError(t, err)
			defer w.Stop()
			ev, err := w.Next()
			require.NoError(t, err)
			require.Equal(t, "a", ev.Object.Name)
			var wg sync.WaitGroup
			for range 5 {
				wg.Go(func() {
					_, err := apiclient.List[pod](context.Background(), c, podsRef, apiclient.ListOptions{}, func(*pod) error { return nil })
					assert.NoError(t, err)
				})
			}
			wg.Wait()

			reqs, conns := s.requests()
			listConns := map[string]bool{}
			for _, r := range reqs {
				if r.watch {
					assert.Equal(t, tc.watchMajor, r.major, "the watch's HTTP version")
					continue
				}
				assert.Equal(t, 2, r.major, "a list's HTTP version")
				listConns[r.conn] = true
			}
			assert.Len(t, reqs, 6)
			assert.Len(t, listConns, 1, "the lists share one HTTP/2 connection")
			assert.Equal(t, tc.conns, conns, "connections accepted")
		})
	}
}

// Over plain http there is no HTTP/2 to leave: the option changes nothing.
func TestWatchHTTP1OverPlainHTTPChangesNothing(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, 1, r.ProtoMajor)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(watchstream.AppendFrame(nil, meta.Added, []byte(`{"metadata":{"name":"a","resourceVersion":"8"}}`)))
	}))
	t.Cleanup(srv.Close)
	c, err := apiclient.NewWithOptions(&apiclient.Config{Host: srv.URL, QPS: -1}, apiclient.Options{WatchHTTP1: true})
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	w, err := apiclient.Watch[pod](context.Background(), c, podsRef, apiclient.WatchOptions{})
	require.NoError(t, err)
	defer w.Stop()
	ev, err := w.Next()
	require.NoError(t, err)
	require.Equal(t, "a", ev.Object.Name)
}
