package conformance

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
)

// The informer end to end, on both servers: what it caches must be what the
// server holds, whichever server it is.

type configMap struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Data            map[string]string `json:"data"`
}

var cmGVR = meta.GVR{Version: "v1", Resource: "configmaps"}

// onBoth runs f against the fake and, when present, the real server.
func onBoth(t *testing.T, f func(t *testing.T, tg *target)) {
	t.Run("fake", func(t *testing.T) { f(t, fakeTarget(t)) })
	t.Run("kube-apiserver", func(t *testing.T) { f(t, realTarget(t, realServer(t))) })
}

// run is an informer under test with what it traced.
type run struct {
	inf     *informer.Informer[configMap, *configMap]
	changed chan struct{} // gets a value after the cache changed
	stop    func()        // ends Run and waits for it; idempotent
	mu      sync.Mutex
	stages  []observe.Event // guarded by mu
}

func (r *run) trace(ev observe.Event) {
	r.mu.Lock()
	r.stages = append(r.stages, ev)
	r.mu.Unlock()
}

// relists lists the causes of every list the informer started.
func (r *run) relists() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, ev := range r.stages {
		if ev.Stage == observe.StageRelist {
			out = append(out, ev.Cause.String())
		}
	}
	return out
}

// streamed reports whether a watch was opened as a streaming list.
func (r *run) streamed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.ContainsFunc(r.stages, func(ev observe.Event) bool {
		return ev.Stage == observe.StageWatchOpened && ev.Streaming
	})
}

// startInformer runs an informer on configmaps in ns until the test ends
// and waits for its sync. wrap, when set, wraps its ListerWatcher.
func startInformer(t *testing.T, tg *target, ns string, opts informer.Options[*configMap],
	wrap func(informer.ListerWatcher[*configMap]) informer.ListerWatcher[*configMap]) *run {
	r := launch(t, tg, ns, opts, wrap)
	r.awaitSync(t)
	return r
}

// launch runs an informer on configmaps in ns until the test ends.
func launch(t *testing.T, tg *target, ns string, opts informer.Options[*configMap],
	wrap func(informer.ListerWatcher[*configMap]) informer.ListerWatcher[*configMap]) *run {
	c, err := apiclient.New(tg.cfg)
	require.NoError(t, err)
	r := &run{changed: make(chan struct{}, 1)}
	opts.Observe.Logger, opts.Observe.Trace, opts.WrapListerWatcher = quiet(), r.trace, wrap
	r.inf = informer.New[configMap](c, apiclient.Ref{GVR: cmGVR, Namespace: ns}, opts)
	poke := func() {
		select {
		case r.changed <- struct{}{}:
		default: // one pending wake-up is enough
		}
	}
	_, err = r.inf.AddHandler(informer.HandlerFuncs[*configMap]{
		AddFunc: func(*configMap, bool) { poke() }, UpdateFunc: func(_, _ *configMap) { poke() },
		DeleteFunc: func(*configMap, bool) { poke() },
	}, informer.HandlerOptions{})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.inf.Run(ctx) }()
	r.stop = sync.OnceFunc(func() { cancel(); <-done; c.CloseIdleConnections() })
	t.Cleanup(r.stop)
	return r
}

func (r *run) awaitSync(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	require.NoError(t, r.inf.WaitForSync(ctx))
}

// cached is the informer's cache as name → data["k"].
func (r *run) cached() map[string]string {
	out := map[string]string{}
	for _, o := range r.inf.Lister().List(meta.LabelSelector{}) {
		out[o.Name] = o.Data["k"]
	}
	return out
}

// awaitCache waits until the cache equals want.
func (r *run) awaitCache(t *testing.T, want map[string]string) {
	t.Helper()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	for !maps.Equal(r.cached(), want) {
		select {
		case <-r.changed: // handlers run after the cache is updated
		case <-deadline.C:
			require.Fail(t, "the cache did not converge", " got %v\nwant %v", r.cached(), want)
		}
	}
}

func seed(t *testing.T, tg *target, ns string, n int) map[string]string {
	want := map[string]string{}
	for i := range n {
		name := fmt.Sprintf("cm-%03d", i)
		tg.must(t, 201, "POST", "/api/v1/namespaces/"+ns+"/configmaps", obj(`{"metadata":{"name":%q},"data":{"k":"v0"}}`, name))
		want[name] = "v0"
	}
	return want
}

func TestInformerSyncsAPaginatedList(t *testing.T) {
	onBoth(t, func(t *testing.T, tg *target) {
		ns := tg.namespace(t)
		want := seed(t, tg, ns, 45)
		r := startInformer(t, tg, ns, informer.Options[*configMap]{Sync: informer.SyncOptions{PageSize: 10}},
			func(lw informer.ListerWatcher[*configMap]) informer.ListerWatcher[*configMap] { return &paged{lw, nil} })
		require.Equal(t, want, r.cached())
		require.Equal(t, []string{"initial"}, r.relists())
	})
}

func TestInformerFollowsChurn(t *testing.T) {
	onBoth(t, func(t *testing.T, tg *target) {
		ns := tg.namespace(t)
		want := seed(t, tg, ns, 20)
		r := startInformer(t, tg, ns, informer.Options[*configMap]{}, nil)
		p := "/api/v1/namespaces/" + ns + "/configmaps/"
		for i := range 60 {
			name := fmt.Sprintf("cm-%03d", i%25)
			_, exists := want[name]
			switch {
			case !exists:
				tg.must(t, 201, "POST", "/api/v1/namespaces/"+ns+"/configmaps", obj(`{"metadata":{"name":%q},"data":{"k":"new"}}`, name))
				want[name] = "new"
			case i%3 == 0:
				tg.must(t, 200, "DELETE", p+name, "")
				delete(want, name)
			default:
				v := fmt.Sprintf("v%d", i)
				tg.must(t, 200, "PATCH", p+name, obj(`{"data":{"k":%q}}`, v), "Content-Type", "application/merge-patch+json")
				want[name] = v
			}
		}
		r.awaitCache(t, want)
		require.Equal(t, []string{"initial"}, r.relists(), "churn needs no relist")
	})
}

// paged turns the reflector's lists at "0" into consistent lists (RV ""):
// both servers answer a list at "0" whole, ignoring its limit, and only a
// consistent list is paginated. Before the first page with a continue
// token, it calls beforeContinue, if set, with the token.
type paged struct {
	informer.ListerWatcher[*configMap]
	beforeContinue func(token string)
}

func (p *paged) List(ctx context.Context, o informer.ListRequest, each func(*configMap) error) (informer.ListPage, error) {
	if o.ResourceVersion == "0" {
		o.ResourceVersion, o.ResourceVersionMatch = "", ""
	}
	if o.Continue != "" && p.beforeContinue != nil {
		p.beforeContinue(o.Continue)
		p.beforeContinue = nil // the reflector lists from one goroutine
	}
	return p.ListerWatcher.List(ctx, o, each)
}

func TestInformerRestartsAListWhoseContinueTokenExpired(t *testing.T) {
	onBoth(t, func(t *testing.T, tg *target) {
		ns := tg.namespace(t)
		want := seed(t, tg, ns, 12)
		other := tg.namespace(t) // the waiting writes go there, out of the informer's sight
		tokens, expired := make(chan string), make(chan struct{})
		r := launch(t, tg, ns, informer.Options[*configMap]{Sync: informer.SyncOptions{PageSize: 5}},
			func(lw informer.ListerWatcher[*configMap]) informer.ListerWatcher[*configMap] {
				return &paged{lw, func(token string) { tokens <- token; <-expired }}
			})
		// The first continue token expires (the test goroutine waits for it)
		// before the reflector uses it.
		var token string
		select {
		case token = <-tokens:
		case <-time.After(60 * time.Second):
			require.Fail(t, "the reflector asked for no second page")
		}
		q := "/api/v1/namespaces/" + ns + "/configmaps?limit=5&continue=" + url.QueryEscape(token)
		tg.expire(t, other, func() bool { return tg.do(t, "GET", q, "").code == 410 })
		close(expired)
		r.awaitSync(t)
		require.Equal(t, want, r.cached())
		require.Equal(t, []string{"initial", "continue-expired"}, r.relists())
	})
}

func TestInformerSyncsWithAStreamingList(t *testing.T) {
	onBoth(t, func(t *testing.T, tg *target) {
		ns := tg.namespace(t)
		want := seed(t, tg, ns, 30)
		r := startInformer(t, tg, ns, informer.Options[*configMap]{Sync: informer.SyncOptions{StreamingList: true}}, nil)
		require.Equal(t, want, r.cached())
		require.True(t, r.streamed(), "synced by a streaming list")
		require.Equal(t, []string{"initial"}, r.relists(), "no fallback to LIST")
		tg.must(t, 200, "DELETE", "/api/v1/namespaces/"+ns+"/configmaps/cm-000", "")
		delete(want, "cm-000")
		r.awaitCache(t, want)
	})
}
