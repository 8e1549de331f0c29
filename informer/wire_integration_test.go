package informer_test

import (
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/internal/workload"
	"github.com/zerokube/zerokube/meta"
)

// cacheOf is an informer's cache by key.
func cacheOf[T any, P meta.PtrObject[T]](inf *informer.Informer[T, P]) map[string]T {
	out := map[string]T{}
	for _, o := range inf.Lister().List(meta.LabelSelector{}) {
		out[meta.Key(o)] = *o
	}
	return out
}

// An informer of a built-in kind reads protobuf from the fake by default;
// one told Transport.JSON reads JSON. Through a list, watch events, a
// watch cut and a compaction (410, then a relist), both must cache the same
// structs, field for field, whatever the type declares.
func TestProtobufAndJSONInformersCacheTheSameStructs(t *testing.T) {
	e := newEnv(t)
	podGVR := meta.GVR{Version: "v1", Resource: "pods"}
	ref := apiclient.Ref{GVR: podGVR, Namespace: "default"}
	create := func(i int, js []byte) {
		var obj map[string]any
		require.NoError(t, json.Unmarshal(js, &obj))
		md := obj["metadata"].(map[string]any)
		md["namespace"] = "default"
		md["name"] = md["name"].(string) + "-" + string(rune('a'+i%26))
		_, err := e.srv.Create(podGVR, obj)
		require.NoError(t, err)
	}
	pods := (workload.Config{PodSize: 9 << 10}).Pods(40)
	for i, js := range pods[:30] {
		create(i, js)
	}
	var mu sync.Mutex
	var causes []observe.RelistCause // of the protobuf informer of the full type
	full := func(tr informer.Transport) *informer.Informer[workload.Pod, *workload.Pod] {
		o := informer.Options[*workload.Pod]{
			Transport: tr,
			Backoff:   informer.BackoffOptions{Initial: 10 * time.Millisecond, Max: 100 * time.Millisecond},
			Observe:   informer.ObserveOptions{Logger: quiet()},
		}
		if !tr.JSON {
			o.Observe.Trace = func(ev observe.Event) {
				if ev.Stage == observe.StageRelist {
					mu.Lock()
					causes = append(causes, ev.Cause)
					mu.Unlock()
				}
			}
		}
		return informer.New[workload.Pod](e.client, ref, o)
	}
	slim := func(tr informer.Transport) *informer.Informer[workload.SlimPod, *workload.SlimPod] {
		o := informer.Options[*workload.SlimPod]{
			Transport: tr,
			Backoff:   informer.BackoffOptions{Initial: 10 * time.Millisecond, Max: 100 * time.Millisecond},
			Sync:      informer.SyncOptions{StreamingList: true},
			Observe:   informer.ObserveOptions{Logger: quiet()},
		}
		return informer.New[workload.SlimPod](e.client, ref, o)
	}
	pbFull, jsFull := full(informer.Transport{}), full(informer.Transport{JSON: true})
	pbSlim, jsSlim := slim(informer.Transport{}), slim(informer.Transport{JSON: true})
	run(t, pbFull)
	run(t, jsFull)
	run(t, pbSlim)
	run(t, jsSlim)
	synced(t, pbFull)
	synced(t, jsFull)
	synced(t, pbSlim)
	synced(t, jsSlim)

	// Watch events, then a cut watch over compacted history.
	for i, js := range pods[30:35] {
		create(30+i, js)
	}
	require.NoError(t, e.srv.AwaitWatchers(t.Context(), 4))
	// Every watch fails until history is compacted: the resumed watches
	// then get 410 (a protobuf ERROR event for the protobuf informers).
	e.srv.FailNext(fakeapiserver.Failure{Count: 1 << 20, Code: 503, Verb: "watch"})
	e.srv.DropWatches()
	for i, js := range pods[35:] {
		create(35+i, js)
	}
	items, _, err := e.srv.List(podGVR, "default")
	require.NoError(t, err)
	require.NoError(t, e.srv.Delete(podGVR, "default", items[0].Name))
	e.srv.Compact(0)
	e.srv.ClearFaults()

	want := len(pods) - 1
	require.Eventually(t, func() bool {
		return len(cacheOf(pbFull)) == want && len(cacheOf(jsFull)) == want &&
			len(cacheOf(pbSlim)) == want && len(cacheOf(jsSlim)) == want
	}, wait, 5*time.Millisecond, "every informer holds the server's pods")
	pf, jf := cacheOf(pbFull), cacheOf(jsFull)
	require.Equal(t, slices.Sorted(maps.Keys(jf)), slices.Sorted(maps.Keys(pf)))
	for k := range jf {
		require.Equal(t, jf[k], pf[k], "pod %s from protobuf and from JSON", k)
	}
	require.Equal(t, cacheOf(jsSlim), cacheOf(pbSlim))
	mu.Lock()
	defer mu.Unlock()
	require.Contains(t, causes, observe.CauseWatchGone, "the protobuf watch's 410 made it relist")
}
