package fakeapiserver_test

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/meta"
)

// listNames reads a list page by page, writing between pages, and returns
// the names in order and each page's remainingItemCount (-1 when absent).
func listNames(t *testing.T, srv *fakeapiserver.Server, path string, limit int, between func(page int)) ([]string, []int) {
	t.Helper()
	q := url.Values{}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	var names []string
	var remaining []int
	var rv any
	for page := 0; ; page++ {
		code, l := get(t, srv.URL()+path+"?"+q.Encode())
		require.Equal(t, 200, code, l)
		lm := l["metadata"].(map[string]any)
		if rv == nil {
			rv = lm["resourceVersion"]
		}
		require.Equal(t, rv, lm["resourceVersion"], "every page at the first page's RV")
		for _, it := range l["items"].([]any) {
			names = append(names, it.(map[string]any)["metadata"].(map[string]any)["name"].(string))
		}
		r := -1
		if n, ok := lm["remainingItemCount"].(float64); ok {
			r = int(n)
		}
		remaining = append(remaining, r)
		cont, _ := lm["continue"].(string)
		if cont == "" {
			return names, remaining
		}
		q.Set("continue", cont)
		between(page)
	}
}

// TestPaginatedListEqualsWholeList checks that the cached, shared snapshot
// gives the same objects as one unpaginated list at the same RV, whatever
// the page size and whatever is written between pages, and that
// remainingItemCount counts what is left of the request's own scope.
func TestPaginatedListEqualsWholeList(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	mustCreate(t, srv, meta.GVR{Version: "v1", Resource: "namespaces"}, map[string]any{"metadata": map[string]any{"name": "other"}})
	for i := range 7 {
		mustCreate(t, srv, podsGVR, pod("d"+strconv.Itoa(i), nil))
		o := pod("o"+strconv.Itoa(i), nil)
		o["metadata"].(map[string]any)["namespace"] = "other"
		mustCreate(t, srv, podsGVR, o)
	}
	writes := 0
	churn := func(int) {
		// A new pod in each namespace and one deleted: none of it may show.
		writes++
		mustCreate(t, srv, podsGVR, pod("a"+strconv.Itoa(writes), nil))
		o := pod("z"+strconv.Itoa(writes), nil)
		o["metadata"].(map[string]any)["namespace"] = "other"
		mustCreate(t, srv, podsGVR, o)
		require.NoError(t, srv.Delete(podsGVR, "default", "a"+strconv.Itoa(writes)))
	}
	for _, tc := range []struct {
		path  string
		limit int
	}{
		{"/api/v1/pods", 1},
		{"/api/v1/pods", 3},
		{"/api/v1/pods", 100},
		{"/api/v1/namespaces/default/pods", 2},
		{"/api/v1/namespaces/other/pods", 3},
		{"/api/v1/namespaces/kube-system/pods", 2},
	} {
		t.Run(tc.path+"/"+strconv.Itoa(tc.limit), func(t *testing.T) {
			whole, _ := listNames(t, srv, tc.path, 0, nil)
			paged, remaining := listNames(t, srv, tc.path, tc.limit, churn)
			require.Equal(t, whole, paged)
			for i, r := range remaining {
				want := len(whole) - (i+1)*tc.limit
				if want <= 0 {
					want = -1 // the last page has none
				}
				require.Equal(t, want, r, "remainingItemCount of page %d", i)
			}
		})
	}
}

// TestStreamingListBatchesWholeFrames checks the batched initial events: a
// streaming list larger than several batches arrives as whole frames, every
// object once in key order with kind and apiVersion, then the bookmark, and
// every frame is counted.
func TestStreamingListBatchesWholeFrames(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	pad := strings.Repeat("x", 2000)
	const n = 200 // about 450 KB: seven batches
	for i := range n {
		p := pod(fmt.Sprintf("p%03d", i), nil)
		p["metadata"].(map[string]any)["annotations"] = map[string]any{"pad": pad}
		mustCreate(t, srv, podsGVR, p)
	}
	before := srv.Stats().Events
	w := openWatch(t, srv.URL()+"/api/v1/namespaces/default/pods?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true", nil)
	for i := range n {
		e := w.mustNext()
		require.Equal(t, "ADDED", e.Type)
		require.Equal(t, fmt.Sprintf("p%03d", i), nameOf(e))
		require.Equal(t, "Pod", e.Object["kind"])
		require.Equal(t, "v1", e.Object["apiVersion"])
	}
	e := w.mustNext()
	require.Equal(t, "BOOKMARK", e.Type)
	// The count follows the write the client just read: poll for it.
	require.Eventually(t, func() bool { return srv.Stats().Events-before == n+1 }, shortWait, time.Millisecond)
}
