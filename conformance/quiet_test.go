package conformance

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
)

// statefulSet is what the quiet informer caches of a StatefulSet.
type statefulSet struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Spec            struct {
		Replicas *int32 `json:"replicas,omitempty"`
	} `json:"spec"`
}

// Issue #37 item 4 on both servers: a quiet resource is not a stalled one.
// kube-apiserver serves StatefulSets here without its watch cache
// (main_test.go), from etcd: a streaming list ends with the
// initial-events-end bookmark, and no periodic bookmark follows. A
// streaming informer on a namespace where nothing happens, for four of its
// idle bounds, reopens its watch quietly and stays healthy: no failure, no
// relist. (It used to take the end bookmark for a bookmark cadence, report
// the silence as a stall, back off and relist from etcd every few minutes.)
func TestAQuietStreamingInformerStaysHealthyWithoutTheWatchCache(t *testing.T) {
	if testing.Short() {
		t.Skip("waits four idle bounds of 2 s")
	}
	onBoth(t, func(t *testing.T, tg *target) {
		ns := tg.namespace(t)
		c, err := apiclient.New(tg.cfg)
		require.NoError(t, err)
		var failures, relists, opened atomic.Int32
		inf := informer.New[statefulSet](c, apiclient.Ref{GVR: meta.GVR{Group: "apps", Version: "v1", Resource: "statefulsets"}, Namespace: ns},
			informer.Options[*statefulSet]{
				Sync:  informer.SyncOptions{StreamingList: true},
				Watch: informer.WatchOptions{IdleTimeout: 2 * time.Second},
				Observe: informer.ObserveOptions{
					Logger:            quiet(),
					WatchErrorHandler: func(context.Context, error) { failures.Add(1) },
					Trace: func(ev observe.Event) {
						switch {
						case ev.Stage == observe.StageRelist && ev.Cause != observe.CauseInitial:
							relists.Add(1)
						case ev.Stage == observe.StageWatchOpened:
							opened.Add(1)
						}
					},
				},
			})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- inf.Run(ctx) }()
		t.Cleanup(func() { cancel(); require.NoError(t, <-done) })
		wctx, wcancel := context.WithTimeout(ctx, 30*time.Second)
		defer wcancel()
		require.NoError(t, inf.WaitForSync(wctx))
		deadline := time.Now().Add(8 * time.Second)
		for time.Now().Before(deadline) {
			h := inf.Health()
			require.Nil(t, h.Failure, "a quiet watch is no failure: %+v", h)
			require.False(t, h.Stale, "%+v", h)
			time.Sleep(100 * time.Millisecond) // sampling Health over the idle bounds; nothing is awaited
		}
		require.Zero(t, failures.Load(), "no WatchErrorHandler call")
		require.Zero(t, relists.Load(), "no relist")
		require.GreaterOrEqual(t, opened.Load(), int32(3), "the streaming list, then quiet watches reopened")
	})
}
