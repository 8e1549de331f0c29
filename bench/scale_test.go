package bench_test

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/apiclient/kubeconfig"
	"github.com/zerokube/zerokube/bench"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/internal/workload"
	"github.com/zerokube/zerokube/meta"
)

var podsGVR = meta.GVR{Version: "v1", Resource: "pods"}

// tlsServer starts an in-process fakeapiserver over TLS (so the client
// speaks HTTP/2, as it does to kube-apiserver) and a client for it.
func tlsServer(tb testing.TB) (*fakeapiserver.Server, *apiclient.Client) {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	srv := fakeapiserver.New(fakeapiserver.Options{Addr: "127.0.0.1:0", TLS: true, Logger: quiet})
	if err := srv.Start(ctx); err != nil {
		cancel()
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cancel(); srv.Close() })
	kc := filepath.Join(tb.TempDir(), "kubeconfig")
	if err := srv.WriteKubeconfig(kc); err != nil {
		tb.Fatal(err)
	}
	cfg, err := kubeconfig.LoadFile(kc, "")
	if err != nil {
		tb.Fatal(err)
	}
	cfg.QPS = -1
	c, err := apiclient.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(c.CloseIdleConnections)
	return srv, c
}

// createPods creates n pods of the lean 1 KiB shape spread over namespaces.
func createPods(tb testing.TB, srv *fakeapiserver.Server, n int, namespaces []string) {
	tb.Helper()
	cfg := workload.Config{PodSize: workload.SmallPodSize}
	nsGVR := meta.GVR{Version: "v1", Resource: "namespaces"}
	for _, ns := range namespaces {
		if _, err := srv.Create(nsGVR, fmt.Appendf(nil, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":%q}}`, ns)); err != nil {
			tb.Fatal(err)
		}
	}
	for i := range n {
		r, err := meta.NewRaw(cfg.PodJSON(i))
		if err != nil {
			tb.Fatal(err)
		}
		ns := namespaces[i%len(namespaces)]
		obj := fmt.Appendf(nil, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":%q,"namespace":%q,"labels":{"app":"a"}},"spec":{"nodeName":"n"}}`, r.Name, ns)
		if _, err := srv.Create(podsGVR, obj); err != nil {
			tb.Fatal(err)
		}
	}
}

func nsNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("ns-%04d", i)
	}
	return out
}

// TestFactoryInformersShareOneConnection runs 20 namespace-scoped
// informers from one Factory over one client: once all are synced and
// watching, the server holds a single open connection carrying all 20
// watches (HTTP/2 multiplexes them). Before apiclient's connection gate
// the server accepted 20 connections and 4 stayed open.
func TestFactoryInformersShareOneConnection(t *testing.T) {
	srv, c := tlsServer(t)
	namespaces := nsNames(20)
	createPods(t, srv, 200, namespaces)
	f := informer.NewFactory(c, quiet)
	for _, ns := range namespaces {
		informer.Shared[workload.SlimPod](f, podsRef.Namespaced(ns), informer.Options[*workload.SlimPod]{Observe: informer.ObserveOptions{Logger: quiet}})
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run, stop := context.WithCancel(ctx)
	f.Start(run)
	defer func() { stop(); f.Shutdown() }()
	if err := f.WaitForCacheSync(ctx); err != nil {
		t.Fatal(err)
	}
	if err := srv.AwaitWatchers(ctx, len(namespaces)); err != nil {
		t.Fatal(err)
	}
	st := srv.Stats()
	t.Logf("connections accepted %d, open %d, watches open %d, requests %d", st.Connections, st.OpenConns, st.ActiveWatchers, st.Requests)
	if st.OpenConns != 1 {
		t.Fatalf("%d connections open for %d informers of one client, want 1", st.OpenConns, len(namespaces))
	}
}

// BenchmarkNamespaces syncs 1,000 namespace-scoped informers (one per
// namespace, 10 pods each) from one Factory over one HTTP/2 client, against
// one cluster-wide informer over the same 10,000 pods: time to sync every
// cache, heap retained per pod, goroutines, and the connections and
// requests the server saw.
func BenchmarkNamespaces(b *testing.B) {
	const nns, perNS = 1000, 10
	namespaces := nsNames(nns)
	for _, scoped := range []bool{true, false} {
		name := "informers=1000-namespaced"
		if !scoped {
			name = "informers=1-cluster-wide"
		}
		b.Run(name, func(b *testing.B) {
			srv, c := tlsServer(b)
			createPods(b, srv, nns*perNS, namespaces)
			for b.Loop() {
				namespacesOnce(b, srv, c, namespaces, scoped, nns*perNS)
			}
		})
	}
}

func namespacesOnce(b *testing.B, srv *fakeapiserver.Server, c *apiclient.Client, namespaces []string, scoped bool, pods int) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// The last iteration's watches end on the server a little after its
	// informers stop: counting from zero keeps them out of this one's count.
	if err := srv.AwaitWatchersBelow(ctx, 1); err != nil {
		b.Fatal(err)
	}
	before := srv.Stats()
	base := bench.HeapAfterGC()
	g0 := runtime.NumGoroutine()
	f := informer.NewFactory(c, quiet)
	refs := []apiclient.Ref{podsRef}
	if scoped {
		refs = refs[:0]
		for _, ns := range namespaces {
			refs = append(refs, podsRef.Namespaced(ns))
		}
	}
	for _, ref := range refs {
		informer.Shared[workload.SlimPod](f, ref, informer.Options[*workload.SlimPod]{Observe: informer.ObserveOptions{Logger: quiet}})
	}
	run, stop := context.WithCancel(ctx)
	start := time.Now()
	f.Start(run)
	if err := f.WaitForCacheSync(ctx); err != nil {
		b.Fatal(err)
	}
	took := time.Since(start)
	if err := srv.AwaitWatchers(ctx, before.ActiveWatchers+len(refs)); err != nil {
		b.Fatal(err)
	}
	retained := bench.HeapAfterGC() - base
	after := srv.Stats()
	goroutines := runtime.NumGoroutine() - g0
	stop()
	f.Shutdown()
	b.ReportMetric(took.Seconds(), "sync-s")
	b.ReportMetric(float64(retained)/float64(pods), "B/pod")
	b.ReportMetric(float64(goroutines)/float64(len(refs)), "goroutines/informer")
	b.ReportMetric(float64(after.OpenConns), "conns-open")
	b.ReportMetric(float64(after.Requests-before.Requests), "requests")
}
