package apiclient_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/clock/clocktest"
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

// instantClock is a fake clock whose timers fire as they are made: the
// client's retries and rate limit wait for nothing, and Delays records
// their waits. Timeouts run by AfterFunc (watch open, list stall) fire
// only when the test advances it. Its time never moves by itself, so the
// rate limiter's tokens do not refill: a test that sends more than a burst
// under a context deadline turns the limit off (QPS -1).
func instantClock() *clocktest.Fake {
	c := clocktest.New()
	c.SetInstant(true)
	return c
}

// newServer starts an httptest server with h and a client for it that never
// really sleeps between retries and has no rate limit. h runs on the
// server's goroutines: it checks with assert (t.Errorf, safe from any
// goroutine, and srv.Close in t.Cleanup waits for it) and returns, never
// with require, whose FailNow must be called from the test's own goroutine.
func newServer(t testing.TB, h http.HandlerFunc) (*apiclient.Client, *clocktest.Fake) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return newClient(t, &apiclient.Config{Host: srv.URL, QPS: -1})
}

// newClient is a client for cfg on an instantClock, with up to 5 tries of
// a read.
func newClient(t testing.TB, cfg *apiclient.Config) (*apiclient.Client, *clocktest.Fake) {
	t.Helper()
	clk := instantClock()
	c, err := apiclient.NewWithOptions(cfg, apiclient.Options{Clock: clk,
		Retry: apiclient.RetryOptions{MaxAttempts: 5, Jitter: func() float64 { return 0.5 }},
	})
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	return c, clk
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
