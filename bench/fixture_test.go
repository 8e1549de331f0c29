package bench_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/bench"
	"github.com/zerokube/zerokube/internal/workload"
	"github.com/zerokube/zerokube/meta"
)

// pageSize is the informer's default LIST page size.
const pageSize = 500

var podsRef = apiclient.Ref{GVR: meta.GVR{Version: "v1", Resource: "pods"}}

// full reports whether the large variants should run (ZEROKUBE_BENCH_FULL=1).
func full() bool { return os.Getenv("ZEROKUBE_BENCH_FULL") == "1" }

// podCounts are the workload sizes: 1k and the article's 5k; 50k when full.
func podCounts() []int {
	if full() {
		return []int{1000, 5000, 50000}
	}
	return []int{1000, 5000}
}

// clientGoConfig is the workload of issue #8's comparison with client-go,
// whose typed informer (v0.37) retained about 19.5 KB per pod of 9.2 KB of
// JSON, 4 KB of it managedFields: 9 KiB pods whose managedFields record
// atomic lists whole, as kube-apiserver's do (9.5 KB, 4.3 KB of it).
var clientGoConfig = workload.Config{PodSize: 9 << 10, AtomicLists: true}

// fixture is a pod workload encoded once: its list items and its list
// replies, paginated as the informer asks for them and (built on first use)
// unpaginated.
type fixture struct {
	n         int
	items     [][]byte // list items, no kind/apiVersion
	pages     [][]byte // PodList replies of pageSize items
	itemBytes int64    // total JSON of the items

	wholeOnce sync.Once
	whole     []byte // one unpaginated PodList reply: see wholeList
}

func (f *fixture) pageBytes() int64 {
	var n int64
	for _, p := range f.pages {
		n += int64(len(p))
	}
	return n
}

// wholeList is the list as one unpaginated reply. Only the ListDecode
// benchmarks read it, and at 50,000 pods it is 260 MB more to fault in.
func (f *fixture) wholeList() []byte {
	f.wholeOnce.Do(func() {
		f.whole = workload.AppendList(nil, "PodList", "v1", meta.ListMeta{ResourceVersion: "100000"}, f.items)
	})
	return f.whole
}

// fixtures memoizes generated workloads for the whole process: every
// benchmark function and every -count round reads the same bytes, and
// generating 50,000 pods takes seconds even in parallel.
var fixtures = struct {
	sync.Mutex
	m map[fixtureKey]*fixture
}{m: map[fixtureKey]*fixture{}}

type fixtureKey struct {
	n   int
	cfg workload.Config
}

// podFixture is n pods of the article's kind of size podSize.
func podFixture(tb testing.TB, n, podSize int) *fixture {
	tb.Helper()
	return configFixture(tb, n, workload.Config{PodSize: podSize})
}

// configFixture is n pods of cfg, over min(n, 1,000) replica sets unless
// cfg says otherwise.
func configFixture(tb testing.TB, n int, cfg workload.Config) *fixture {
	tb.Helper()
	if cfg.ReplicaSets == 0 {
		cfg.ReplicaSets = min(n, 1000)
	}
	fixtures.Lock()
	defer fixtures.Unlock()
	key := fixtureKey{n, cfg}
	if f := fixtures.m[key]; f != nil {
		return f
	}
	items := cfg.Pods(n)
	f := &fixture{n: n, items: items}
	f.pages = workload.Pages("PodList", "v1", "100000", items, pageSize)
	for _, it := range items {
		f.itemBytes += int64(len(it))
	}
	fixtures.m[key] = f
	return f
}

// apiserverOrder returns f's pods in the order kube-apiserver lists them:
// by namespace, then name (etcd's key order), which puts the pods of one
// ReplicaSet next to each other; the generator's order interleaves the
// replica sets. Objects that share maps or strings (meta.Sharer) find them
// close by in this order.
func apiserverOrder(tb testing.TB, f *fixture) *fixture {
	tb.Helper()
	type keyed struct {
		key  string
		item []byte
	}
	ks := make([]keyed, len(f.items))
	for i, it := range f.items {
		var p struct {
			Metadata struct{ Namespace, Name string } `json:"metadata"`
		}
		if err := json.Unmarshal(it, &p); err != nil {
			tb.Fatal(err)
		}
		ks[i] = keyed{p.Metadata.Namespace + "/" + p.Metadata.Name, it}
	}
	slices.SortFunc(ks, func(a, b keyed) int { return strings.Compare(a.key, b.key) })
	items := make([][]byte, len(ks))
	for i, k := range ks {
		items[i] = k.item
	}
	return &fixture{n: f.n, items: items, itemBytes: f.itemBytes,
		pages: workload.Pages("PodList", "v1", "100000", items, pageSize)}
}

// pagesTransport answers every request with a page of a pre-encoded list,
// chosen by the continue token, without any network: what remains is the
// client's cost.
type pagesTransport struct {
	pages [][]byte
}

func (t pagesTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Query().Get("watch") != "" {
		// A watch that never sends anything: the informer idles on it
		// after its sync until it is stopped.
		return &http.Response{StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header: http.Header{"Content-Type": {"application/json"}}, ContentLength: -1, Request: r,
			Body: &idleBody{ctx: r.Context(), closed: make(chan struct{})}}, nil
	}
	page := 0
	if tok := r.URL.Query().Get("continue"); tok != "" {
		start, err := workload.PageIndex(tok)
		if err != nil {
			return nil, err
		}
		page = start / pageSize
	}
	if page >= len(t.pages) {
		return nil, fmt.Errorf("bench: no page %d", page)
	}
	body := t.pages[page]
	return &http.Response{
		StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/json"}},
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)), Request: r,
	}, nil
}

// memClient is an apiclient.Client whose transport serves pages.
func memClient(tb testing.TB, pages [][]byte) *apiclient.Client {
	tb.Helper()
	c, err := apiclient.NewWithOptions(&apiclient.Config{Host: "http://127.0.0.1:1", QPS: -1},
		apiclient.Options{Transport: pagesTransport{pages: pages}})
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// cost is the wall and process CPU time of some work.
type cost struct{ wall, cpu time.Duration }

// measure runs f and returns what it cost.
func measure(f func()) cost {
	w, c := time.Now(), bench.ProcessCPU()
	f()
	return cost{time.Since(w), bench.ProcessCPU() - c}
}

func (c *cost) add(d cost) { c.wall += d.wall; c.cpu += d.cpu }

// floor is the decode floor of bodies: the fastest of a few passes of
// jsontext validation over the same bytes (wall and CPU time each at their
// minimum). Every speed benchmark divides its time by it, measured in the
// same benchmark, just before it (the load of a shared machine changes).
// Five passes, or two once they took over a second: for 50,000 pods a pass
// takes half a second or more, steady enough, and five per sub-benchmark
// were a fifth of the run's CPU. A collection first: the garbage of generating a
// fixture would otherwise be collected during the passes.
func floor(tb testing.TB, bodies [][]byte) cost {
	tb.Helper()
	runtime.GC()
	best := cost{1<<63 - 1, 1<<63 - 1}
	var spent time.Duration
	for pass := 0; pass < 5 && (pass < 2 || spent < time.Second); pass++ {
		c := measure(func() {
			for _, body := range bodies {
				if !jsontext.Value(body).IsValid(floorOptions) {
					tb.Fatal("bench: invalid JSON in the fixture")
				}
			}
		})
		spent += c.wall
		best = cost{min(best.wall, c.wall), min(best.cpu, c.cpu)}
	}
	return best
}

// floorOptions are the options of every decoder the floor bounds
// (apiclient's list decoder, watchstream, meta.Raw): duplicate member names
// allowed, which spares a set insert per member. The default options check
// them, and a floor that did so took about 1.5 times as long, flattering
// every ratio by as much.
var floorOptions = jsontext.AllowDuplicateNames(true)

// reportRate reports objects/s and the multiples of the floor (wall time,
// and CPU time when the system reports it) for iters iterations that
// handled objs objects each and cost spent in total.
func reportRate(b *testing.B, iters, objs int, spent, fl cost) {
	n := time.Duration(max(iters, 1))
	perOp := spent.wall / n
	b.ReportMetric(float64(objs)/perOp.Seconds(), "objects/s")
	b.ReportMetric(float64(perOp)/float64(fl.wall), "x-floor")
	if fl.cpu > 0 {
		b.ReportMetric(float64(spent.cpu/n)/float64(fl.cpu), "cpu-x-floor")
	}
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v, json.Deterministic(true)) }

// idleBody blocks every Read until its request ends or it is closed.
type idleBody struct {
	ctx    context.Context
	once   sync.Once
	closed chan struct{}
}

func (b *idleBody) Read([]byte) (int, error) {
	select {
	case <-b.ctx.Done():
		return 0, b.ctx.Err()
	case <-b.closed:
		return 0, io.ErrClosedPipe
	}
}

func (b *idleBody) Close() error {
	b.once.Do(func() { close(b.closed) })
	return nil
}
