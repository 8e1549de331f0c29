package bench_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"runtime"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/bench"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/internal/workload"
	"github.com/zerokube/zerokube/meta"
)

// BenchmarkSyncMemory is the informer's initial sync with the LIST served
// from memory (no network, no server): from New to WaitForSync returning,
// through apiclient, the delta queue and the cache. It reports the time as
// a multiple of the decode floor, the heap the informer retains per object
// and the peak heap during the sync as a multiple of the final. At the
// client-go size it also runs each type with and without the informer's
// default meta.Sharer, over the pods in kube-apiserver's order.
func BenchmarkSyncMemory(b *testing.B) {
	for _, n := range podCounts() {
		syncMemory(b, fmt.Sprintf("pods=%d", n), podFixture(b, n, workload.ArticlePodSize), false)
	}
	// Issue #8's comparison with client-go, whose typed informer keeps
	// managedFields: 9.2 KB pods, the full type with and without them.
	syncMemory(b, "pods=5000/size=9k", configFixture(b, 5000, clientGoConfig), true)
}

// syncMemory runs the SyncMemory variants over one fixture: the whole
// ObjectMeta with managedFields kept for slim structs, or for the full type
// when clientGo is set.
func syncMemory(b *testing.B, name string, f *fixture, clientGo bool) {
	src := syncSource{n: f.n, bytes: f.pageBytes(), itemBytes: f.itemBytes}
	b.Run(name+"/type=raw", func(b *testing.B) {
		syncBench[meta.Raw](b, src, memClient(b, f.pages), floor(b, f.pages), informer.Options[*meta.Raw]{})
	})
	b.Run(name+"/type=slim", func(b *testing.B) {
		syncBench[workload.SlimPod](b, src, memClient(b, f.pages), floor(b, f.pages), informer.Options[*workload.SlimPod]{})
	})
	b.Run(name+"/type=slim-fullmeta", func(b *testing.B) {
		syncBench[workload.SlimPodFullMeta](b, src, memClient(b, f.pages), floor(b, f.pages), informer.Options[*workload.SlimPodFullMeta]{})
	})
	if !clientGo {
		b.Run(name+"/type=slim-fullmeta-keepmf", func(b *testing.B) {
			syncBench[workload.SlimPodFullMeta](b, src, memClient(b, f.pages), floor(b, f.pages),
				informer.Options[*workload.SlimPodFullMeta]{Decode: informer.DecodeOptions[*workload.SlimPodFullMeta]{KeepManagedFields: true}})
		})
	}
	b.Run(name+"/type=full", func(b *testing.B) {
		syncBench[workload.Pod](b, src, memClient(b, f.pages), floor(b, f.pages), informer.Options[*workload.Pod]{})
	})
	if clientGo {
		b.Run(name+"/type=full-keepmf", func(b *testing.B) {
			syncBench[workload.Pod](b, src, memClient(b, f.pages), floor(b, f.pages), informer.Options[*workload.Pod]{Decode: informer.DecodeOptions[*workload.Pod]{KeepManagedFields: true}})
		})
		sorted := apiserverOrder(b, f)
		src := syncSource{n: sorted.n, bytes: sorted.pageBytes(), itemBytes: sorted.itemBytes}
		syncSharing(b, name+"/order=apiserver", sorted, src)
	}
}

// syncSharing runs SyncMemory over f in kube-apiserver's order for each
// type twice: with the informer's default meta.Sharer ("-sharing"), and
// with one that shares nothing ("-nosharing": every object with maps of its
// own, as before there was a Sharer), to compare in one run.
func syncSharing(b *testing.B, name string, f *fixture, src syncSource) {
	sharingBench[meta.Raw](b, name+"/type=raw", f, src)
	sharingBench[workload.SlimPod](b, name+"/type=slim", f, src)
	sharingBench[workload.SlimPodFullMeta](b, name+"/type=slim-fullmeta", f, src)
	sharingBench[workload.Pod](b, name+"/type=full", f, src)
}

func sharingBench[T any, P meta.PtrObject[T]](b *testing.B, name string, f *fixture, src syncSource) {
	for _, v := range []struct {
		suffix string
		sharer *meta.Sharer // nil: the informer's default
	}{{"-sharing", nil}, {"-nosharing", meta.NewSharer(0)}} {
		b.Run(name+v.suffix, func(b *testing.B) {
			syncBench[T, P](b, src, memClient(b, f.pages), floor(b, f.pages), informer.Options[P]{Decode: informer.DecodeOptions[P]{Sharer: v.sharer}})
		})
	}
}

// BenchmarkSyncLoopback is the same sync from fakeapiserver over loopback
// HTTP, by paginated LIST and by streaming list (sendInitialEvents). The
// server runs in the same process, so its encoding shares the CPUs: the
// floor is that of the bytes it actually sent.
func BenchmarkSyncLoopback(b *testing.B) {
	for _, n := range podCounts()[1:] {
		srv, src, fl := loadedServer(b, n)
		c, err := apiclient.New(fakeapiservertest.ClientConfig(srv))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(c.CloseIdleConnections)
		for _, streaming := range []bool{false, true} {
			mode := "list"
			if streaming {
				mode = "streaming"
			}
			name := fmt.Sprintf("pods=%d/%s", n, mode)
			b.Run(name+"/type=raw", func(b *testing.B) {
				syncBench[meta.Raw](b, src, c, fl, informer.Options[*meta.Raw]{Sync: informer.SyncOptions{StreamingList: streaming}})
			})
			b.Run(name+"/type=slim", func(b *testing.B) {
				syncBench[workload.SlimPod](b, src, c, fl, informer.Options[*workload.SlimPod]{Sync: informer.SyncOptions{StreamingList: streaming}})
			})
			b.Run(name+"/type=full", func(b *testing.B) {
				syncBench[workload.Pod](b, src, c, fl, informer.Options[*workload.Pod]{Sync: informer.SyncOptions{StreamingList: streaming}})
			})
		}
	}
}

// syncSource describes what a sync reads: n objects in bytes of list
// replies, itemBytes of them the objects' own JSON.
type syncSource struct {
	n                int
	bytes, itemBytes int64
}

func syncBench[T any, P meta.PtrObject[T]](b *testing.B, src syncSource, c *apiclient.Client, fl cost, opts informer.Options[P]) {
	b.SetBytes(src.bytes)
	b.ReportAllocs()
	var retained, peak uint64
	var spent cost
	iters := 0
	for b.Loop() {
		b.StopTimer()
		base := bench.HeapAfterGC()
		ph := bench.StartPeakHeap(0)
		b.StartTimer()
		var r *running[T, P]
		var err error
		spent.add(measure(func() {
			if r, err = startInformer[T, P](c, opts); err != nil {
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			err = r.inf.WaitForSync(ctx)
			cancel()
		}))
		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		pk := ph.Stop()
		after := bench.HeapAfterGC()
		if got := r.inf.Store().Len(); got != src.n {
			b.Fatalf("synced %d objects, want %d", got, src.n)
		}
		runtime.KeepAlive(r)
		if err := r.stop(); err != nil {
			b.Fatal(err)
		}
		retained += after - min(base, after)
		peak += pk - min(base, pk)
		iters++
		b.StartTimer()
	}
	reportRate(b, iters, src.n, spent, fl)
	perObj := float64(retained) / float64(iters) / float64(src.n)
	b.ReportMetric(perObj, "B/obj")
	b.ReportMetric(perObj/(float64(src.itemBytes)/float64(src.n)), "x-json")
	b.ReportMetric(float64(peak)/float64(max(retained, 1)), "peak-x-final")
}

// loadedServer starts a fakeapiserver holding n article-sized pods, and
// returns it with what a LIST of them reads and the floor of those bytes.
func loadedServer(b *testing.B, n int) (*fakeapiserver.Server, syncSource, cost) {
	b.Helper()
	f := podFixture(b, n, workload.ArticlePodSize)
	srv := podServer(b, f)
	pages := fetchPages(b, srv.URL())
	src := syncSource{n: n, itemBytes: f.itemBytes}
	for _, p := range pages {
		src.bytes += int64(len(p))
	}
	return srv, src, floor(b, pages)
}

// podServer starts a fakeapiserver holding f's pods in their namespaces.
func podServer(b *testing.B, f *fixture) *fakeapiserver.Server {
	b.Helper()
	srv := fakeapiservertest.Start(b, fakeapiserver.Options{Logger: quiet})
	nsGVR := meta.GVR{Version: "v1", Resource: "namespaces"}
	for _, ns := range (workload.Config{}).NamespaceNames() {
		if _, err := srv.Create(nsGVR, fmt.Sprintf(`{"metadata":{"name":%q}}`, ns)); err != nil {
			b.Fatal(err)
		}
	}
	createAll(b, srv, f.items)
	return srv
}

// createAll creates the pods items on every CPU: Create decodes its
// argument before it takes the server's lock, and that decoding is half of
// loading 50,000 pods. The pods' resourceVersions then follow the order the
// creates won the lock in, which nothing here depends on (lists are sorted
// by key).
func createAll(b *testing.B, srv *fakeapiserver.Server, items [][]byte) {
	b.Helper()
	inParallel(b, runtime.GOMAXPROCS(0), len(items), func(i int) error {
		o, err := srv.Create(podsRef.GVR, items[i])
		if err != nil {
			return err
		}
		// A create replaces a pod's status with Pending, as kube-apiserver
		// does; the kubelet's status comes through /status.
		var p struct {
			Status jsontext.Value `json:"status"`
		}
		if err := json.Unmarshal(items[i], &p); err != nil || len(p.Status) == 0 {
			return err
		}
		patch := append(append([]byte(`{"status":`), p.Status...), '}')
		_, err = srv.PatchStatus(podsRef.GVR, o.Namespace, o.Name, meta.MergePatch, patch)
		return err
	})
}

// inParallel calls fn for 0..n-1 on workers goroutines and fails b with the
// first error, after every worker has stopped, so none outlives a failure.
func inParallel(b *testing.B, workers, n int, fn func(i int) error) {
	b.Helper()
	errs := make(chan error, workers)
	for w := range workers {
		go func() {
			for i := w; i < n; i += workers {
				if err := fn(i); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	var first error
	for range workers {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		b.Fatal(first)
	}
}

// fetchPages reads the paginated LIST as the informer will, raw.
func fetchPages(b *testing.B, base string) [][]byte {
	b.Helper()
	var pages [][]byte
	q := url.Values{"limit": {fmt.Sprint(pageSize)}}
	last := 0
	for {
		resp, err := http.Get(base + "/api/v1/pods?" + q.Encode())
		if err != nil {
			b.Fatal(err)
		}
		// Every page is about as large as the one before: reading into
		// room for it (and a margin) spares io.ReadAll's regrowing and
		// copying, seconds of CPU at 50,000 pods.
		buf := bytes.NewBuffer(make([]byte, 0, last+last/4+bytes.MinRead))
		_, err = buf.ReadFrom(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("bench: list: %v %s", err, resp.Status)
		}
		body := buf.Bytes()
		last = len(body)
		pages = append(pages, body)
		var l struct {
			Metadata meta.ListMeta `json:"metadata"`
		}
		if err := jsonUnmarshal(body, &l); err != nil {
			b.Fatal(err)
		}
		if l.Metadata.Continue == "" {
			return pages
		}
		q.Set("continue", l.Metadata.Continue)
	}
}
