package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
)

// uiURL waits for the demo's line naming the live page and returns its URL.
func (r *running) uiURL(t testing.TB) string {
	t.Helper()
	return waitFor(t, r.stderr, regexp.MustCompile(`(?:live page of the data path at |数据通路的实时页面：)(\S+)`))[1]
}

// stateStream reads the page's server-sent events, the same stream the
// page draws, so a test waits for what a reader would see, not for time.
type stateStream struct {
	body   *bufio.Scanner
	close  func()
	latest state
}

func openStream(t testing.TB, base string) *stateStream {
	t.Helper()
	return openStreamLang(t, base, "")
}

// openStreamLang opens the stream in language l ("": the page's default).
func openStreamLang(t testing.TB, base, l string) *stateStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "GET", base+"api/events?lang="+l, nil)
	require.NoError(t, err)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	s := &stateStream{body: sc, close: func() { cancel(); _ = res.Body.Close() }}
	t.Cleanup(s.close)
	return s
}

// await reads frames until cond holds for one, and returns that state. A
// frame comes after every change, so a condition the informer reaches is
// seen; the deadline only bounds a failing test.
func (s *stateStream) await(t testing.TB, what string, cond func(st state) bool) state {
	t.Helper()
	timer := time.AfterFunc(waitTimeout, s.close)
	defer timer.Stop()
	for s.body.Scan() {
		line, ok := strings.CutPrefix(s.body.Text(), "data: ")
		if !ok {
			continue
		}
		var st state
		require.NoError(t, json.Unmarshal([]byte(line), &st))
		s.latest = st
		if cond(st) {
			return st
		}
	}
	t.Fatalf("the page never showed %s within %v; last state: %+v", what, waitTimeout, s.latest.Reflector)
	return state{}
}

// act presses a button through the endpoint the page's buttons use.
func act(t testing.TB, base, name string) actionReply {
	t.Helper()
	return actLang(t, base, name, "")
}

// actLang presses it asking for the answer in language l.
func actLang(t testing.TB, base, name, l string) actionReply {
	t.Helper()
	res, err := http.Post(base+"api/action", "application/json", strings.NewReader(`{"action":"`+name+`","lang":"`+l+`"}`))
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode, "action %s", name)
	var reply actionReply
	require.NoError(t, json.NewDecoder(res.Body).Decode(&reply))
	return reply
}

var regexpOf = regexp.MustCompile

func watching(st state) bool { return st.Reflector.State == "watching" && st.Reflector.Synced }

// TestLivePageReportsWhatTheInformerWentThrough drives the demo through
// the page's own endpoints: a sync, a write, a cut watch and a compaction
// that forces a 410. After each, the page must report the reflector state
// and the counters the informer really went through.
func TestLivePageReportsWhatTheInformerWentThrough(t *testing.T) {
	r := startDemo(t, "--ui", "127.0.0.1:0", "--churn=false", "--resync=0")
	base := r.uiURL(t)
	s := openStream(t, base)

	st := s.await(t, "the first sync and an open watch", func(st state) bool {
		return watching(st) && st.Cache.Objects == seedObjects
	})
	assert.Equal(t, map[string]int{"initial": 1}, st.Reflector.Relists)
	assert.Equal(t, 1, st.Queue.Replaces)
	assert.Equal(t, "fake", st.Mode)
	require.NotNil(t, st.Server)

	created := act(t, base, "create").Result
	st = s.await(t, "the created pod in the cache and at the handler", func(st state) bool {
		return st.Cache.Objects == seedObjects+1 && len(st.Handlers) == 1 && st.Handlers[0].Calls == seedObjects+1
	})
	assert.Equal(t, 1, st.Reflector.Events[string(meta.Added)], "created by %q", created)
	assert.Equal(t, "print", st.Handlers[0].Name)

	act(t, base, "cut-watch")
	act(t, base, "label") // the write that makes the armed watch break
	st = s.await(t, "a new watch after the cut", func(st state) bool {
		return watching(st) && st.Reflector.WatchCalls >= 2
	})
	assert.Equal(t, map[string]int{"initial": 1}, st.Reflector.Relists, "a cut watch re-watches; it does not relist")

	// The reflector treats a watch that ends within a second without any
	// event as a failure and relists at once (as client-go does), which
	// would take the relist below off the 410 path: let the new watch
	// deliver one event first.
	act(t, base, "label")
	s.await(t, "an event on the new watch", func(st state) bool { return watching(st) && st.Reflector.WatchEvents >= 1 })

	act(t, base, "compact-cut")
	st = s.await(t, "the relist a 410 forces, and a watch after it", func(st state) bool {
		return watching(st) && st.Reflector.Relists["watch-gone"] == 1 && st.Queue.Replaces == 2 &&
			st.Cache.Objects == seedObjects+2
	})
	assert.GreaterOrEqual(t, st.Reflector.ListCalls, 2)
	assert.Contains(t, st.Reflector.LastError, "410", "the page says why it relisted")
	stages := map[string]bool{}
	for _, l := range st.Log {
		stages[l.Stage] = true
		assert.NotEmpty(t, l.Part, "line %d names its box", l.Seq)
	}
	for _, want := range []string{"relist", "list-page", "replace", "watch-opened", "watch-ended", "store-updated", "handler-called"} {
		assert.True(t, stages[want], "the log shows a %s line", want)
	}
	assert.Equal(t, 0, r.stop(t))
}

// TestLivePageRejectsBadRequests: every malformed or unknown request gets
// a clear 4xx with a JSON body saying what was wrong, never a panic.
func TestLivePageRejectsBadRequests(t *testing.T) {
	dash := newDashboard(time.Now, "fake", "v1/pods")
	ran := 0
	u, err := startUI("127.0.0.1:0", dash, []action{{name: "ok", label: msg{en: "OK", zh: "好"}, run: func(context.Context) (text, error) { ran++; return say(msg{en: "done", zh: "完成"}), nil }},
		{name: "broken", label: msg{en: "Broken", zh: "坏了"}, run: func(context.Context) (text, error) { return text{}, errors.New("it broke") }}}, langEN)
	require.NoError(t, err)
	defer u.stop()
	base := u.URL()
	for _, tc := range []struct {
		name, method, path, body string
		code                     int
		says                     string
	}{
		{"unknown action", "POST", "api/action", `{"action":"explode"}`, 400, `unknown action "explode"; known: ok, broken`},
		{"not JSON", "POST", "api/action", `{action`, 400, "must be JSON"},
		{"unknown field", "POST", "api/action", `{"action":"ok","extra":1}`, 400, "unknown field"},
		{"empty body", "POST", "api/action", ``, 400, "must be JSON"},
		{"huge body", "POST", "api/action", `{"action":"` + strings.Repeat("x", 10000) + `"}`, 400, "must be JSON"},
		{"GET on the action", "GET", "api/action", ``, 405, "use POST"},
		{"unknown page", "GET", "nope", ``, 404, "no page at GET /nope"},
		{"POST to the state", "POST", "api/state", `{}`, 405, ""},
		{"failing action", "POST", "api/action", `{"action":"broken"}`, 500, "broken: it broke"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, base+tc.path, strings.NewReader(tc.body))
			require.NoError(t, err)
			res, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer res.Body.Close()
			require.Equal(t, tc.code, res.StatusCode)
			if tc.says != "" {
				var e uiError
				require.NoError(t, json.NewDecoder(res.Body).Decode(&e))
				assert.Contains(t, e.Error, tc.says)
				assert.Equal(t, tc.code, e.Code)
			}
		})
	}
	assert.Equal(t, 0, ran, "no rejected request ran an action")
	require.Equal(t, "done", act(t, base, "ok").Result)
}

// TestLivePageOfAnotherServerOnlyShows: with no fault server there are
// no buttons, and pressing one through the endpoint says why.
func TestLivePageOfAnotherServerOnlyShows(t *testing.T) {
	u, err := startUI("127.0.0.1:0", newDashboard(time.Now, "remote", "v1/pods"), nil, langEN)
	require.NoError(t, err)
	defer u.stop()
	res, err := http.Post(u.URL()+"api/action", "application/json", strings.NewReader(`{"action":"compact"}`))
	require.NoError(t, err)
	defer res.Body.Close()
	assert.Equal(t, http.StatusConflict, res.StatusCode)
	res2, err := http.Get(u.URL())
	require.NoError(t, err)
	defer res2.Body.Close()
	assert.Equal(t, http.StatusOK, res2.StatusCode)
	var page strings.Builder
	_, _ = bufio.NewReader(res2.Body).WriteTo(&page)
	assert.Contains(t, page.String(), `data-mode="remote"`)
	assert.Contains(t, page.String(), "named by --kubeconfig or --master (view only)")
}

func TestUIAddrListensOnLoopbackByDefault(t *testing.T) {
	for in, want := range map[string]string{
		":8080":          "127.0.0.1:8080",
		"127.0.0.1:0":    "127.0.0.1:0",
		"0.0.0.0:8080":   "0.0.0.0:8080", // asked for explicitly
		"localhost:9000": "localhost:9000",
	} {
		assert.Equal(t, want, uiAddr(in), in)
	}
}

// TestDashboardFoldsTraceEvents checks the page's state machine on a
// scripted sequence: the states a learner should see, in order.
func TestDashboardFoldsTraceEvents(t *testing.T) {
	now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	d := newDashboard(func() time.Time { return now }, "fake", "v1/pods")
	gone := &meta.StatusError{Status: meta.Status{Code: 410, Reason: "Expired", Message: "too old resource version: 5 (9)"}}
	steps := []struct {
		ev    observe.Event
		state string
	}{
		{observe.Event{Stage: observe.StageRelist, Cause: observe.CauseInitial}, "listing"},
		{observe.Event{Stage: observe.StageListPage, Page: 1, Items: 2, ResourceVersion: "5", More: true}, "listing"},
		{observe.Event{Stage: observe.StageListPage, Page: 2, Items: 1, ResourceVersion: "5"}, "listing"},
		{observe.Event{Stage: observe.StageReplace, Items: 3, ResourceVersion: "5"}, "listing"},
		{observe.Event{Stage: observe.StageSynced, Items: 3, ResourceVersion: "5"}, "listing"},
		{observe.Event{Stage: observe.StageWatchOpened, ResourceVersion: "5"}, "watching"},
		{observe.Event{Stage: observe.StageEvent, EventType: meta.Added, Key: "default/a", ResourceVersion: "6"}, "watching"},
		{observe.Event{Stage: observe.StageDeltaQueued, Op: observe.OpAdd, Key: "default/a"}, "watching"},
		{observe.Event{Stage: observe.StageStoreUpdated, Op: observe.OpAdd, Key: "default/a"}, "watching"},
		{observe.Event{Stage: observe.StageWatchEnded, Items: 1, Err: gone, ResourceVersion: "6"}, "watch-ended"},
		{observe.Event{Stage: observe.StageRelist, Cause: observe.CauseWatchGone, ResourceVersion: "6"}, "listing"},
		{observe.Event{Stage: observe.StageListPage, Page: 1, Items: 2, ResourceVersion: "9"}, "listing"},
		{observe.Event{Stage: observe.StageReplace, Items: 2, ResourceVersion: "9"}, "listing"},
		{observe.Event{Stage: observe.StageStoreUpdated, Op: observe.OpTombstone, Key: "default/b"}, "listing"},
		{observe.Event{Stage: observe.StageCacheReplaced, Items: 2}, "listing"},
		{observe.Event{Stage: observe.StageBackoff, Duration: 800 * time.Millisecond, Err: errors.New("boom")}, "backing-off"},
		{observe.Event{Stage: observe.StageWatchOpened, ResourceVersion: "9"}, "watching"},
	}
	for i, s := range steps {
		now = now.Add(time.Second)
		d.observe(s.ev)
		require.Equal(t, s.state, d.snapshot(langEN).Reflector.State, "step %d: %s", i, s.ev)
	}
	st := d.snapshot(langEN)
	assert.Equal(t, map[string]int{"initial": 1, "watch-gone": 1}, st.Reflector.Relists)
	assert.Equal(t, "9", st.Reflector.RV)
	assert.Equal(t, 1, st.Reflector.ListPages, "the last list's pages")
	assert.Equal(t, 2, st.Queue.Replaces)
	assert.Equal(t, 1, st.Queue.Tombstones, "the relist's tombstone")
	assert.Equal(t, 1, st.Loop.CacheSwaps)
	assert.Equal(t, 1, st.Reflector.Backoffs)
	assert.Empty(t, st.Reflector.Backoff, "an open watch ends the backoff")
	assert.True(t, st.Reflector.Synced)
	assert.Len(t, st.Log, len(steps))
	assert.Equal(t, "RealFIFO.Replace", st.Log[3].ClientGo, "the default queue's twin in client-go")
	assert.Contains(t, st.Log[1].Text, "more pages follow", "the list-page line says a continue token came")
	assert.Equal(t, now, st.Reflector.Since, "the reflector has been watching since the last step")
}

// TestDashboardLogKeepsTheLastLines: the page's log is bounded, newest last.
func TestDashboardLogKeepsTheLastLines(t *testing.T) {
	d := newDashboard(time.Now, "fake", "v1/pods")
	for i := range logKeep + 50 {
		d.observe(observe.Event{Stage: observe.StageEvent, EventType: meta.Modified, Key: fmt.Sprintf("ns/o%d", i)})
	}
	st := d.snapshot(langEN)
	require.Len(t, st.Log, logKeep)
	assert.Equal(t, int64(logKeep+50), st.Log[logKeep-1].Seq)
	assert.Equal(t, int64(logKeep+50), st.Seq)
	assert.Equal(t, logKeep+50, st.Reflector.Events[string(meta.Modified)])
}

// countingMetrics counts the calls it gets.
type countingMetrics struct {
	observe.NopMetrics
	calls *int
}

func (c countingMetrics) QueueDepth(int)                                   { *c.calls++ }
func (c countingMetrics) HandlerCall(string, time.Duration, time.Duration) { *c.calls++ }

// TestFanOutGivesEveryConsumerEachCall: --trace and the live page both see
// the whole stream, and with neither the informer keeps its defaults.
func TestFanOutGivesEveryConsumerEachCall(t *testing.T) {
	var a, b int
	m := fanOutMetrics([]observe.Metrics{countingMetrics{calls: &a}, countingMetrics{calls: &b}})
	m.QueueDepth(3)
	m.HandlerCall("h", time.Millisecond, time.Millisecond)
	assert.Equal(t, []int{2, 2}, []int{a, b})
	assert.Nil(t, fanOutMetrics(nil))
	assert.Nil(t, fanOutTrace(nil))
	var seen []string
	tr := fanOutTrace([]func(observe.Event){
		func(ev observe.Event) { seen = append(seen, "a:"+ev.Stage.String()) },
		func(ev observe.Event) { seen = append(seen, "b:"+ev.Stage.String()) },
	})
	tr(observe.Event{Stage: observe.StageSynced})
	assert.Equal(t, []string{"a:synced", "b:synced"}, seen)
}
