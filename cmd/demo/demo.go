package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/apiclient/kubeconfig"
	"github.com/zerokube/zerokube/discovery"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/metrics"
)

// demo is one run of the program.
type demo struct {
	cfg    config
	out    *lineWriter // stdout: handler lines and trace lines
	status *lineWriter // stderr: banner, status, errors, logs
	now    func() time.Time
	getenv func(string) string
	stdout io.Writer // to decide on colour

	source text // where the objects come from, for the synced line
	// graceful marks the objects whose deletion began (see terminating).
	graceful *terminating
	synced   atomic.Bool // opens the log gate (see gatedHandler)
	resumed  atomic.Bool // the informer loaded a snapshot (--snapshot): the sync listed nothing
	stops    []stopStep  // undone in reverse order when run returns

	fake  *fakeapiserver.Server // the embedded server; nil against a real cluster
	shard *informer.Shard       // --shard; nil for the whole resource
	churn *churner              // its churn; nil against a real cluster
	dash  *dashboard            // what the live page shows; nil without --ui
	// lessons knows which lesson (a fault button, the tombstone lesson) is
	// under way; nil against a real cluster. bounds are the retry and idle
	// bounds the live page's lessons set; nil: the informer's defaults.
	lessons *lessonTracker
	bounds  *lessonBounds

	metrics *metrics.Registry // what /metrics serves; nil without --serve-health
}

// stopStep undoes one thing run started; what says what, for the
// shutdown report.
type stopStep struct {
	what func() text
	stop func()
}

func (d *demo) onStop(what func() text, stop func()) {
	d.stops = append(d.stops, stopStep{what: what, stop: stop})
}

// tell prints one status line on stderr in the reader's language.
func (d *demo) tell(m msg, args ...any) {
	d.status.printf("demo: %s", d.cfg.lang.f(m, args...))
}

// unwind stops everything in reverse order; after an interrupt it says
// what it stopped, after a failure it stays quiet (the error is the line).
func (d *demo) unwind(report bool) { d.unwindTo(0, report) }

// unwindTo stops, in reverse order, what was started since len(d.stops)
// was mark.
func (d *demo) unwindTo(mark int, report bool) {
	for i := len(d.stops) - 1; i >= mark; i-- {
		s := d.stops[i]
		s.stop()
		if report {
			d.status.printf("demo: %s", s.what().in(d.cfg.lang))
		}
	}
	d.stops = d.stops[:mark]
}

// run connects (starting the embedded server unless a real cluster was
// asked for) and then serves or watches until ctx ends.
func (d *demo) run(ctx context.Context) (err error) {
	defer func() {
		// An interrupt is a stop, whatever it cut short (discovery, the
		// first list): what failed under it failed because of it.
		interrupted := ctx.Err() != nil
		if interrupted {
			err = nil
			d.tell(msg{en: "stopping (interrupted)", zh: "正在退出（收到中断信号）"})
		}
		d.unwind(interrupted)
	}()
	var cfg *apiclient.Config
	if d.cfg.real() {
		if cfg, err = d.loadReal(); err != nil {
			return err
		}
		if err = d.resolve(ctx, cfg); err != nil {
			return err
		}
	} else if cfg, err = d.startFake(ctx); err != nil {
		return err
	}
	if d.cfg.ui != "" {
		if err := d.startUI(); err != nil {
			return err
		}
	}
	if d.cfg.serve {
		d.tell(msg{en: "serving until interrupted (--serve: no informer)", zh: "一直提供服务，直到被中断（--serve：不运行 informer）"})
		<-ctx.Done()
		return nil
	}
	if d.cfg.serveHealth != "" {
		d.metrics = metrics.NewRegistry()
	}
	client, err := apiclient.NewWithOptions(cfg, apiclient.Options{Logger: slog.New(d.logHandler())})
	if err != nil {
		return fmt.Errorf("client for %s: %w", cfg.Host, err)
	}
	d.onStop(func() text {
		return say(msg{en: "closed the API client's connections", zh: "关闭了 API 客户端的连接"})
	}, client.CloseIdleConnections)
	ref := apiclient.Ref{GVR: d.cfg.resource.gvr, Namespace: d.cfg.namespace}
	if d.cfg.resource.cluster {
		ref.Namespace = ""
	}
	watch := func(ctx context.Context) error {
		if d.cfg.resource.isPods() {
			return watchResource[Pod](ctx, d, client, ref, cfg.Host)
		}
		return watchResource[meta.Raw](ctx, d, client, ref, cfg.Host)
	}
	if d.cfg.leaderElect {
		return d.whileLeading(ctx, client, watch)
	}
	return watch(ctx)
}

// loadReal reads the kubeconfig (or --master) the way kubectl does.
func (d *demo) loadReal() (*apiclient.Config, error) {
	cfg, err := kubeconfig.Load(d.cfg.kubeconfig, d.cfg.master)
	if err != nil {
		return nil, fmt.Errorf("load kubeconfig: %w", err)
	}
	source := cfg.Source
	if source == "" {
		source = "flags"
	}
	// Said after the sync, so that a failure stays the only line. It is
	// not called "the real cluster": --master may name another demo's
	// embedded server (demo --serve).
	d.source = say(msg{en: "the API server at %s (from %s; the demo only reads)", zh: "位于 %s 的 API Server（配置来自 %s；demo 只读不写）"}, cfg.Host, source)
	if d.cfg.leaderElect {
		d.source = say(msg{en: "the API server at %s (from %s; the demo writes only its Lease)", zh: "位于 %s 的 API Server（配置来自 %s；demo 只写它的 Lease）"}, cfg.Host, source)
	}
	return cfg, nil
}

// startFake starts the embedded server, writes its kubeconfig, seeds it and
// starts the churn; it prints the banner that tells the reader how to
// drive it with kubectl.
func (d *demo) startFake(ctx context.Context) (*apiclient.Config, error) {
	bookmarks := d.cfg.bookmarkEvery
	if d.cfg.ui != "" && !d.cfg.serve {
		// The page will have buttons: set the lessons' bounds (lessons.go).
		if !d.cfg.bookmarkSet {
			bookmarks = classBookmarks
		}
		b := classBounds(bookmarks)
		d.bounds = &b
	}
	d.lessons = newLessonTracker(d.now)
	srv := fakeapiserver.New(fakeapiserver.Options{BookmarkInterval: bookmarks, Logger: slog.New(d.logHandler()),
		ShardedListAndWatch: d.cfg.serverShards})
	// The server outlives ctx on purpose: it stops after the informer, in
	// unwind, so the informer never sees its server vanish.
	if err := srv.Start(context.WithoutCancel(ctx)); err != nil {
		return nil, fmt.Errorf("start the embedded API server: %w", err)
	}
	d.onStop(func() text {
		return say(msg{en: "stopped the fake API server at %s", zh: "停止了 %s 上的模拟 API Server"}, srv.URL())
	}, func() { _ = srv.Close() })
	dir, err := os.MkdirTemp("", "zerokube-demo-")
	if err != nil {
		return nil, fmt.Errorf("kubeconfig directory: %w", err)
	}
	d.onStop(func() text { return say(msg{en: "removed %s", zh: "删除了 %s"}, dir) }, func() { _ = os.RemoveAll(dir) })
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := srv.WriteKubeconfig(kubeconfig); err != nil {
		return nil, err
	}
	// Built from what the server says, not by fakeapiserver: the server
	// does not depend on the client it serves.
	cfg := &apiclient.Config{Host: srv.URL(), QPS: -1, Namespace: "default", Source: "fakeapiserver",
		BearerToken: srv.BearerToken()}
	cfg.TLS.CAData = srv.CAData()
	if err := d.resolve(ctx, cfg); err != nil {
		return nil, err
	}
	ch := newChurner(srv, d.cfg.resource, d.cfg.namespace, uint64(d.now().UnixNano()))
	d.fake, d.churn = srv, ch
	seeded := true
	err = ch.seed()
	if isNamespaceNotFound(err) {
		// The demo owns this server: make the namespace the reader asked
		// for rather than leave the watch silent.
		if _, cerr := srv.Create(namespacesGVR, map[string]any{"metadata": map[string]any{"name": ch.ns}}); cerr != nil {
			return nil, fmt.Errorf("create namespace %s: %w", ch.ns, cerr)
		}
		d.tell(msg{en: "namespace %s did not exist: created it in the embedded server", zh: "命名空间 %s 不存在：已在内嵌的 API Server 里创建"}, ch.ns)
		err = ch.seed()
	}
	if meta.IsNotFound(err) {
		// Not a resource the server knows: let the informer say so.
		seeded = false
	} else if err != nil {
		return nil, err
	}
	d.banner(srv.URL(), kubeconfig, ch)
	if d.bounds != nil {
		d.tell(msg{en: "%s", zh: "%s"}, d.bounds.said())
	}
	d.source = say(msg{en: "the embedded fake API server", zh: "内嵌的模拟 API Server"})
	if seeded {
		// Without --churn the loop starts paused: the live page's buttons
		// can still resume or step it.
		ch.paused.Store(!d.cfg.churn)
		ch.every.Store(int64(d.cfg.churnEvery))
		d.startChurn(ctx, ch)
	}
	return cfg, nil
}

// resolve turns --resource into a group/version/resource and a scope
// through the server's discovery, as kubectl resolves its arguments, so
// that short names, kinds and custom resources work. It waits at most
// --sync-timeout.
func (d *demo) resolve(ctx context.Context, cfg *apiclient.Config) error {
	c, err := apiclient.NewWithOptions(cfg, apiclient.Options{Logger: slog.New(d.logHandler())})
	if err != nil {
		return fmt.Errorf("client for %s: %w", cfg.Host, err)
	}
	defer c.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(ctx, d.cfg.syncTimeout)
	defer cancel()
	name := d.cfg.resource.name
	r, err := discovery.New(c, discovery.Options{}).Resolve(ctx, name)
	var se *meta.StatusError
	switch {
	case err == nil:
		d.cfg.resource.gvr, d.cfg.resource.cluster, d.cfg.resource.kind = r.GVR, !r.Namespaced, r.Kind
		return nil
	case discovery.IsNotFound(err) || discovery.IsAmbiguous(err):
		return fmt.Errorf("--resource %s: resource not found: %w", name, err)
	case errors.As(err, &se):
		return fmt.Errorf("cannot resolve --resource %s at %s: %s: %w", name, cfg.Host, strings.ToLower(string(se.Status.Reason)), err)
	case ctx.Err() == nil:
		return fmt.Errorf("cannot resolve --resource %s at %s: server unreachable: %w", name, cfg.Host, err)
	}
	return fmt.Errorf("cannot resolve --resource %s at %s: %w", name, cfg.Host, err)
}

func (d *demo) startChurn(ctx context.Context, ch *churner) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		ch.run(ctx, func(err error) { d.status.printf("demo: %s", oneLine(err)) })
	}()
	d.onStop(func() text {
		ticks := int(ch.ticks.Load())
		return say(msg{en: "stopped the churn after %d writes of its own (and %d more: the seeded objects and the page's buttons)",
			zh: "停止了自动变更：它自己写入 %d 次（另有 %d 次来自初始对象和页面按钮）"}, ticks, ch.writeCount()-ticks)
	}, func() { cancel(); wg.Wait() })
}

// banner tells the reader where the server is and how to poke it.
func (d *demo) banner(url, kubeconfig string, ch *churner) {
	where := say(msg{en: "%s", zh: "%s"}, ch.ns)
	if ch.ns == "" {
		where = say(msg{en: "the cluster scope", zh: "集群范围"})
	}
	churn := say(msg{en: "no churn", zh: "不自动变更"})
	if d.cfg.churn {
		churn = say(msg{en: "churn every %v", zh: "每 %v 自动变更一次"}, d.cfg.churnEvery)
	}
	res := d.cfg.resource.gvr.Resource
	k := "kubectl --kubeconfig " + kubeconfig
	d.tell(msg{en: "fake API server at %s (%d %s in %s, %s)", zh: "模拟 API Server 地址 %[1]s（%[4]s 中有 %[2]d 个 %[3]s，%[5]s）"}, url, ch.writes, res, where, churn)
	d.tell(msg{en: "kubeconfig %s", zh: "kubeconfig 文件 %s"}, kubeconfig)
	d.tell(msg{en: "try in another terminal:  %s get %s -w", zh: "在另一个终端里试试：  %s get %s -w"}, k, res)
	if d.cfg.resource.isPods() {
		d.status.printf("demo:   %s run mine --image=nginx", k)
		d.status.printf("demo:   %s label pod mine tier=web", k)
		d.status.printf("demo:   %s delete pod mine", k)
	}
}

// logHandler sends the informer's, client's and server's logs to stderr:
// everything with -v; otherwise warnings only, and only after the first
// sync (before it, the demo reports a failing sync itself, in one line)
// and outside a lesson (the lesson tells the failures it provokes).
func (d *demo) logHandler() slog.Handler {
	var h slog.Handler
	if d.cfg.verbose {
		h = slog.NewTextHandler(d.status, &slog.HandlerOptions{Level: slog.LevelDebug})
	} else {
		h = gatedHandler{Handler: slog.NewTextHandler(d.status, &slog.HandlerOptions{Level: slog.LevelWarn}), d: d}
	}
	if d.cfg.lang == langZH {
		h = zhLog{h}
	}
	return h
}

// gatedHandler drops every record before the first sync and while a
// lesson is under way.
type gatedHandler struct {
	slog.Handler
	d *demo
}

func (g gatedHandler) Enabled(ctx context.Context, l slog.Level) bool {
	if !g.d.synced.Load() {
		return false
	}
	if _, lesson := g.d.lessons.during(); lesson {
		return false
	}
	return g.Handler.Enabled(ctx, l)
}

func (g gatedHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return gatedHandler{Handler: g.Handler.WithAttrs(as), d: g.d}
}

func (g gatedHandler) WithGroup(name string) slog.Handler {
	return gatedHandler{Handler: g.Handler.WithGroup(name), d: g.d}
}

// startUI serves the live page (--ui): the buttons act on the embedded
// server and its churn; against a real cluster the page only shows.
func (d *demo) startUI() error {
	mode, res := "remote", apiclient.Ref{GVR: d.cfg.resource.gvr, Namespace: d.cfg.namespace}.String()
	if d.fake != nil {
		mode = "fake"
	}
	d.dash = newDashboard(d.now, mode, res)
	said := refSaid(apiclient.Ref{GVR: d.cfg.resource.gvr, Namespace: d.cfg.namespace})
	d.dash.resourceSaid = &said
	d.dash.words.graceful = d.graceful // before the informer starts tracing
	if d.cfg.deltaFIFO {
		d.dash.runsDeltaFIFO()
	}
	var actions []action
	if d.fake != nil {
		srv, ch := d.fake, d.churn
		var idle time.Duration
		if d.bounds != nil {
			idle = d.bounds.idle
		}
		actions = fakeActions(srv, ch, d.lessons, idle)
		d.dash.server = func() serverView {
			st := srv.Stats()
			faults := make(map[string]int64, len(st.Faults))
			for k, v := range st.Faults {
				faults[string(k)] = v
			}
			return serverView{URL: srv.URL(), ResourceVersion: srv.ResourceVersion(), Requests: st.Requests,
				Writes: st.Writes, Watchers: st.ActiveWatchers, Faults: faults, ChurnPaused: ch.paused.Load(), ChurnEvery: ch.interval().String()}
		}
	}
	u, err := startUI(d.cfg.ui, d.dash, actions, d.cfg.lang)
	if err != nil {
		return err
	}
	u.present = d.cfg.present
	d.onStop(func() text {
		return say(msg{en: "stopped the live page at %s", zh: "关闭了实时页面 %s"}, u.URL())
	}, u.stop)
	d.tell(msg{en: "live page of the data path at %s", zh: "数据通路的实时页面：%s"}, u.URL())
	return nil
}

var namespacesGVR = meta.GVR{Version: "v1", Resource: "namespaces"}

// isNamespaceNotFound tells the 404 of a write into a missing namespace
// (its details name the namespace) from that of an unknown resource.
func isNamespaceNotFound(err error) bool {
	var se *meta.StatusError
	return errors.As(err, &se) && meta.IsNotFound(err) && se.Status.Details != nil && se.Status.Details.Kind == "namespaces"
}
