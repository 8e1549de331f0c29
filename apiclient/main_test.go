package apiclient_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/meta"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// pod is the slim struct a user would declare.
type pod struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Status          struct {
		Phase string `json:"phase,omitempty"`
	} `json:"status,omitzero"`
}

var podsRef = apiclient.Ref{GVR: meta.GVR{Version: "v1", Resource: "pods"}, Namespace: "default"}

// sleeps records the waits of the retry policy instead of sleeping.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) waits() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// newServer starts an httptest server with h and a client for it that never
// really sleeps between retries and has no rate limit.
func newServer(t testing.TB, h http.HandlerFunc) (*apiclient.Client, *sleeps) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return newClient(t, &apiclient.Config{Host: srv.URL, QPS: -1})
}

func newClient(t testing.TB, cfg *apiclient.Config) (*apiclient.Client, *sleeps) {
	t.Helper()
	s := &sleeps{}
	c, err := apiclient.NewWithOptions(cfg, apiclient.Options{
		Retry: apiclient.RetryOptions{MaxAttempts: 5, Sleep: s.sleep, Jitter: func() float64 { return 0.5 }},
	})
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	return c, s
}

// writeStatus answers with a Status body the way kube-apiserver does.
func writeStatus(w http.ResponseWriter, code int, reason, message string, details string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	if details == "" {
		details = "{}"
	}
	_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"` + message +
		`","reason":"` + reason + `","details":` + details + `,"code":` + itoa(code) + `}`))
}

func itoa(n int) string {
	b := []byte{}
	for n >= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(append([]byte{byte('0' + n)}, b...))
}
