package fleet_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/bench/fleet"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/internal/workload"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/protodec"
)

// BenchmarkAuditCost measures what the cache audit (informer.Options.Audit)
// costs the API server, next to what a relist costs it: 10,000 of the
// article's pods on one server, an informer of slim pods (whole pods on
// the wire, protobuf), and the server's CPU (and etcd's) per sync and per
// audit, its idle rate discounted. Set ZEROKUBE_AUDIT_COST to "kube"
// (kube-apiserver v1.37.2 and etcd, conformance/kube/build.sh) or "fake"
// (fakeapiserver in a process of its own): loading 10,000 pods takes
// minutes, so it is off otherwise. docs/internals.md, "The cache audit
// finds what the watch lost", publishes its figures.
func BenchmarkAuditCost(b *testing.B) {
	which := os.Getenv("ZEROKUBE_AUDIT_COST")
	if which == "" {
		b.Skip("set ZEROKUBE_AUDIT_COST=kube or =fake: it loads 10,000 pods")
	}
	ctx := context.Background()
	var srv *fleet.Server
	var err error
	if which == "kube" {
		srv, err = fleet.StartKube(ctx)
	} else {
		srv, err = fleet.StartFake(ctx, fleet.FakeCommand)
	}
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	c := fleet.Cluster{Nodes: 100, PodsPerNode: 100}
	if _, err := fleet.Load(ctx, srv, c, 0); err != nil {
		b.Fatal(err)
	}
	idleAPI, idleEtcd := idle(b, srv, 5*time.Second)
	b.Logf("%s, %d pods: idle %.4f s/s apiserver, %.4f s/s etcd", srv.Name, c.Pods(), idleAPI, idleEtcd)
	cost := func(from, to cpu) (api, etcd float64) {
		d := to.at.Sub(from.at).Seconds()
		return to.api - from.api - idleAPI*d, to.etcd - from.etcd - idleEtcd*d
	}

	// A sync is the list a relist repeats: the informer's first list, at
	// "0", from the watch cache.
	const syncs = 3
	var syncAPI, syncEtcd float64
	for range syncs {
		before := sample(b, srv)
		inf := informer.New[workload.SlimPod](srv.Client, fleet.PodsRef, informer.Options[*workload.SlimPod]{Observe: informer.ObserveOptions{Logger: quietLog()}})
		stop := runInformer(inf)
		if err := inf.WaitForSync(ctx); err != nil {
			b.Fatal(err)
		}
		a, e := cost(before, sample(b, srv))
		syncAPI, syncEtcd = syncAPI+a, syncEtcd+e
		stop()
	}

	// What else kube-apiserver could answer an audit with, at one exact
	// resourceVersion, and the lists a relist makes, each a whole pass
	// over the 10,000 pods, five times.
	rv := currentRV(b, srv)
	for _, v := range []struct {
		name string
		o    apiclient.ListOptions
		full bool
	}{
		{"exact-metadata-protobuf-limit500", apiclient.ListOptions{ResourceVersion: rv, ResourceVersionMatch: meta.MatchExact, Limit: 500, Metadata: true}, false},
		{"exact-metadata-protobuf-limit5000", apiclient.ListOptions{ResourceVersion: rv, ResourceVersionMatch: meta.MatchExact, Limit: 5000, Metadata: true}, false},
		{"exact-metadata-protobuf-unpaged", apiclient.ListOptions{ResourceVersion: rv, ResourceVersionMatch: meta.MatchExact, Metadata: true}, false},
		{"exact-metadata-json-limit500", apiclient.ListOptions{ResourceVersion: rv, ResourceVersionMatch: meta.MatchExact, Limit: 500, Metadata: true}, false},
		{"exact-full-protobuf-limit500", apiclient.ListOptions{ResourceVersion: rv, ResourceVersionMatch: meta.MatchExact, Limit: 500}, true},
		{"relist-rv0-full-protobuf", apiclient.ListOptions{ResourceVersion: "0"}, true},
		{"relist-at-rv-full-protobuf", apiclient.ListOptions{ResourceVersion: rv, ResourceVersionMatch: meta.MatchNotOlderThan}, true},
		{"relist-consistent-full-protobuf-limit500", apiclient.ListOptions{Limit: 500}, true},
	} {
		const passes = 5
		before, self := sample(b, srv), ownCPU(b)
		for range passes {
			o := v.o
			if !strings.Contains(v.name, "json") {
				o.Decode.Protobuf = protodec.New(protodec.Options{SkipManagedFields: true})
			}
			n, err := pass(ctx, srv.Client, o, v.full)
			if err != nil {
				b.Fatalf("%s: %v", v.name, err)
			}
			if n != c.Pods() {
				b.Fatalf("%s: %d pods listed", v.name, n)
			}
		}
		a, e := cost(before, sample(b, srv))
		client := ownCPU(b) - self
		b.Logf("%-42s apiserver %6.1f ms, etcd %5.1f ms, this client %6.1f ms per pass",
			v.name, 1e3*a/passes, 1e3*e/passes, 1e3*client/passes)
	}

	// Audits, back to back: each one's CPU is the CPU between the ends
	// of two, less the idle rate.
	const audits = 5
	ends := make(chan cpu, audits+1)
	var took []time.Duration
	var mu sync.Mutex
	inf := informer.New[workload.SlimPod](srv.Client, fleet.PodsRef, informer.Options[*workload.SlimPod]{
		Audit: informer.AuditOptions{Period: 3 * time.Second},
		Observe: informer.ObserveOptions{
			Logger: quietLog(),
			Trace: func(ev observe.Event) {
				switch ev.Stage {
				case observe.StageAudited:
					if ev.Err != nil {
						b.Errorf("an audit found a difference: %v", ev.Err)
					}
					mu.Lock()
					took = append(took, ev.Duration)
					mu.Unlock()
					select {
					case ends <- sample(b, srv):
					default:
					}
				case observe.StageAuditFailed:
					b.Errorf("an audit failed: %v", ev.Err)
				}
			},
		},
	})
	stop := runInformer(inf)
	defer stop()
	first := <-ends
	last := first
	for range audits {
		last = <-ends
	}
	a, e := cost(first, last)
	mu.Lock()
	b.Logf("audit took %v", took)
	mu.Unlock()
	b.ReportMetric(1e3*syncAPI/syncs, "sync-api-ms")
	b.ReportMetric(1e3*syncEtcd/syncs, "sync-etcd-ms")
	b.ReportMetric(1e3*a/audits, "audit-api-ms")
	b.ReportMetric(1e3*e/audits, "audit-etcd-ms")
}

// metadataOnly is a pod's identity.
type metadataOnly struct {
	meta.SlimMeta `json:"metadata"`
}

// pass lists every pod with o, following continue tokens, and counts them.
func pass(ctx context.Context, c *apiclient.Client, o apiclient.ListOptions, full bool) (int, error) {
	n := 0
	if full {
		_, err := apiclient.ListAll(ctx, c, fleet.PodsRef, o, nil, func(*workload.SlimPod) error { n++; return nil })
		return n, err
	}
	_, err := apiclient.ListAll(ctx, c, fleet.PodsRef, o, nil, func(*metadataOnly) error { n++; return nil })
	return n, err
}

// currentRV is the server's resourceVersion now.
func currentRV(tb testing.TB, srv *fleet.Server) string {
	lm, err := apiclient.List(context.Background(), srv.Client, fleet.PodsRef, apiclient.ListOptions{Limit: 1},
		func(*metadataOnly) error { return nil })
	if err != nil {
		tb.Fatal(err)
	}
	return lm.ResourceVersion
}

// cpu is the API server's and etcd's CPU at one instant, in seconds.
type cpu struct {
	at        time.Time
	api, etcd float64
}

func sample(tb testing.TB, srv *fleet.Server) cpu {
	s := cpu{at: time.Now()}
	api, err := fleet.ProcCPU(srv.APIPID)
	if err != nil {
		tb.Error(err)
	}
	s.api = api.Seconds()
	if srv.EtcdPID != 0 {
		etcd, err := fleet.ProcCPU(srv.EtcdPID)
		if err != nil {
			tb.Error(err)
		}
		s.etcd = etcd.Seconds()
	}
	return s
}

// ownCPU is this process's CPU so far, in seconds: the client's share.
func ownCPU(tb testing.TB) float64 {
	d, err := fleet.ProcCPU(os.Getpid())
	if err != nil {
		tb.Error(err)
	}
	return d.Seconds()
}

// idle is the servers' CPU per second over d with no client.
func idle(tb testing.TB, srv *fleet.Server, d time.Duration) (api, etcd float64) {
	from := sample(tb, srv)
	time.Sleep(d) // a measurement window, not a wait for something
	to := sample(tb, srv)
	s := to.at.Sub(from.at).Seconds()
	return (to.api - from.api) / s, (to.etcd - from.etcd) / s
}

func runInformer(inf interface{ Run(context.Context) error }) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	return func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			panic(err)
		}
	}
}

func quietLog() *slog.Logger { return slog.New(slog.DiscardHandler) }
