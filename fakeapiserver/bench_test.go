package fakeapiserver_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
)

// BenchmarkWritesWithWatchers measures committed writes per second while n
// raw HTTP watchers read every event (frames counted, not decoded), the
// events delivered per second, and the heap each open watch costs (server
// and client side of the connection together). One op is a batch of
// writes; the batch is fully delivered before the next starts, so the
// default watch buffer (256) never overflows.
func BenchmarkWritesWithWatchers(b *testing.B) {
	sizes := []int{1, 100, 1000}
	for _, n := range sizes {
		b.Run("watchers="+strconv.Itoa(n), func(b *testing.B) { benchWrites(b, n) })
	}
}

// benchBatch is the writes per op: 200, fewer with 1,000 watchers so one op
// stays near 20,000 delivered events and -benchtime 1x stays quick.
func benchBatch(watchers int) int { return min(200, max(20, 20_000/watchers)) }

func benchWrites(b *testing.B, watchers int) {
	srv := fakeapiservertest.Start(b, fakeapiserver.Options{Logger: quiet()})
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: watchers}}
	defer client.CloseIdleConnections()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	before := heapInUse()
	var delivered atomic.Int64
	var readers sync.WaitGroup
	rv := strconv.FormatInt(srv.ResourceVersion(), 10)
	for range watchers {
		req, err := http.NewRequestWithContext(ctx, "GET", srv.URL()+"/api/v1/namespaces/default/pods?watch=1&resourceVersion="+rv, nil)
		require.NoError(b, err)
		resp, err := client.Do(req)
		require.NoError(b, err)
		readers.Add(1)
		go func() {
			defer readers.Done()
			defer resp.Body.Close()
			sc := bufio.NewScanner(resp.Body)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				delivered.Add(1)
			}
		}()
	}
	awaitCtx, stop := context.WithTimeout(ctx, 30*time.Second)
	defer stop()
	require.NoError(b, srv.AwaitWatchers(awaitCtx, watchers))
	perWatcher := float64(int64(heapInUse())-int64(before)) / float64(watchers)

	payload := bytes.Repeat([]byte("x"), 800) // a pod of about 1 KB
	batch := benchBatch(watchers)
	b.ResetTimer()
	start := time.Now()
	for op := range b.N {
		for i := range batch {
			name := "p-" + strconv.Itoa(op) + "-" + strconv.Itoa(i)
			if _, err := srv.Create(podsGVR, map[string]any{
				"metadata": map[string]any{"name": name, "namespace": "default", "annotations": map[string]any{"pad": string(payload)}},
				"spec":     map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}}}); err != nil {
				b.Fatal(err)
			}
		}
		want := int64((op + 1) * batch * watchers)
		for delivered.Load() < want {
			if srv.Stats().SlowWatchers > 0 {
				b.Fatal("a watcher fell behind and was ended")
			}
			runtime.Gosched()
		}
	}
	elapsed := time.Since(start)
	b.StopTimer()
	writes := float64(b.N * batch)
	b.ReportMetric(writes/elapsed.Seconds(), "writes/s")
	b.ReportMetric(float64(delivered.Load())/elapsed.Seconds(), "events/s")
	b.ReportMetric(perWatcher, "B/watcher")
	cancel()
	readers.Wait()
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// BenchmarkPaginatedList measures a 500-item page over 5,000 pods, served
// from the snapshot of the first page (the reflector's first list).
func BenchmarkPaginatedList(b *testing.B) {
	srv := fakeapiservertest.Start(b, fakeapiserver.Options{Logger: quiet()})
	n := 5000
	if os.Getenv("ZEROKUBE_BENCH_FULL") == "" {
		n = 2000
	}
	for i := range n {
		mustCreateB(b, srv, fmt.Sprintf("p%05d", i))
	}
	b.ResetTimer()
	for range b.N {
		resp, err := http.Get(srv.URL() + "/api/v1/pods?limit=500")
		if err != nil {
			b.Fatal(err)
		}
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(resp.Body)
		resp.Body.Close()
		b.SetBytes(int64(buf.Len()))
	}
}

func mustCreateB(b *testing.B, srv *fakeapiserver.Server, name string) {
	if _, err := srv.Create(podsGVR, pod(name, map[string]string{"app": "web"})); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkCreate measures one create through the Go API with no watcher:
// decode, stamp metadata, encode once, commit to the history.
func BenchmarkCreate(b *testing.B) {
	srv := fakeapiservertest.Start(b, fakeapiserver.Options{Logger: quiet()})
	body := []byte(`{"metadata":{"name":"NAME","namespace":"default","labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		obj := bytes.Replace(body, []byte("NAME"), []byte("p"+strconv.Itoa(i)), 1)
		if _, err := srv.Create(podsGVR, obj); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "writes/s")
}
