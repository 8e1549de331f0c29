package fakeapiserver_test

import (
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/meta"
)

// Concurrent writers and watchers: every watcher must rebuild exactly the
// server's final state from its stream, with strictly increasing RVs.
func TestConcurrentWritersAndWatchersAgree(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet(), WatchBuffer: 100_000})
	const writers, perWriter, watchers = 6, 40, 8
	start := strconv.FormatInt(srv.ResourceVersion(), 10)
	streams := make([]*watchStream, watchers)
	for i := range streams {
		streams[i] = openWatch(t, srv.URL()+"/api/v1/namespaces/default/pods?watch=1&resourceVersion="+start, nil)
	}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWriter {
				name := fmt.Sprintf("w%d-%d", w, i%10)
				if _, err := srv.Create(podsGVR, pod(name, nil)); err != nil {
					_, _ = srv.Patch(podsGVR, "default", name, meta.MergePatch, []byte(`{"metadata":{"labels":{"i":"`+strconv.Itoa(i)+`"}}}`))
				}
				if i%3 == 0 {
					_ = srv.Delete(podsGVR, "default", name)
				}
			}
		}()
	}
	wg.Wait()
	mustCreate(t, srv, podsGVR, pod("sentinel", nil))
	final, _, err := srv.List(podsGVR, "default")
	require.NoError(t, err)
	want := map[string]string{}
	for _, o := range final {
		want[o.Name] = o.ResourceVersion
	}

	var rg sync.WaitGroup
	for i, w := range streams {
		rg.Add(1)
		go func() {
			defer rg.Done()
			got := map[string]string{}
			last := int64(0)
			for {
				e, ok := w.next()
				if !assertOK(t, ok, "watcher %d ended early", i) {
					return
				}
				rv, _ := strconv.ParseInt(rvOf(e.Object), 10, 64)
				if !assertOK(t, rv > last, "watcher %d: RV %d after %d", i, rv, last) {
					return
				}
				last = rv
				if e.Type == "DELETED" {
					delete(got, nameOf(e))
				} else {
					got[nameOf(e)] = rvOf(e.Object)
				}
				if nameOf(e) == "sentinel" {
					break
				}
			}
			assertOK(t, fmt.Sprint(want) == fmt.Sprint(got), "watcher %d state differs:\nwant %v\ngot  %v", i, want, got)
		}()
	}
	rg.Wait()
}

// assertOK reports a failure from any goroutine (require may only stop the
// test goroutine).
func assertOK(t *testing.T, ok bool, format string, args ...any) bool {
	if !ok {
		t.Errorf(format, args...)
	}
	return ok
}
