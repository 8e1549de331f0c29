package fakeapiserver_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
)

func cm(name, v string) map[string]any {
	return map[string]any{"metadata": map[string]any{"name": name, "namespace": "default"}, "data": map[string]any{"v": v}}
}

func TestRestoreTakesStateAndResourceVersionBack(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet(), TooLargeWait: 50 * time.Millisecond})
	mustCreate(t, srv, cmGVR, cm("a", "1"))
	backup := srv.ResourceVersion()
	mustCreate(t, srv, cmGVR, cm("b", "1"))
	_, err := srv.Update(cmGVR, cm("a", "2"))
	require.NoError(t, err)
	late := strconv.FormatInt(srv.ResourceVersion(), 10)

	require.Equal(t, backup, srv.Restore(backup))
	require.Equal(t, backup, srv.ResourceVersion())
	items, rv, err := srv.List(cmGVR, "default")
	require.NoError(t, err)
	require.Equal(t, strconv.FormatInt(backup, 10), rv)
	require.Len(t, items, 1, "b was created after the backup")
	require.Equal(t, "a", items[0].Name)
	require.Equal(t, strconv.FormatInt(backup, 10), items[0].ResourceVersion, "a is back to its first version")

	code, st := get(t, srv.URL()+"/api/v1/configmaps?resourceVersion="+late)
	require.Equal(t, 504, code, "a LIST at a resourceVersion the server no longer has reaches the future: %v", st)
	require.Equal(t, "ResourceVersionTooLarge", st["details"].(map[string]any)["causes"].([]any)[0].(map[string]any)["reason"])
	w := openWatch(t, srv.URL()+"/api/v1/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion="+late, nil)
	require.Equal(t, 200, w.resp.StatusCode, "a streaming list is accepted first")
	ev := w.mustNext()
	require.Equal(t, "ERROR", ev.Type)
	require.Equal(t, float64(504), ev.Object["code"], "kube-apiserver's cacher sends the 504 as an ERROR event")
	_, more := w.next()
	require.False(t, more)

	again := mustCreate(t, srv, cmGVR, cm("c", "1"))
	require.Equal(t, strconv.FormatInt(backup+1, 10), again, "resourceVersions already handed out come back")
	require.Equal(t, int64(1), srv.Stats().Faults[fakeapiserver.FaultRestore])
}

func TestCompactBetweenPagesExpiresTheContinueToken(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	for i := range 5 {
		mustCreate(t, srv, cmGVR, cm("c"+strconv.Itoa(i), "1"))
	}
	srv.CompactBetweenPages(fakeapiserver.Forever)
	for range 2 {
		code, l := get(t, srv.URL()+"/api/v1/configmaps?limit=2")
		require.Equal(t, 200, code, "the first page is not a continuation")
		md := l["metadata"].(map[string]any)
		code, st := get(t, srv.URL()+"/api/v1/configmaps?limit=2&continue="+md["continue"].(string))
		require.Equal(t, 410, code)
		require.Equal(t, "Expired", st["reason"])
		require.NotEmpty(t, st["metadata"].(map[string]any)["continue"], "with the inconsistent token, as kube-apiserver sends it")
		code, l = get(t, srv.URL()+"/api/v1/configmaps?resourceVersion="+md["resourceVersion"].(string))
		require.Equal(t, 200, code, "an unpaginated list at the list's RV still works")
		require.Len(t, l["items"], 5)
	}
	srv.ClearFaults()
	code, l := get(t, srv.URL()+"/api/v1/configmaps?limit=2")
	require.Equal(t, 200, code)
	code, _ = get(t, srv.URL()+"/api/v1/configmaps?limit=2&continue="+l["metadata"].(map[string]any)["continue"].(string))
	require.Equal(t, 200, code, "cleared")
	require.Equal(t, int64(2), srv.Stats().Faults[fakeapiserver.FaultCompactMidList])
}

func TestPutUncheckedStoresWhatNoTypeExpects(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	rv := strconv.FormatInt(srv.ResourceVersion(), 10)
	w := openWatch(t, srv.URL()+"/api/v1/configmaps?watch=1&resourceVersion="+rv, nil)
	bad := map[string]any{"metadata": map[string]any{"name": "bad", "namespace": "default"}, "data": map[string]any{"port": 8080}}
	_, err := srv.PutUnchecked(cmGVR, bad)
	require.NoError(t, err)
	ev := w.mustNext()
	require.Equal(t, "ADDED", ev.Type)
	require.Equal(t, float64(8080), ev.Object["data"].(map[string]any)["port"], "stored as given: a number where strings belong")
	_, err = srv.Update(cmGVR, cm("bad", "fixed"))
	require.NoError(t, err, "a normal write fixes it")
	require.Equal(t, "MODIFIED", w.mustNext().Type)
	code, _ := call(t, "POST", srv.URL()+"/fake/put-unchecked?version=v1&resource=configmaps", "application/json",
		`{"metadata":{"name":"bad2","namespace":"default"},"data":{"n":1}}`)
	require.Equal(t, 200, code)
	require.Equal(t, int64(2), srv.Stats().Faults[fakeapiserver.FaultUndecodableObject])
	_, err = srv.PutUnchecked(cmGVR, map[string]any{"metadata": map[string]any{"name": "x"}})
	require.ErrorContains(t, err, "namespace")
}

func TestCutStreamingListsEndBeforeTheBookmark(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	for i := range 4 {
		mustCreate(t, srv, cmGVR, cm("c"+strconv.Itoa(i), "1"))
	}
	code, _ := call(t, "POST", srv.URL()+"/fake/cut-streaming-list?count=1", "", "")
	require.Equal(t, 200, code)
	stream := srv.URL() + "/api/v1/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"
	w := openWatch(t, stream, nil)
	var types []string
	for ev, ok := w.next(); ok; ev, ok = w.next() {
		types = append(types, ev.Type)
	}
	require.NoError(t, w.sc.Err(), "a clean end")
	require.Equal(t, []string{"ADDED", "ADDED"}, types, "half the objects, no bookmark")
	w = openWatch(t, stream+"&timeoutSeconds=1", nil)
	for range 4 {
		require.Equal(t, "ADDED", w.mustNext().Type)
	}
	require.Equal(t, "BOOKMARK", w.mustNext().Type, "only the armed count is cut")
	require.Equal(t, int64(1), srv.Stats().Faults[fakeapiserver.FaultCutStreamingList])
}

func TestFailForeverAsEventsWhileListsSucceed(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	code, _ := call(t, "POST", srv.URL()+"/fake/fail?code=410&count=-1&verb=watch&asEvent=true", "", "")
	require.Equal(t, 200, code)
	rv := strconv.FormatInt(srv.ResourceVersion(), 10)
	for range 3 {
		code, _ := get(t, srv.URL()+"/api/v1/configmaps")
		require.Equal(t, 200, code)
		w := openWatch(t, srv.URL()+"/api/v1/configmaps?watch=1&resourceVersion="+rv, nil)
		require.Equal(t, 200, w.resp.StatusCode)
		ev := w.mustNext()
		require.Equal(t, "ERROR", ev.Type)
		require.Equal(t, float64(410), ev.Object["code"])
		require.Equal(t, "Expired", ev.Object["reason"])
	}
	srv.ClearFaults()
	srv.FailNext(fakeapiserver.Failure{Count: 1, Code: 410, Verb: "watch", AsEvent: true, Reason: "Gone", QueryContains: "sendInitialEvents=true"})
	w := openWatch(t, srv.URL()+"/api/v1/configmaps?watch=1&timeoutSeconds=1&resourceVersion="+rv, nil)
	_, more := w.next()
	require.False(t, more, "a plain watch does not match the query: quiet until its timeout")
	w = openWatch(t, srv.URL()+"/api/v1/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan", nil)
	ev := w.mustNext()
	require.Equal(t, "Gone", ev.Object["reason"], "the reason is replaced")
	require.Equal(t, int64(4), srv.Stats().Faults[fakeapiserver.FaultFail])
}
