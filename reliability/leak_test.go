package reliability

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/informer"
)

// heapInUse returns the live heap after two collections (the second
// collects what finalizers of the first freed).
func heapInUse() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// cycle starts a fake server with objects, an informer with a handler over
// it, waits for the sync and one live event, and stops everything.
func cycle(t *testing.T, i, objects int) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := fakeapiserver.New(fakeapiserver.Options{Logger: quiet()})
	require.NoError(t, srv.Start(ctx))
	defer func() { require.NoError(t, srv.Close()) }()
	big := strings.Repeat("x", 1024)
	for j := range objects {
		_, err := srv.Create(cmGVR, map[string]any{"metadata": map[string]any{"name": fmt.Sprintf("cm-%d", j), "namespace": "default"},
			"data": map[string]string{"v": big}})
		require.NoError(t, err)
	}
	c, err := apiclient.NewWithOptions(fakeapiservertest.ClientConfig(srv), apiclient.Options{Logger: quiet()})
	require.NoError(t, err)
	defer c.CloseIdleConnections()
	inf := informer.New[object](c, allCMs, informer.Options[*object]{
		Transport: informer.Transport{Websocket: wsDialer(i%3 == 0)},
		Sync:      informer.SyncOptions{StreamingList: i%2 == 1},
		Observe:   informer.ObserveOptions{Logger: quiet()},
	})
	seen := make(chan struct{}, 1)
	_, err = inf.AddHandler(informer.HandlerFuncs[*object]{UpdateFunc: func(_, o *object) {
		select {
		case seen <- struct{}{}:
		default:
		}
	}}, informer.HandlerOptions{})
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	require.NoError(t, inf.WaitForSync(ctx))
	require.NoError(t, srv.AwaitWatchers(ctx, 1))
	_, err = srv.Update(cmGVR, map[string]any{"metadata": map[string]any{"name": "cm-0", "namespace": "default"}, "data": map[string]string{"v": "new"}})
	require.NoError(t, err)
	select {
	case <-seen:
	case <-time.After(10 * time.Second):
		t.Fatal("the live update never reached the handler")
	}
	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
}

// TestStartStopLeavesNothingBehind starts and stops 100 fake servers with an
// informer each: afterwards no goroutine is left and the heap is back to
// where it was (each cycle caches ~100 KiB, so a leak of the informer, its
// cache or its connections would add up to megabytes).
func TestStartStopLeavesNothingBehind(t *testing.T) {
	const cycles, objects = 100, 100
	ignore := goleak.IgnoreCurrent()
	cycle(t, 0, objects) // warm up pools and lazily built tables
	require.NoError(t, goleak.Find(ignore), "one cycle left goroutines behind")
	before := heapInUse()
	start := time.Now()
	for i := range cycles {
		cycle(t, i, objects)
	}
	took := time.Since(start)
	require.NoError(t, goleak.Find(ignore), "goroutines left after %d cycles", cycles)
	after := heapInUse()
	growth := int64(after) - int64(before)
	t.Logf("leak check: %d cycles of server+informer (%d objects of 1 KiB) in %s; heap %d KiB → %d KiB (%+d KiB)",
		cycles, objects, took.Round(time.Millisecond), before>>10, after>>10, growth>>10)
	require.Less(t, growth, int64(4<<20), "heap grew by %d KiB over %d cycles", growth>>10, cycles)
}
