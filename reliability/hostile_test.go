package reliability

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
)

// scripted is a server that lies: its replies come from the test. It
// counts LISTs and WATCHes.
type scripted struct {
	lists, watches atomic.Int64
	list           func(n int64, r *http.Request) string // the body of the nth LIST (from 1)
	watch          func(n int64, w http.ResponseWriter, r *http.Request)
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.URL.Query().Get("watch") != "" {
		n := s.watches.Add(1)
		w.Header().Set("Transfer-Encoding", "chunked")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		if s.watch != nil {
			s.watch(n, w, r)
			return
		}
		<-r.Context().Done() // a quiet watch until the client leaves
		return
	}
	_, _ = w.Write([]byte(s.list(s.lists.Add(1), r)))
}

func startScripted(t *testing.T, s *scripted) *informer.Informer[object, *object] {
	t.Helper()
	return startScriptedWith(t, s, nil)
}

// startScriptedWith runs an informer against s with h, when not nil, as
// its handler.
func startScriptedWith(t *testing.T, s *scripted, h informer.Handler[*object]) *informer.Informer[object, *object] {
	t.Helper()
	return startInformer(t, s, h, -1)
}

// startScriptedHandler runs an informer against any handler, with a watch
// idle timeout.
func startScriptedHandler(t *testing.T, srvHandler http.Handler, idle time.Duration) *informer.Informer[object, *object] {
	t.Helper()
	return startInformer(t, srvHandler, nil, idle)
}

func startInformer(t *testing.T, s http.Handler, h informer.Handler[*object], idle time.Duration) *informer.Informer[object, *object] {
	t.Helper()
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 5 * time.Second}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = srv.Serve(ln) }()
	c, err := apiclient.NewWithOptions(&apiclient.Config{Host: "http://" + ln.Addr().String(), QPS: -1},
		apiclient.Options{Logger: quiet(), Retry: apiclient.RetryOptions{MaxAttempts: 1}, HeaderTimeout: 500 * time.Millisecond})
	require.NoError(t, err)
	inf := informer.New[object](c, allCMs, informer.Options[*object]{
		Backoff: informer.BackoffOptions{Initial: time.Millisecond, Max: 10 * time.Millisecond},
		Sync:    informer.SyncOptions{PageSize: 2},
		Watch:   informer.WatchOptions{IdleTimeout: idle},
		Observe: informer.ObserveOptions{
			Logger: quiet(),
			Trace: func(ev observe.Event) {
				if os.Getenv("ZEROKUBE_TRACE") != "" && ev.Stage != observe.StageHandlerCalled {
					t.Logf("%s trace %s cause=%s rv=%s items=%d d=%s err=%v", time.Now().Format("15:04:05.000"), ev.Stage, ev.Cause, ev.ResourceVersion, ev.Items, ev.Duration, ev.Err)
				}
			},
		},
	})
	if h != nil {
		_, err := inf.AddHandler(h, informer.HandlerOptions{})
		require.NoError(t, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
		c.CloseIdleConnections()
		_ = srv.Close()
	})
	return inf
}

func item(name, rv string) string {
	return fmt.Sprintf(`{"metadata":{"name":%q,"namespace":"default","resourceVersion":%q}}`, name, rv)
}

func frame(typ, obj string) string { return `{"type":"` + typ + `","object":` + obj + "}\n" }

func syncWithin(t *testing.T, inf *informer.Informer[object, *object], d time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return inf.WaitForSync(ctx)
}

func TestInformerAgainstContinueTokensThatLoop(t *testing.T) {
	s := &scripted{list: func(n int64, r *http.Request) string {
		return `{"metadata":{"resourceVersion":"10","continue":"same"},"items":[` + item(fmt.Sprint("cm-", n), "5") + `]}`
	}}
	inf := startScripted(t, s)
	err := syncWithin(t, inf, time.Second)
	var se *informer.SyncError
	require.ErrorAs(t, err, &se, "a list that never ends cannot sync, and the informer says why")
	require.ErrorContains(t, se, "continue token", "the reflector notices the loop instead of paging forever")
	require.Empty(t, storeState(inf), "no partial list is stored")
}

func TestInformerAgainstALyingRemainingItemCount(t *testing.T) {
	s := &scripted{list: func(n int64, r *http.Request) string {
		if r.URL.Query().Get("continue") == "" {
			return `{"metadata":{"resourceVersion":"10","continue":"p2","remainingItemCount":9223372036854775807},"items":[` + item("a", "5") + `]}`
		}
		return `{"metadata":{"resourceVersion":"10","remainingItemCount":-7},"items":[` + item("b", "6") + `]}`
	}}
	inf := startScripted(t, s)
	require.NoError(t, syncWithin(t, inf, 10*time.Second))
	require.Equal(t, state{"default/a": "5", "default/b": "6"}, storeState(inf))
}

func TestInformerAgainstObjectsWithoutNameOrResourceVersion(t *testing.T) {
	s := &scripted{list: func(n int64, r *http.Request) string {
		return `{"metadata":{"resourceVersion":"10"},"items":[{},{"metadata":{"namespace":"default"}},` +
			item("a", "5") + `,{"metadata":{"name":"norv","namespace":"default"}}]}`
	}, watch: func(n int64, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			_, _ = w.Write([]byte(frame("ADDED", `{"metadata":{"namespace":"default","resourceVersion":"11"}}`) +
				frame("MODIFIED", `{"metadata":{}}`) + frame("ADDED", item("c", "12"))))
			w.(http.Flusher).Flush()
		}
		<-r.Context().Done()
	}}
	inf := startScripted(t, s)
	require.NoError(t, syncWithin(t, inf, 10*time.Second), "objects without identity must not stop the sync")
	require.Eventually(t, func() bool {
		st := storeState(inf)
		return st["default/a"] == "5" && st["default/c"] == "12" && st["default/norv"] == ""
	}, 10*time.Second, time.Millisecond, "the well-formed objects are all there: %v", storeState(inf))
}

func TestInformerAgainstAListWithoutResourceVersion(t *testing.T) {
	s := &scripted{list: func(n int64, r *http.Request) string {
		if n == 1 {
			return `{"metadata":{},"items":[` + item("a", "5") + `]}`
		}
		return `{"metadata":{"resourceVersion":"10"},"items":[` + item("a", "5") + `]}`
	}}
	inf := startScripted(t, s)
	require.NoError(t, syncWithin(t, inf, 10*time.Second), "a list without a resourceVersion is retried, not trusted")
	require.GreaterOrEqual(t, s.lists.Load(), int64(2))
	require.Equal(t, "10", inf.LastSyncResourceVersion())
}

func TestInformerAgainstResourceVersionsThatGoBackwards(t *testing.T) {
	// After an etcd restore a server's resourceVersions go back in time.
	// The informer must keep what it has, apply what the server now says,
	// and carry on watching.
	s := &scripted{list: func(n int64, r *http.Request) string {
		return `{"metadata":{"resourceVersion":"100"},"items":[` + item("a", "90") + `,` + item("b", "95") + `]}`
	}, watch: func(n int64, w http.ResponseWriter, r *http.Request) {
		switch n {
		case 1:
			_, _ = w.Write([]byte(frame("MODIFIED", item("a", "40")) +
				frame("BOOKMARK", `{"metadata":{"resourceVersion":"41"}}`) + frame("ADDED", item("c", "42"))))
		case 2:
			_, _ = w.Write([]byte(frame("ADDED", item("d", "43"))))
		}
		w.(http.Flusher).Flush()
		if n == 1 {
			return // end the first watch: the next one starts from the rv the server last said
		}
		<-r.Context().Done()
	}}
	inf := startScripted(t, s)
	require.NoError(t, syncWithin(t, inf, 10*time.Second))
	require.Eventually(t, func() bool {
		st := storeState(inf)
		return st["default/a"] == "40" && st["default/b"] == "95" && st["default/c"] == "42" && st["default/d"] == "43"
	}, 10*time.Second, time.Millisecond, "store: %v", storeState(inf))
}

func TestAServerGoneBadNeverCostsTheObjectsAlreadyStored(t *testing.T) {
	// After a good sync the server turns hostile: garbage on the watch,
	// then every LIST answered with an HTML error page, a truncated body or
	// a body of the wrong shape, every WATCH with garbage. The informer
	// must keep retrying and keep serving what it had.
	turn := make(chan struct{})
	bad := func() bool {
		select {
		case <-turn:
			return true
		default:
			return false
		}
	}
	replies := []string{`<html>502 Bad Gateway</html>`, `{"metadata":{"resourceVersion":"20"},"items":[` + item("a", "5"),
		`[1,2,3]`, `{"items":{"not":"a list"}}`}
	s := &scripted{list: func(n int64, r *http.Request) string {
		if !bad() {
			return `{"metadata":{"resourceVersion":"10"},"items":[` + item("a", "5") + `,` + item("b", "6") + `]}`
		}
		return replies[int(n)%len(replies)]
	}, watch: func(n int64, w http.ResponseWriter, r *http.Request) {
		select {
		case <-turn: // the good watch ends when the server turns
		case <-r.Context().Done():
			return
		}
		if n%2 == 0 { // "your resourceVersion is too old": the informer must relist, into bad lists
			_, _ = w.Write([]byte(frame("ERROR", `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Expired","code":410}`)))
			return
		}
		_, _ = w.Write([]byte("\x00garbage\n" + frame("ERROR", `{"foo":1}`)))
	}}
	inf := startScripted(t, s)
	require.NoError(t, syncWithin(t, inf, 10*time.Second))
	want := state{"default/a": "5", "default/b": "6"}
	require.Equal(t, want, storeState(inf))
	lists, watches := s.lists.Load(), s.watches.Load()
	close(turn)
	// A watch that breaks is reopened from the last resourceVersion (with
	// backoff), as client-go does: there is nothing to relist for.
	require.Eventually(t, func() bool { return s.watches.Load()-watches >= 5 || s.lists.Load()-lists >= 5 }, 20*time.Second, time.Millisecond,
		"the informer keeps retrying")
	require.Equal(t, want, storeState(inf), "nothing stored is lost while the server is broken")
	require.True(t, inf.HasSynced())
	t.Logf("%d LISTs and %d WATCHes against the broken server; the store kept %d objects",
		s.lists.Load()-lists, s.watches.Load()-watches, len(storeState(inf)))
}

func TestAnObjectThatDoesNotFitTheTypeIsReportedNotHidden(t *testing.T) {
	// Schema drift: one object's field has another JSON type than the
	// user's struct declares. Like client-go's typed informers, the list
	// fails as a whole; the informer must say so (a SyncError naming the
	// item), not hang silently.
	s := &scripted{list: func(n int64, r *http.Request) string {
		return `{"metadata":{"resourceVersion":"10"},"items":[` + item("a", "5") +
			`,{"metadata":{"name":"drifted","namespace":"default","resourceVersion":"6"},"data":42}]}`
	}}
	inf := startScripted(t, s)
	err := syncWithin(t, inf, 500*time.Millisecond)
	var se *informer.SyncError
	require.ErrorAs(t, err, &se)
	require.ErrorContains(t, se, "list item 2 at byte ", "the error names the item (the second, counted from 1)")
	require.ErrorContains(t, se, "(object default/drifted) at /data: does not fit the type", "its key and the JSON path")
	t.Logf("reported as: %v", se)
	require.Equal(t, observe.FailureUndecodable, se.Reason, "an object that does not fit the type has its own reason, not a network problem")
}

func TestReplayedEventsReachHandlersAsTheRightCalls(t *testing.T) {
	// A server (or a proxy replaying a stream) sends ADDED for an object the
	// informer already has, and the same MODIFIED twice. Handlers must see
	// an update, never a second add, and the cache the last state.
	s := &scripted{list: func(n int64, r *http.Request) string {
		return `{"metadata":{"resourceVersion":"10"},"items":[` + item("a", "5") + `]}`
	}, watch: func(n int64, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			_, _ = w.Write([]byte(frame("ADDED", item("a", "11")) + frame("MODIFIED", item("a", "12")) +
				frame("MODIFIED", item("a", "12")) + frame("ADDED", item("b", "13"))))
			w.(http.Flusher).Flush()
		}
		<-r.Context().Done()
	}}
	v := newView("replay", 0)
	inf := startScriptedWith(t, s, v)
	require.NoError(t, syncWithin(t, inf, 10*time.Second))
	require.Eventually(t, func() bool { return diff(state{"default/a": "12", "default/b": "13"}, v.snapshot()) == "" },
		10*time.Second, time.Millisecond)
	require.Zero(t, v.anomalies.Load(), "a replayed ADDED must reach handlers as an update: %s", v.bad())
	require.Equal(t, state{"default/a": "12", "default/b": "13"}, storeState(inf))
}

func TestAWatchRequestTheServerNeverAnswersIsAbandoned(t *testing.T) {
	var healed atomic.Bool
	s := &scripted{list: func(n int64, r *http.Request) string {
		return `{"metadata":{"resourceVersion":"10"},"items":[` + item("a", "5") + `]}`
	}}
	stuck := &stuckWatch{scripted: s, healed: &healed}
	inf := startScriptedHandler(t, stuck, 200*time.Millisecond)
	require.NoError(t, syncWithin(t, inf, 10*time.Second))
	require.Eventually(t, func() bool { return s.watches.Load() >= 2 }, 10*time.Second, time.Millisecond,
		"the first watch ended and the informer asked for another")
	healed.Store(true)
	require.Eventually(t, func() bool { _, ok := inf.Lister().Get("default", "b"); return ok }, 10*time.Second, time.Millisecond,
		"the informer is still waiting on a WATCH that will never be answered")
}

// stuckWatch wraps scripted: the first watch ends at once, the second is
// never answered, and once healed every watch sends object b.
type stuckWatch struct {
	*scripted
	healed *atomic.Bool
}

func (s *stuckWatch) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("watch") == "" {
		s.scripted.ServeHTTP(w, r)
		return
	}
	switch n := s.watches.Add(1); {
	case n == 1:
		return // a clean, empty end
	case !s.healed.Load():
		<-r.Context().Done() // accepted, never answered
		return
	}
	w.WriteHeader(200)
	_, _ = w.Write([]byte(frame("ADDED", item("b", "11"))))
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

func TestAListRequestTheServerNeverAnswersIsAbandoned(t *testing.T) {
	// As for the WATCH above, but the stuck request is a relist: the first
	// watch ends with 410 Gone, and the LIST that follows is accepted and
	// never answered until the server heals. The client's header timeout
	// (here 500 ms; by default 90 s, past kube-apiserver's own 60 s) ends
	// the stuck LIST, and the reflector lists again.
	var healed atomic.Bool
	s := &stuckList{healed: &healed}
	inf := startScriptedHandler(t, s, 200*time.Millisecond)
	require.NoError(t, syncWithin(t, inf, 10*time.Second))
	require.Eventually(t, func() bool { return s.lists.Load() >= 2 }, 10*time.Second, time.Millisecond,
		"the informer relisted after the 410")
	healed.Store(true)
	require.Eventually(t, func() bool { _, ok := inf.Lister().Get("default", "b"); return ok }, 10*time.Second, time.Millisecond,
		"the informer is still waiting on a LIST that will never be answered")
}

// stuckList answers the first LIST, ends the first WATCH with 410 Gone,
// never answers the second LIST, and once healed lists a and b.
type stuckList struct {
	lists, watches atomic.Int64
	healed         *atomic.Bool
}

func (s *stuckList) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.URL.Query().Get("watch") != "" {
		w.WriteHeader(200)
		if s.watches.Add(1) == 1 {
			_, _ = w.Write([]byte(frame("ERROR", `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Expired","code":410}`)))
			return
		}
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		return
	}
	switch n := s.lists.Add(1); {
	case n == 1:
		_, _ = w.Write([]byte(`{"metadata":{"resourceVersion":"10"},"items":[` + item("a", "5") + `]}`))
	case !s.healed.Load():
		<-r.Context().Done() // accepted, never answered
	default:
		_, _ = w.Write([]byte(`{"metadata":{"resourceVersion":"12"},"items":[` + item("a", "5") + `,` + item("b", "11") + `]}`))
	}
}
