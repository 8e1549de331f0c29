package apiclient_test

import (
	"context"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/apiclient/websocket"
	"github.com/zerokube/zerokube/meta"
)

func TestStatusBodiesBecomeTypedErrors(t *testing.T) {
	for _, tc := range []struct {
		name          string
		code          int
		reason        string
		details       string
		is            func(error) bool
		retryAfter    time.Duration
		retryAfterHdr string
	}{
		{"not found", 404, "NotFound", `{"name":"x","kind":"pods"}`, meta.IsNotFound, 0, ""},
		{"conflict", 409, "Conflict", "", meta.IsConflict, 0, ""},
		{"already exists", 409, "AlreadyExists", "", meta.IsAlreadyExists, 0, ""},
		{"gone", 410, "Gone", "", meta.IsGone, 0, ""},
		{"expired", 410, "Expired", "", meta.IsResourceExpired, 0, ""},
		{"too many requests", 429, "TooManyRequests", `{"retryAfterSeconds":3}`, meta.IsTooManyRequests, 7 * time.Second, "7"},
		{"unauthorized", 401, "Unauthorized", "", meta.IsUnauthorized, 0, ""},
		{"forbidden", 403, "Forbidden", "", meta.IsForbidden, 0, ""},
		{"server timeout", 504, "Timeout", "", meta.IsServerTimeout, 0, ""},
		{"too large rv", 504, "Timeout", `{"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}],"retryAfterSeconds":1}`,
			meta.IsTooLargeResourceVersion, time.Second, ""},
		{"bad request", 400, "BadRequest", "", meta.IsBadRequest, 0, ""},
		{"invalid", 422, "Invalid", "", meta.IsInvalid, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				if tc.retryAfterHdr != "" {
					w.Header().Set("Retry-After", tc.retryAfterHdr)
				}
				writeStatus(w, tc.code, tc.reason, "the message", tc.details)
			})
			_, err := apiclient.Get[pod](context.Background(), c, podsRef, "x")
			require.True(t, tc.is(err), "%v", err)
			require.Equal(t, int32(tc.code), meta.Code(err))
			require.Contains(t, err.Error(), "the message")
			require.Contains(t, err.Error(), "GET /api/v1/namespaces/default/pods/x")
			d, ok := meta.RetryAfter(err)
			require.Equal(t, tc.retryAfter != 0, ok)
			require.Equal(t, tc.retryAfter, d)
		})
	}
}

func TestHTMLErrorBodyGivesCodeAndExcerpt(t *testing.T) {
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(404)
		_, _ = w.Write([]byte("<html>\n<body>  <h1>404 page not found at the proxy</h1>" + string(make([]byte, 500)) + "</body></html>"))
	})
	_, err := apiclient.Get[pod](context.Background(), c, podsRef, "x")
	require.True(t, meta.IsNotFound(err), "%v", err)
	require.Contains(t, err.Error(), "404 Not Found")
	require.Contains(t, err.Error(), "text/html")
	require.Contains(t, err.Error(), "<html> <body> <h1>404 page not found at the proxy</h1>")
	require.Less(t, len(err.Error()), 500)
}

func TestReadsRetry429HonouringRetryAfter(t *testing.T) {
	var calls atomic.Int32
	c, s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "2")
			writeStatus(w, 429, "TooManyRequests", "slow down", "")
			return
		}
		_, _ = w.Write([]byte(`{"metadata":{"name":"x"}}`))
	})
	p, err := apiclient.Get[pod](context.Background(), c, podsRef, "x")
	require.NoError(t, err)
	require.Equal(t, "x", p.Name)
	require.Equal(t, []time.Duration{2 * time.Second}, s.Delays())
}

func TestReadsRetry5xxWithCappedBackoff(t *testing.T) {
	var calls atomic.Int32
	c, s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		writeStatus(w, 503, "ServiceUnavailable", "down", "")
	})
	_, err := apiclient.List[pod](context.Background(), c, podsRef, apiclient.ListOptions{}, func(*pod) error { return nil })
	require.True(t, meta.IsServiceUnavailable(err), "%v", err)
	require.Equal(t, int32(5), calls.Load())
	// Jitter 0.5 gives 3/4 of each doubled backoff: 250ms, 500ms, 1s, 2s.
	require.Equal(t, []time.Duration{187500 * time.Microsecond, 375 * time.Millisecond, 750 * time.Millisecond, 1500 * time.Millisecond}, s.Delays())
}

func TestReadsRetryConnectionResets(t *testing.T) {
	var calls atomic.Int32
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) <= 2 {
			conn, _, err := w.(http.Hijacker).Hijack()
			if !assert.NoError(t, err) {
				return
			}
			_ = conn.(*net.TCPConn).SetLinger(0) // RST, not FIN
			_ = conn.Close()
			return
		}
		_, _ = w.Write([]byte(`{"items":[{"metadata":{"name":"a"}}]}`))
	})
	n := 0
	_, err := apiclient.List[pod](context.Background(), c, podsRef, apiclient.ListOptions{}, func(*pod) error { n++; return nil })
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Equal(t, int32(3), calls.Load())
}

func TestWritesAreNeverRetried(t *testing.T) {
	var calls atomic.Int32
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		writeStatus(w, 503, "ServiceUnavailable", "down", "")
	})
	_, err := apiclient.Create(context.Background(), c, podsRef, &pod{ObjectMeta: meta.ObjectMeta{Name: "a"}})
	require.True(t, meta.IsServiceUnavailable(err))
	require.Equal(t, int32(1), calls.Load())
}

func TestRetriesStopOnContextCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var calls atomic.Int32
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 2 {
			cancel()
		}
		writeStatus(w, 500, "InternalError", "boom", "")
	})
	_, err := apiclient.Get[pod](ctx, c, podsRef, "x")
	require.ErrorIs(t, err, context.Canceled)
	require.Equal(t, int32(2), calls.Load())
}

// TestRetriesAreOptIn: a client with default options tries a read once, so
// a caller with its own recovery sees every failure; ListOptions.NoRetry
// tries once even on a client that opted in.
func TestRetriesAreOptIn(t *testing.T) {
	var calls atomic.Int32
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		writeStatus(w, 503, "ServiceUnavailable", "down", "")
	})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	plain, err := apiclient.NewWithOptions(&apiclient.Config{Host: srv.URL, QPS: -1}, apiclient.Options{})
	require.NoError(t, err)
	t.Cleanup(plain.CloseIdleConnections)
	_, err = apiclient.List[pod](context.Background(), plain, podsRef, apiclient.ListOptions{}, func(*pod) error { return nil })
	require.True(t, meta.IsServiceUnavailable(err), "%v", err)
	require.Equal(t, int32(1), calls.Load(), "the zero RetryOptions: one try")

	calls.Store(0)
	retrying, s := newClient(t, &apiclient.Config{Host: srv.URL, QPS: -1})
	_, err = apiclient.List[pod](context.Background(), retrying, podsRef, apiclient.ListOptions{NoRetry: true}, func(*pod) error { return nil })
	require.True(t, meta.IsServiceUnavailable(err), "%v", err)
	require.Equal(t, int32(1), calls.Load(), "NoRetry: one try on a client that retries")
	require.Empty(t, s.Delays())
}

// Plain HTTP to a TLS server gets Go's bare 400; the error says to use
// https, for a LIST and for a websocket watch, and keeps the StatusError.
func TestPlainHTTPToAnHTTPSServerSaysUseHTTPS(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Error("a plain-HTTP request must not reach the handler")
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // it logs each plain-HTTP request
	srv.StartTLS()
	defer srv.Close()
	c, err := apiclient.New(&apiclient.Config{Host: "http://" + srv.Listener.Addr().String()})
	require.NoError(t, err)
	ref := apiclient.Ref{GVR: meta.GVR{Version: "v1", Resource: "pods"}}
	_, err = apiclient.Get[meta.Raw](context.Background(), c, ref, "x")
	require.ErrorIs(t, err, apiclient.ErrHTTPToHTTPS)
	require.EqualValues(t, 400, meta.Code(err))
	_, err = apiclient.Watch[meta.Raw](context.Background(), c, ref, apiclient.WatchOptions{Websocket: websocket.Dialer{}})
	require.ErrorIs(t, err, apiclient.ErrHTTPToHTTPS)
}
