package fakeapiserver_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/meta"
)

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

func TestWatchFromUnsetStartsWithSyntheticAddedAndInitialEndBookmark(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	createPods(t, srv, 2)
	w := openWatch(t, srv.URL()+"/api/v1/namespaces/default/pods?watch=1&allowWatchBookmarks=true", nil)
	require.Equal(t, 200, w.resp.StatusCode)
	require.Equal(t, "application/json", w.resp.Header.Get("Content-Type"))
	require.Equal(t, []string{"chunked"}, w.resp.TransferEncoding)
	for range 2 {
		e := w.mustNext()
		require.Equal(t, "ADDED", e.Type)
		require.Equal(t, "Pod", e.Object["kind"], "watch objects carry kind")
	}
	bm := w.mustNext()
	require.Equal(t, "BOOKMARK", bm.Type)
	require.Equal(t, "true", bm.Object["metadata"].(map[string]any)["annotations"].(map[string]any)["k8s.io/initial-events-end"])
	require.Equal(t, strconv.FormatInt(srv.ResourceVersion(), 10), rvOf(bm.Object))

	_, err := srv.Patch(podsGVR, "default", "p0", meta.MergePatch, []byte(`{"metadata":{"labels":{"x":"y"}}}`))
	require.NoError(t, err)
	require.NoError(t, srv.Delete(podsGVR, "default", "p1"))
	e := w.mustNext()
	require.Equal(t, "MODIFIED", e.Type)
	require.Equal(t, "p0", nameOf(e))
	e = w.mustNext()
	require.Equal(t, "MODIFIED", e.Type, "a pod's graceful deletion is written first")
	require.Equal(t, "p1", nameOf(e))
	e = w.mustNext()
	require.Equal(t, "DELETED", e.Type)
	require.Equal(t, "p1", nameOf(e))
	require.Equal(t, strconv.FormatInt(srv.ResourceVersion(), 10), rvOf(e.Object), "DELETED carries the deletion's RV")
}

func TestWatchFromResourceVersionReplaysHistory(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	rv := mustCreate(t, srv, podsGVR, pod("a", nil))
	mustCreate(t, srv, cmGVR, map[string]any{"metadata": map[string]any{"name": "other", "namespace": "default"}})
	mustCreate(t, srv, podsGVR, pod("b", nil))
	mustCreate(t, srv, podsGVR, pod("c", nil))
	w := openWatch(t, srv.URL()+"/api/v1/pods?watch=true&resourceVersion="+rv, nil)
	require.Equal(t, "b", nameOf(w.mustNext()))
	require.Equal(t, "c", nameOf(w.mustNext()))
	mustCreate(t, srv, podsGVR, pod("d", nil))
	require.Equal(t, "d", nameOf(w.mustNext()))
}

func TestWatchFromCompactedResourceVersionGetsExpiredErrorEvent(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet(), HistoryEvents: 2})
	rv := mustCreate(t, srv, podsGVR, pod("a", nil))
	createPods(t, srv, 3)
	w := openWatch(t, srv.URL()+"/api/v1/pods?watch=1&resourceVersion="+rv, nil)
	require.Equal(t, 200, w.resp.StatusCode)
	e := w.mustNext()
	require.Equal(t, "ERROR", e.Type)
	require.Equal(t, float64(410), e.Object["code"])
	require.Equal(t, "Expired", e.Object["reason"])
	require.Contains(t, e.Object["message"], "too old resource version: "+rv)
	_, more := w.next()
	require.False(t, more)
}

func TestWatchListSendsInitialEventsThenAnnotatedBookmark(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	createPods(t, srv, 3)
	base := srv.URL() + "/api/v1/pods?watch=1"
	w := openWatch(t, base+"&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=", nil)
	for range 3 {
		require.Equal(t, "ADDED", w.mustNext().Type)
	}
	bm := w.mustNext()
	require.Equal(t, "BOOKMARK", bm.Type)
	require.Contains(t, bm.Object["metadata"].(map[string]any)["annotations"], "k8s.io/initial-events-end")

	for _, q := range []string{"&sendInitialEvents=true", "&resourceVersionMatch=NotOlderThan", "&sendInitialEvents=true&resourceVersionMatch=Exact&resourceVersion=1"} {
		code, st := get(t, base+q)
		require.Equal(t, 422, code, "%s: %v", q, st)
		require.Equal(t, "Invalid", st["reason"])
	}
}

// A watch list is gzipped by default for a client that accepts it, one
// member per flush (the initial events together, then the bookmark), and
// each member's data arrives whole before the next member exists: a
// multistream gzip.Reader, as net/http uses, returns the bookmark while
// the server is still holding the watch open.
func TestWatchListIsGzippedOneMemberPerFlush(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	createPods(t, srv, 2)
	u := srv.URL() + "/api/v1/pods?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"
	resp := gzipWatch(t, u)
	defer resp.Body.Close()
	require.Equal(t, "gzip", resp.Header.Get("Content-Encoding"))
	require.Equal(t, []string{"Accept-Encoding"}, resp.Header.Values("Vary"))
	body := bufio.NewReader(resp.Body)
	zr, err := gzip.NewReader(body)
	require.NoError(t, err)
	zr.Multistream(false)
	frames, err := io.ReadAll(zr)
	require.NoError(t, err)
	require.Equal(t, []string{"ADDED", "ADDED"}, eventTypes(t, frames), "the initial events are one member")

	// The bookmark is the last thing sent until something changes: a
	// multistream reader must hand it over without the next member.
	require.NoError(t, zr.Reset(body))
	var e wireEvent
	require.NoError(t, json.UnmarshalDecode(jsontext.NewDecoder(zr), &e))
	require.Equal(t, "BOOKMARK", e.Type)
	require.NoError(t, resp.Request.Context().Err(), "the bookmark came only when the request gave up")
}

func TestWatchListIsPlainWhenCompressionIsOffOrNotAsked(t *testing.T) {
	u := "/api/v1/pods?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1"
	off := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet(), DisableWatchListCompression: true})
	resp := gzipWatch(t, off.URL()+u)
	defer resp.Body.Close()
	require.Empty(t, resp.Header.Get("Content-Encoding"))
	on := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	plainWatch := gzipWatch(t, on.URL()+"/api/v1/pods?watch=1&timeoutSeconds=1")
	defer plainWatch.Body.Close()
	require.Empty(t, plainWatch.Header.Get("Content-Encoding"), "a watch that is not a watch list is never compressed")
}

// gzipWatch opens u asking for gzip by hand, so that net/http does not
// inflate the body itself. Reading it fails after shortWait.
func gzipWatch(t *testing.T, u string) *http.Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), shortWait)
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, "GET", u, nil)
	require.NoError(t, err)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	return resp
}

// eventTypes lists the types of the newline-separated events in frames.
func eventTypes(t *testing.T, frames []byte) []string {
	t.Helper()
	var types []string
	for line := range bytes.Lines(frames) {
		var e wireEvent
		require.NoError(t, json.Unmarshal(line, &e), "%q", line)
		types = append(types, e.Type)
	}
	return types
}

func TestWatchSelectorTransitions(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	mustCreate(t, srv, podsGVR, pod("a", map[string]string{"app": "web"}))
	rv := strconv.FormatInt(srv.ResourceVersion(), 10)
	w := openWatch(t, srv.URL()+"/api/v1/pods?watch=1&labelSelector=app%3Dweb&resourceVersion="+rv, nil)
	patch := func(labels string) {
		_, err := srv.Patch(podsGVR, "default", "a", meta.MergePatch, []byte(`{"metadata":{"labels":`+labels+`}}`))
		require.NoError(t, err)
	}
	patch(`{"app":"db"}`)
	e := w.mustNext()
	require.Equal(t, "DELETED", e.Type, "stops matching")
	require.Equal(t, "web", e.Object["metadata"].(map[string]any)["labels"].(map[string]any)["app"], "with the previous content")
	require.Equal(t, strconv.FormatInt(srv.ResourceVersion(), 10), rvOf(e.Object), "at the event's RV")
	patch(`{"app":"web"}`)
	require.Equal(t, "ADDED", w.mustNext().Type, "starts matching")
	patch(`{"app":"web","v":"2"}`)
	require.Equal(t, "MODIFIED", w.mustNext().Type)
}

func TestWatchPeriodicBookmarksAndTimeout(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet(), BookmarkInterval: 20 * time.Millisecond})
	rv := mustCreate(t, srv, podsGVR, pod("a", nil))
	w := openWatch(t, srv.URL()+"/api/v1/pods?watch=1&allowWatchBookmarks=true&timeoutSeconds=1&resourceVersion="+rv, nil)
	start := time.Now()
	e := w.mustNext()
	require.Equal(t, "BOOKMARK", e.Type)
	require.Equal(t, rv, rvOf(e.Object))
	require.Equal(t, map[string]any{"resourceVersion": rv}, e.Object["metadata"])
	srv.SetBookmarks(false)
	for {
		if _, ok := w.next(); !ok {
			break
		}
	}
	require.Less(t, time.Since(start), shortWait, "timeoutSeconds ends the watch")
	require.Equal(t, int64(1), srv.Stats().Faults[fakeapiserver.FaultStopBookmarks])
}

func TestGracefulPodDeleteIsModifiedThenDeleted(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	p := pod("a", nil)
	p["spec"].(map[string]any)["nodeName"] = "node-1"
	rv := mustCreate(t, srv, podsGVR, p)
	w := openWatch(t, srv.URL()+"/api/v1/pods?watch=1&resourceVersion="+rv, nil)
	code, _ := call(t, "DELETE", srv.URL()+"/api/v1/namespaces/default/pods/a", "", "")
	require.Equal(t, 200, code)
	e := w.mustNext()
	require.Equal(t, "MODIFIED", e.Type)
	require.NotEmpty(t, e.Object["metadata"].(map[string]any)["deletionTimestamp"])
	require.Equal(t, "DELETED", w.mustNext().Type)
}

func TestWebsocketWatchNeedsOriginAndClosesNormallyAtTimeout(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	createPods(t, srv, 1)
	wsURL := "ws" + strings.TrimPrefix(srv.URL(), "http") + "/api/v1/pods?watch=1&timeoutSeconds=1"
	_, resp, err := websocket.DefaultDialer.Dial(wsURL, nil)
	require.Error(t, err)
	require.Equal(t, 403, resp.StatusCode)
	resp.Body.Close()

	conn, _, err := websocket.DefaultDialer.Dial(wsURL, http.Header{"Origin": {srv.URL()}})
	require.NoError(t, err)
	defer conn.Close()
	typ, msg, err := conn.ReadMessage()
	require.NoError(t, err)
	require.Equal(t, websocket.TextMessage, typ)
	require.True(t, strings.HasSuffix(string(msg), "\n"))
	var e wireEvent
	require.NoError(t, json.Unmarshal(msg, &e))
	require.Equal(t, "ADDED", e.Type)
	_, _, err = conn.ReadMessage()
	require.True(t, websocket.IsCloseError(err, websocket.CloseNormalClosure), "got %v", err)
}

func TestSlowWatcherIsEndedWithoutBlockingWrites(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet(), WatchBuffer: 4})
	rv := mustCreate(t, srv, podsGVR, pod("seed", nil))
	req, err := http.NewRequest("GET", srv.URL()+"/api/v1/pods?watch=1&resourceVersion="+rv, nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req) // never read: the socket buffers fill up
	require.NoError(t, err)
	defer resp.Body.Close()
	ctx, cancel := context.WithTimeout(context.Background(), shortWait)
	defer cancel()
	require.NoError(t, srv.AwaitWatchers(ctx, 1))
	big := strings.Repeat("x", 64<<10)
	for i := range 200 {
		mustCreate(t, srv, cmGVR, map[string]any{"metadata": map[string]any{"name": "c" + strconv.Itoa(i), "namespace": "default"}})
		mustCreate(t, srv, podsGVR, map[string]any{"metadata": map[string]any{"name": "p" + strconv.Itoa(i), "namespace": "default",
			"annotations": map[string]any{"big": big}}})
	}
	require.NoError(t, srv.AwaitWatchersBelow(ctx, 1))
	require.GreaterOrEqual(t, srv.Stats().SlowWatchers, int64(1))
	_, _ = io.Copy(io.Discard, resp.Body) // the stream ends: the client must re-watch
}

func TestWatchFromFutureResourceVersionStaysSilent(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	future := srv.ResourceVersion() + 2
	w := openWatch(t, srv.URL()+"/api/v1/pods?watch=1&resourceVersion="+strconv.FormatInt(future, 10), nil)
	mustCreate(t, srv, podsGVR, pod("a", nil)) // future-1
	mustCreate(t, srv, podsGVR, pod("b", nil)) // future: still not after it
	mustCreate(t, srv, podsGVR, pod("c", nil))
	require.Equal(t, "c", nameOf(w.mustNext()))
}

func TestWatchEndsWithABookmarkAtItsDeadline(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	rv := mustCreate(t, srv, podsGVR, pod("a", nil))
	w := openWatch(t, srv.URL()+"/api/v1/pods?watch=1&allowWatchBookmarks=true&timeoutSeconds=1&resourceVersion="+rv, nil)
	e := w.mustNext()
	require.Equal(t, "BOOKMARK", e.Type)
	require.Equal(t, rv, rvOf(e.Object))
	_, more := w.next()
	require.False(t, more)
	require.NoError(t, w.sc.Err())
}

func TestHistoryOlderThanHistoryAgeIsGone(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet(), HistoryAge: time.Minute, Now: clock})
	rv := mustCreate(t, srv, podsGVR, pod("a", nil))
	mustCreate(t, srv, podsGVR, pod("b", nil))
	w := openWatch(t, srv.URL()+"/api/v1/pods?watch=1&resourceVersion="+rv, nil)
	require.Equal(t, "b", nameOf(w.mustNext()), "within the window: replayed")

	mu.Lock()
	now = now.Add(2 * time.Minute)
	mu.Unlock()
	w = openWatch(t, srv.URL()+"/api/v1/pods?watch=1&resourceVersion="+rv, nil)
	e := w.mustNext()
	require.Equal(t, "ERROR", e.Type)
	require.Equal(t, "Expired", e.Object["reason"])
	code, st := get(t, srv.URL()+"/api/v1/pods?resourceVersionMatch=Exact&resourceVersion="+rv)
	require.Equal(t, 410, code)
	require.Equal(t, "Expired", st["reason"])
}
