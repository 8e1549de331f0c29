package informer

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

// TestHealthTracksProgressAndStaleness: a synced informer is healthy while
// it hears from the server, stale once it has heard nothing for StaleAfter,
// and healthy again at the next event.
func TestHealthTracksProgressAndStaleness(t *testing.T) {
	clk := newFakeClock()
	lw := newLiveLW(pods("a"), "5")
	inf := newInformer[pod](lw, Options[*pod]{Clock: clk, Health: HealthOptions{StaleAfter: time.Minute}, Observe: ObserveOptions{Logger: quiet()}})
	require.False(t, inf.Health().Healthy(), "not synced yet")
	startInformer(t, inf)
	require.NoError(t, inf.WaitForSync(t.Context()))
	h := inf.Health()
	require.True(t, h.Healthy())
	require.Equal(t, clk.Now(), h.LastProgress)
	require.Equal(t, "5", h.ResourceVersion)
	require.Nil(t, h.Failure)

	clk.Advance(61 * time.Second)
	h = inf.Health()
	require.True(t, h.Stale)
	require.False(t, h.Healthy())
	require.Equal(t, 61*time.Second, h.SinceProgress)

	lw.events <- watchstream.Event[*pod]{Type: meta.Bookmark, Object: mkPod("", "9"), ResourceVersion: "9"}
	require.Eventually(t, func() bool { h := inf.Health(); return h.Healthy() && h.ResourceVersion == "9" }, wait, time.Millisecond)
}

// TestHealthShowsTheCurrentFailure: each failure since the last progress
// counts, with its typed reason; progress clears it.
func TestHealthShowsTheCurrentFailure(t *testing.T) {
	lw := &scriptLW{lists: []listReply{{err: statusErr(403, meta.ReasonForbidden)},
		{err: statusErr(503, meta.ReasonServiceUnavailable)}, {items: pods("a"), lm: meta.ListMeta{ResourceVersion: "3"}}}}
	r, _, clk := testReflector(t, lw, nil)
	clk.SetInstant(true)
	s := r.step(t.Context(), r.initialState())
	f := r.rec.current()
	require.Equal(t, observe.FailureForbidden, f.Reason)
	require.Equal(t, 1, f.Attempts)
	s = r.step(t.Context(), r.step(t.Context(), s))
	f = r.rec.current()
	require.Equal(t, observe.FailureServer, f.Reason)
	require.Equal(t, 2, f.Attempts)
	r.step(t.Context(), r.step(t.Context(), s))
	require.Nil(t, r.rec.current())
	require.Equal(t, clk.Now(), r.rec.progress(true))
}

type fixedHealth Health

func (h fixedHealth) Health() Health { return Health(h) }

// TestHealthHandlerAnswersWithTheWorstInformer: 200 when all are healthy,
// 503 when one is not, with every informer's view in the JSON.
func TestHealthHandlerAnswersWithTheWorstInformer(t *testing.T) {
	good := fixedHealth{Name: "pods", Synced: true, ResourceVersion: "7"}
	stale := fixedHealth{Name: "nodes", Synced: true, Stale: true, SinceProgress: 5 * time.Minute,
		Failure: &SyncError{Reason: observe.FailureUnreachable, Attempts: 4, Err: errStopped}}
	for _, tc := range []struct {
		infs []HealthReporter
		code int
	}{
		{[]HealthReporter{good}, http.StatusOK},
		{[]HealthReporter{good, stale}, http.StatusServiceUnavailable},
	} {
		rec := httptest.NewRecorder()
		HealthHandler(tc.infs...).ServeHTTP(rec, httptest.NewRequest("GET", "/healthz", nil))
		require.Equal(t, tc.code, rec.Code)
		require.Equal(t, "application/json", rec.Header().Get("Content-Type"))
		var body healthBody
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
		require.Equal(t, tc.code == http.StatusOK, body.Healthy)
		require.Len(t, body.Informers, len(tc.infs))
	}
	rec := httptest.NewRecorder()
	HealthHandler(stale).ServeHTTP(rec, httptest.NewRequest("GET", "/healthz", nil))
	require.JSONEq(t, `{"healthy":false,"informers":[{"name":"nodes","healthy":false,"synced":true,"stale":true,
		"sinceProgressSeconds":300,"failure":"fake watch stopped","failureReason":"server unreachable","consecutiveFailures":4}]}`,
		rec.Body.String())
}
