package informer_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
)

// configMap is a slim struct: only the fields the tests read.
type configMap struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Data            map[string]string `json:"data,omitempty"`
}

var (
	cmGVR = meta.GVR{Version: "v1", Resource: "configmaps"}
	cmRef = apiclient.Ref{GVR: cmGVR, Namespace: "default"}
	wait  = 10 * time.Second
)

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

// env is a fake API server with a client for it.
type env struct {
	srv    *fakeapiserver.Server
	client *apiclient.Client
}

func newEnv(t testing.TB, opts ...fakeapiserver.Options) *env {
	t.Helper()
	o := fakeapiserver.Options{Logger: quiet(), BookmarkInterval: 50 * time.Millisecond}
	if len(opts) > 0 {
		o = opts[0]
		o.Logger = quiet()
	}
	srv := fakeapiservertest.Start(t, o)
	// Default options: the client's read retries are opt-in, and the
	// informer's lists ask for none anyway.
	c, err := apiclient.NewWithOptions(fakeapiservertest.ClientConfig(srv), apiclient.Options{})
	require.NoError(t, err)
	return &env{srv: srv, client: c}
}

func (e *env) put(t testing.TB, name, value string, labels map[string]string) {
	t.Helper()
	obj := map[string]any{"metadata": map[string]any{"name": name, "namespace": "default", "labels": labels},
		"data": map[string]string{"v": value}}
	if _, err := e.srv.Get(cmGVR, "default", name); err == nil {
		_, err = e.srv.Update(cmGVR, obj)
		require.NoError(t, err)
		return
	}
	_, err := e.srv.Create(cmGVR, obj)
	require.NoError(t, err)
}

// serverState is name → data["v"] as the server has it.
func (e *env) serverState(t testing.TB) map[string]string {
	t.Helper()
	items, _, err := e.srv.List(cmGVR, "default")
	require.NoError(t, err)
	out := map[string]string{}
	for _, r := range items {
		var cm configMap
		require.NoError(t, r.DecodeInto(&cm))
		out[cm.Name] = cm.Data["v"]
	}
	return out
}

func fastOpts() informer.Options[*configMap] {
	return informer.Options[*configMap]{
		Backoff: informer.BackoffOptions{Initial: 10 * time.Millisecond, Max: 100 * time.Millisecond},
		Observe: informer.ObserveOptions{Logger: quiet()},
	}
}

// view is a handler that applies its notifications to a map.
type view struct {
	mu      sync.Mutex
	state   map[string]string
	deletes map[string]bool // name → finalStateUnknown of its last delete
	adds    int
}

func newView() *view { return &view{state: map[string]string{}, deletes: map[string]bool{}} }

func (v *view) OnAdd(cm *configMap, _ bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.state[cm.Name] = cm.Data["v"]
	v.adds++
}

func (v *view) OnUpdate(_, cm *configMap) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.state[cm.Name] = cm.Data["v"]
}

func (v *view) OnDelete(cm *configMap, unknown bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	delete(v.state, cm.Name)
	v.deletes[cm.Name] = unknown
}

func (v *view) snapshot() map[string]string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return maps.Clone(v.state)
}

func cacheState(inf *informer.Informer[configMap, *configMap]) map[string]string {
	out := map[string]string{}
	for _, cm := range inf.Lister().List(meta.LabelSelector{}) {
		out[cm.Name] = cm.Data["v"]
	}
	return out
}

func run(t testing.TB, inf interface{ Run(context.Context) error }) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
}

func synced(t testing.TB, inf interface{ WaitForSync(context.Context) error }) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), wait)
	defer cancel()
	require.NoError(t, inf.WaitForSync(ctx))
}

func converges(t testing.TB, e *env, inf *informer.Informer[configMap, *configMap], views ...*view) {
	t.Helper()
	want := e.serverState(t)
	require.Eventually(t, func() bool {
		if !maps.Equal(want, cacheState(inf)) {
			return false
		}
		for _, v := range views {
			if !maps.Equal(want, v.snapshot()) {
				return false
			}
		}
		return true
	}, wait, 5*time.Millisecond, "cache and handlers must equal the server")
}

func TestSyncsNObjectsThenFollowsLiveChanges(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		t.Run(fmt.Sprintf("streaming=%t", streaming), func(t *testing.T) {
			e := newEnv(t)
			for i := range 1200 {
				e.put(t, fmt.Sprintf("cm-%04d", i), "0", nil)
			}
			opts := fastOpts()
			opts.Sync.StreamingList = streaming
			inf := informer.New[configMap](e.client, cmRef, opts)
			v := newView()
			_, err := inf.AddHandler(v, informer.HandlerOptions{})
			require.NoError(t, err)
			run(t, inf)
			synced(t, inf)
			require.Len(t, cacheState(inf), 1200)

			e.put(t, "cm-0001", "1", nil)
			require.NoError(t, e.srv.Delete(cmGVR, "default", "cm-0002"))
			e.put(t, "new", "x", nil)
			converges(t, e, inf, v)
		})
	}
}

func TestDeletesWhileDisconnectedArriveAsTombstones(t *testing.T) {
	e := newEnv(t)
	for _, n := range []string{"a", "b", "c"} {
		e.put(t, n, "0", nil)
	}
	inf := informer.New[configMap](e.client, cmRef, fastOpts())
	v := newView()
	_, err := inf.AddHandler(v, informer.HandlerOptions{})
	require.NoError(t, err)
	run(t, inf)
	synced(t, inf)
	require.NoError(t, e.srv.AwaitWatchers(t.Context(), 1))

	// Hold the reflector off the watch while b is deleted and history is
	// compacted: it must relist and infer the delete.
	e.srv.FailNext(fakeapiserver.Failure{Count: 3, Code: 503, Verb: "watch"})
	e.srv.DropWatches()
	require.NoError(t, e.srv.Delete(cmGVR, "default", "b"))
	e.put(t, "d", "0", nil)
	e.srv.Compact(0)
	converges(t, e, inf, v)
	v.mu.Lock()
	defer v.mu.Unlock()
	require.Equal(t, map[string]bool{"b": true}, v.deletes, "the delete was inferred by the relist")
}

// compactingLW compacts the server's history after the first page of every
// list, so the continue token of the second page has expired.
type compactingLW struct {
	informer.ListerWatcher[*configMap]
	e     *env
	mu    sync.Mutex
	pages []informer.ListRequest
	once  sync.Once
}

func (c *compactingLW) List(ctx context.Context, o informer.ListRequest, each func(*configMap) error) (informer.ListPage, error) {
	lm, err := c.ListerWatcher.List(ctx, o, each)
	c.mu.Lock()
	c.pages = append(c.pages, o)
	c.mu.Unlock()
	if err == nil && lm.Continue != "" {
		c.once.Do(func() {
			_, _ = c.e.srv.Create(cmGVR, `{"metadata":{"name":"late","namespace":"default"}}`)
			c.e.srv.Compact(0)
		})
	}
	return lm, err
}

func TestGoneMidPaginatedListListsOnceWhole(t *testing.T) {
	e := newEnv(t)
	for i := range 7 {
		e.put(t, fmt.Sprintf("cm-%d", i), "0", nil)
	}
	// A list at "0" is served whole; a 504 makes the reflector list at "",
	// which is paginated.
	e.srv.FailNext(fakeapiserver.Failure{Count: 1, Code: 504, Verb: "list"})
	lw := &compactingLW{e: e}
	opts := fastOpts()
	opts.Sync.PageSize = 3
	opts.Sync.StreamingList = false
	opts.WrapListerWatcher = func(inner informer.ListerWatcher[*configMap]) informer.ListerWatcher[*configMap] {
		lw.ListerWatcher = inner
		return lw
	}
	inf := informer.New[configMap](e.client, cmRef, opts)
	run(t, inf)
	synced(t, inf)
	converges(t, e, inf)
	lw.mu.Lock()
	defer lw.mu.Unlock()
	var starts []informer.ListRequest
	for _, p := range lw.pages {
		if p.Continue == "" && p.ResourceVersion == "" {
			starts = append(starts, p)
		}
	}
	require.Equal(t, []informer.ListRequest{{Limit: 3}, {}}, starts,
		"after its continue token expired, the list at \"\" ran once more, unpaginated (client-go's pager): %+v", lw.pages)
}

func TestStreamingListFallsBackWhenRejected(t *testing.T) {
	e := newEnv(t)
	e.put(t, "a", "0", nil)
	e.srv.FailNext(fakeapiserver.Failure{Count: 1, Code: 422, Verb: "watch"})
	opts := fastOpts()
	opts.Sync.StreamingList = true
	var relists sync.Map
	opts.Observe.Trace = func(ev observe.Event) {
		if ev.Stage == observe.StageRelist {
			relists.Store(ev.Cause, true)
		}
	}
	inf := informer.New[configMap](e.client, cmRef, opts)
	run(t, inf)
	synced(t, inf)
	_, ok := relists.Load(observe.CauseStreamingFallback)
	require.True(t, ok)
	converges(t, e, inf)
}

func TestBookmarksAdvanceTheResourceVersion(t *testing.T) {
	e := newEnv(t)
	e.put(t, "a", "0", nil)
	inf := informer.New[configMap](e.client, cmRef, fastOpts())
	run(t, inf)
	synced(t, inf)
	// Writes to another resource move the global resourceVersion; only
	// bookmarks can tell this informer.
	_, err := e.srv.Create(meta.GVR{Version: "v1", Resource: "secrets"},
		`{"metadata":{"name":"s","namespace":"default"}}`)
	require.NoError(t, err)
	want := fmt.Sprint(e.srv.ResourceVersion())
	require.Eventually(t, func() bool { return inf.LastSyncResourceVersion() == want }, wait, 5*time.Millisecond)
}

func TestTypedSyncFailures(t *testing.T) {
	for _, tc := range []struct {
		name  string
		token string
		ref   apiclient.Ref
		want  observe.FailureReason
	}{
		{"401", "wrong", cmRef, observe.FailureUnauthorized},
		{"403", "secrets-only", cmRef, observe.FailureForbidden},
		{"missing resource", "admin", apiclient.Ref{GVR: meta.GVR{Group: "example.com", Version: "v1", Resource: "widgets"}}, observe.FailureResourceNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet(), Tokens: []fakeapiserver.Token{
				{Value: "admin"}, {Value: "secrets-only", Resources: []string{"secrets"}}}})
			cfg := fakeapiservertest.ClientConfig(srv)
			cfg.BearerToken = tc.token
			c, err := apiclient.New(cfg)
			require.NoError(t, err)
			opts := fastOpts()
			opts.Sync.FailFast = true
			inf := informer.New[configMap](c, tc.ref, opts)
			errc := make(chan error, 1)
			go func() { errc <- inf.Run(t.Context()) }()
			err = inf.WaitForSync(t.Context())
			var se *informer.SyncError
			require.ErrorAs(t, err, &se)
			require.Equal(t, tc.want, se.Reason)
			require.ErrorAs(t, <-errc, &se)
		})
	}
}

func TestLabelSelectorNarrowsAndRelabelDeletes(t *testing.T) {
	e := newEnv(t)
	e.put(t, "web", "0", map[string]string{"app": "web"})
	e.put(t, "db", "0", map[string]string{"app": "db"})
	opts := fastOpts()
	opts.LabelSelector = "app=web"
	inf := informer.New[configMap](e.client, cmRef, opts)
	v := newView()
	_, err := inf.AddHandler(v, informer.HandlerOptions{})
	require.NoError(t, err)
	run(t, inf)
	synced(t, inf)
	require.Equal(t, map[string]string{"web": "0"}, cacheState(inf))
	e.put(t, "web", "1", map[string]string{"app": "other"})
	require.Eventually(t, func() bool { return len(cacheState(inf)) == 0 && len(v.snapshot()) == 0 }, wait, 5*time.Millisecond)
	sel, err := meta.ParseLabelSelector("app=web")
	require.NoError(t, err)
	require.Empty(t, inf.Lister().List(sel))
}

func TestRawObjects(t *testing.T) {
	e := newEnv(t)
	e.put(t, "a", "0", map[string]string{"k": "v"})
	inf := informer.New[meta.Raw](e.client, cmRef, informer.Options[*meta.Raw]{Observe: informer.ObserveOptions{Logger: quiet()}})
	run(t, inf)
	synced(t, inf)
	r, ok := inf.Lister().Namespace("default").Get("a")
	require.True(t, ok)
	require.Equal(t, "v", r.Labels["k"])
	var cm configMap
	require.NoError(t, r.DecodeInto(&cm))
	require.Equal(t, "0", cm.Data["v"])
}

func TestFactorySharesOneInformerPerResourceSelectorAndType(t *testing.T) {
	e := newEnv(t)
	e.put(t, "a", "0", map[string]string{"app": "web"})
	f := informer.NewFactory(e.client, quiet())
	a := informer.Shared[configMap](f, cmRef, fastOpts())
	b := informer.Shared[configMap](f, cmRef, fastOpts())
	require.Same(t, a, b)
	sel := fastOpts()
	sel.LabelSelector = "app=web"
	c := informer.Shared[configMap](f, cmRef, sel)
	require.NotSame(t, a, c)
	raw := informer.Shared[meta.Raw](f, cmRef, informer.Options[*meta.Raw]{Observe: informer.ObserveOptions{Logger: quiet()}})
	ctx, cancel := context.WithCancel(t.Context())
	f.Start(ctx)
	late := informer.Shared[configMap](f, apiclient.Ref{GVR: cmGVR}, fastOpts())
	wctx, wcancel := context.WithTimeout(ctx, wait)
	defer wcancel()
	require.NoError(t, f.WaitForCacheSync(wctx))
	require.True(t, late.HasSynced())
	require.True(t, raw.HasSynced())
	cancel()
	f.Shutdown()
}

// A second caller asking for the same informer with other options gets the
// shared one, and a warning saying which options it does not get.
func TestFactoryWarnsAboutDifferentOptions(t *testing.T) {
	e := newEnv(t)
	var logs bytes.Buffer
	f := informer.NewFactory(e.client, slog.New(slog.NewTextHandler(&logs, nil)))
	a := informer.Shared[configMap](f, cmRef, fastOpts())
	require.Same(t, a, informer.Shared[configMap](f, cmRef, fastOpts()))
	require.Empty(t, logs.String(), "the same options: nothing to say")
	other := fastOpts()
	other.Process.ResyncPeriod = time.Hour
	require.Same(t, a, informer.Shared[configMap](f, cmRef, other))
	require.Contains(t, logs.String(), "level=WARN")
	require.Contains(t, logs.String(), "resync=1h0m0s")
	require.Contains(t, logs.String(), "configmaps")
}

func TestManagedFieldsNeverReachTheCacheUnlessKept(t *testing.T) {
	withMF := func(name string) map[string]any {
		return map[string]any{"metadata": map[string]any{"name": name, "namespace": "default",
			"managedFields": []any{map[string]any{"manager": "kubectl", "operation": "Apply"}}}}
	}
	for _, keep := range []bool{false, true} {
		t.Run(fmt.Sprintf("keep=%t", keep), func(t *testing.T) {
			e := newEnv(t)
			_, err := e.srv.Create(cmGVR, withMF("listed"))
			require.NoError(t, err)
			opts := fastOpts()
			opts.Decode.KeepManagedFields = keep
			inf := informer.New[configMap](e.client, cmRef, opts)
			run(t, inf)
			synced(t, inf)
			_, err = e.srv.Create(cmGVR, withMF("watched"))
			require.NoError(t, err)
			require.Eventually(t, func() bool { return len(inf.Store().List()) == 2 }, wait, 5*time.Millisecond)
			for _, cm := range inf.Store().List() {
				if keep {
					require.Contains(t, string(cm.ManagedFields), `"manager":"kubectl"`, cm.Name)
				} else {
					require.Nil(t, cm.ManagedFields, cm.Name)
				}
			}
		})
	}
}

// http:// to a server that speaks HTTPS gets a 400 that no retry fixes:
// with FailFast, Run stops at once and says to use https.
func TestPlainHTTPToAnHTTPSServerFailsFast(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet(), TLS: true})
	c, err := apiclient.New(&apiclient.Config{Host: strings.Replace(srv.URL(), "https://", "http://", 1)})
	require.NoError(t, err)
	inf := informer.New[configMap](c, cmRef, informer.Options[*configMap]{Sync: informer.SyncOptions{FailFast: true}, Observe: informer.ObserveOptions{Logger: quiet()}})
	ctx, cancel := context.WithTimeout(t.Context(), wait)
	defer cancel()
	err = inf.Run(ctx)
	var se *informer.SyncError
	require.ErrorAs(t, err, &se)
	require.Equal(t, observe.FailureMisconfigured, se.Reason)
	require.ErrorIs(t, err, apiclient.ErrHTTPToHTTPS)
	require.NoError(t, ctx.Err(), "it stopped at the first attempt, not at the deadline")
}
