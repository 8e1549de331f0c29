package bench_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/bench"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/internal/workload"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/snapshot"
)

// BenchmarkRestart is an agent's restart (issue #17): an informer on n
// article-sized pods stops cleanly, the server changes (churn: 1% of the
// pods relabelled; idle: nothing), and a new informer starts, either
// relisting everything or resuming from the snapshot the first one left
// (Options.Snapshot). Each op is one restart, timed until the cache holds
// the server's state: synced, and caught up with the server's
// resourceVersion. It reports ms-synced and ms-current (wall), cpu-ms (the
// process's CPU: client and the in-process fakeapiserver together, so a
// relist's server-side cost counts), and server-KB, the bytes of response
// bodies the agent read from the server. The snapshot is read from and
// written to a temporary directory without fsync (the page cache); the
// writing at stop is not timed.
func BenchmarkRestart(b *testing.B) {
	for _, n := range []int{5000, 50000} {
		if n > 5000 && !full() {
			continue
		}
		srv := podServer(b, podFixture(b, n, workload.ArticlePodSize))
		for _, churn := range []bool{false, true} {
			for _, resume := range []bool{false, true} {
				name := fmt.Sprintf("pods=%d/server=%s/start=%s", n, pick(churn, "churn", "idle"), pick(resume, "snapshot", "relist"))
				b.Run(name, func(b *testing.B) { restartBench(b, srv, n, churn, resume) })
			}
		}
	}
}

func pick(c bool, yes, no string) string {
	if c {
		return yes
	}
	return no
}

// countingTransport counts the response body bytes a client reads.
type countingTransport struct {
	base http.RoundTripper
	n    atomic.Int64
}

func (t *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	if err == nil {
		resp.Body = &countingBody{ReadCloser: resp.Body, n: &t.n}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (c *countingBody) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.n.Add(int64(n))
	return n, err
}

func restartBench(b *testing.B, srv *fakeapiserver.Server, n int, churn, resume bool) {
	dir := b.TempDir()
	ct := &countingTransport{base: http.DefaultTransport.(*http.Transport).Clone()}
	b.Cleanup(ct.base.(*http.Transport).CloseIdleConnections)
	c, err := apiclient.NewWithOptions(fakeapiservertest.ClientConfig(srv), apiclient.Options{Transport: ct})
	if err != nil {
		b.Fatal(err)
	}
	opts := informer.Options[*workload.SlimPod]{}
	if resume {
		opts.Snapshot = informer.SnapshotOptions{Store: snapshot.Dir{Path: dir, NoSync: true}, Period: -1}
	}
	agentRun(b, c, opts, srv).stop(b) // the agent before the restart: leaves the snapshot
	var synced, current, cpu time.Duration
	var fetched int64
	iters := 0
	for b.Loop() {
		b.StopTimer()
		if churn {
			relabel(b, srv, n/100)
		}
		start, cpu0, bytes0 := time.Now(), bench.ProcessCPU(), ct.n.Load()
		b.StartTimer()
		a := agentRun(b, c, opts, srv)
		b.StopTimer()
		synced += a.synced.Sub(start)
		current += time.Since(start)
		cpu += bench.ProcessCPU() - cpu0
		fetched += ct.n.Load() - bytes0
		if got := a.inf.Store().Len(); got != n {
			b.Fatalf("bench: %d pods cached, want %d", got, n)
		}
		a.stop(b)
		iters++
		b.StartTimer()
	}
	per := func(d time.Duration) float64 { return float64(d) / float64(iters) / float64(time.Millisecond) }
	b.ReportMetric(per(synced), "ms-synced")
	b.ReportMetric(per(current), "ms-current")
	b.ReportMetric(per(cpu), "cpu-ms")
	b.ReportMetric(float64(fetched)/float64(iters)/1000, "server-KB")
}

// agent is a started informer that has synced and caught up.
type agent struct {
	*running[workload.SlimPod, *workload.SlimPod]
	synced time.Time
}

// agentRun starts an informer and returns once it has synced and its
// resourceVersion has reached the server's.
func agentRun(b *testing.B, c *apiclient.Client, opts informer.Options[*workload.SlimPod], srv *fakeapiserver.Server) agent {
	b.Helper()
	r, err := startInformer[workload.SlimPod](c, opts)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := r.inf.WaitForSync(ctx); err != nil {
		b.Fatal(err)
	}
	a := agent{running: r, synced: time.Now()}
	want := srv.ResourceVersion()
	for {
		if rv, _ := strconv.ParseInt(r.inf.LastSyncResourceVersion(), 10, 64); rv >= want {
			return a
		}
		if ctx.Err() != nil {
			b.Fatalf("bench: the informer stayed at rv %s, the server is at %d", r.inf.LastSyncResourceVersion(), want)
		}
		time.Sleep(100 * time.Microsecond) // a benchmark's poll, not a test's wait
	}
}

func (a agent) stop(b *testing.B) {
	if err := a.running.stop(); err != nil {
		b.Fatal(err)
	}
}

// relabel changes k pods' labels while no agent runs. The label's value is
// the server's resourceVersion, new on every call: a patch that changes
// nothing is no write at all.
func relabel(b *testing.B, srv *fakeapiserver.Server, k int) {
	b.Helper()
	round := srv.ResourceVersion()
	items, _, err := srv.List(podsRef.GVR, "")
	if err != nil {
		b.Fatal(err)
	}
	for i := range k {
		p := items[(int64(i)*97+round)%int64(len(items))]
		patch := fmt.Sprintf(`{"metadata":{"labels":{"restart-round":"%d"}}}`, round)
		if _, err := srv.Patch(podsRef.GVR, p.GetNamespace(), p.GetName(), meta.MergePatch, []byte(patch)); err != nil {
			b.Fatal(err)
		}
	}
}
