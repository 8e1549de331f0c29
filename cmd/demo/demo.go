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

	source string      // where the objects come from, for the synced line
	synced atomic.Bool // opens the log gate (see gatedHandler)
	stops  []stopStep  // undone in reverse order when run returns

	fake  *fakeapiserver.Server // the embedded server; nil against a real cluster
	shard *informer.Shard       // --shard; nil for the whole resource
	churn *churner              // its churn; nil against a real cluster
	dash  *dashboard            // what the live page shows; nil without --ui

	metrics *metrics.Registry // what /metrics serves; nil without --serve-health
}

// stopStep undoes one thing run started; what says what, for the
// shutdown report.
type stopStep struct {
	what func() string
	stop func()
}

func (d *demo) onStop(what func() string, stop func()) {
	d.stops = append(d.stops, stopStep{what: what, stop: stop})
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
			d.status.printf("demo: %s", s.what())
		}
	}
	d.stops = d.stops[:mark]
}

// run connects (starting the embedded server unless a real cluster was
// asked for) and then serves or watches until ctx ends.
func (d *demo) run(ctx context.Context) (err error) {
	defer func() {
		interrupted := err == nil && ctx.Err() != nil
		if interrupted {
			d.status.printf("demo: interrupted, shutting down")
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
		d.status.printf("demo: serving until interrupted (--serve: no informer)")
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
	d.onStop(func() string { return "closed the API client's connections" }, client.CloseIdleConnections)
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
	cfg, err := apiclient.Load(d.cfg.kubeconfig, d.cfg.master)
	if err != nil {
		return nil, fmt.Errorf("load kubeconfig: %w", err)
	}
	source := cfg.Source
	if source == "" {
		source = "flags"
	}
	// Said after the sync, so that a failure stays the only line.
	d.source = fmt.Sprintf("the real cluster at %s (from %s; the demo only reads)", cfg.Host, source)
	return cfg, nil
}

// startFake starts the embedded server, writes its kubeconfig, seeds it and
// starts the churn; it prints the banner that tells the reader how to
// drive it with kubectl.
func (d *demo) startFake(ctx context.Context) (*apiclient.Config, error) {
	srv := fakeapiserver.New(fakeapiserver.Options{BookmarkInterval: d.cfg.bookmarkEvery, Logger: slog.New(d.logHandler()),
		ShardedListAndWatch: d.cfg.serverShards})
	// The server outlives ctx on purpose: it stops after the informer, in
	// unwind, so the informer never sees its server vanish.
	if err := srv.Start(context.WithoutCancel(ctx)); err != nil {
		return nil, fmt.Errorf("start the embedded API server: %w", err)
	}
	d.onStop(func() string { return "stopped the fake API server at " + srv.URL() }, func() { _ = srv.Close() })
	dir, err := os.MkdirTemp("", "zerokube-demo-")
	if err != nil {
		return nil, fmt.Errorf("kubeconfig directory: %w", err)
	}
	d.onStop(func() string { return "removed " + dir }, func() { _ = os.RemoveAll(dir) })
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
		d.status.printf("demo: namespace %s did not exist: created it in the embedded server", ch.ns)
		err = ch.seed()
	}
	if meta.IsNotFound(err) {
		// Not a resource the server knows: let the informer say so.
		seeded = false
	} else if err != nil {
		return nil, err
	}
	d.banner(srv.URL(), kubeconfig, ch)
	d.source = "the embedded fake API server"
	if d.cfg.churn && seeded {
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
		d.cfg.resource.gvr, d.cfg.resource.cluster = r.GVR, !r.Namespaced
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
		ch.run(ctx, d.cfg.churnEvery, func(err error) { d.status.printf("demo: %s", oneLine(err)) })
	}()
	d.onStop(func() string { return fmt.Sprintf("stopped the churn after %d writes", ch.writeCount()) },
		func() { cancel(); wg.Wait() })
}

// banner tells the reader where the server is and how to poke it.
func (d *demo) banner(url, kubeconfig string, ch *churner) {
	where := ch.ns
	if where == "" {
		where = "the cluster scope"
	}
	churn := "no churn"
	if d.cfg.churn {
		churn = fmt.Sprintf("churn every %v", d.cfg.churnEvery)
	}
	res := d.cfg.resource.gvr.Resource
	k := "kubectl --kubeconfig " + kubeconfig
	d.status.printf("demo: fake API server at %s (%d %s in %s, %s)", url, ch.writes, res, where, churn)
	d.status.printf("demo: kubeconfig %s", kubeconfig)
	d.status.printf("demo: try in another terminal:  %s get %s -w", k, res)
	if d.cfg.resource.isPods() {
		d.status.printf("demo:   %s run mine --image=nginx", k)
		d.status.printf("demo:   %s label pod mine tier=web", k)
		d.status.printf("demo:   %s delete pod mine", k)
	}
}

// logHandler sends the informer's, client's and server's logs to stderr:
// everything with -v; otherwise warnings only, and only after the first
// sync (before it, the demo reports a failing sync itself, in one line).
func (d *demo) logHandler() slog.Handler {
	if d.cfg.verbose {
		return slog.NewTextHandler(d.status, &slog.HandlerOptions{Level: slog.LevelDebug})
	}
	return gatedHandler{Handler: slog.NewTextHandler(d.status, &slog.HandlerOptions{Level: slog.LevelWarn}), open: &d.synced}
}

// gatedHandler drops every record until open is set.
type gatedHandler struct {
	slog.Handler
	open *atomic.Bool
}

func (g gatedHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return g.open.Load() && g.Handler.Enabled(ctx, l)
}

func (g gatedHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return gatedHandler{Handler: g.Handler.WithAttrs(as), open: g.open}
}

func (g gatedHandler) WithGroup(name string) slog.Handler {
	return gatedHandler{Handler: g.Handler.WithGroup(name), open: g.open}
}

// startUI serves the live page (--ui): the buttons act on the embedded
// server and its churn; against a real cluster the page only shows.
func (d *demo) startUI() error {
	mode, res := "real", apiclient.Ref{GVR: d.cfg.resource.gvr, Namespace: d.cfg.namespace}.String()
	if d.fake != nil {
		mode = "fake"
	}
	d.dash = newDashboard(d.now, mode, res)
	var actions []action
	if d.fake != nil {
		srv, ch := d.fake, d.churn
		actions = fakeActions(srv, ch)
		d.dash.server = func() serverView {
			st := srv.Stats()
			faults := make(map[string]int64, len(st.Faults))
			for k, v := range st.Faults {
				faults[string(k)] = v
			}
			return serverView{URL: srv.URL(), ResourceVersion: srv.ResourceVersion(), Requests: st.Requests,
				Writes: st.Writes, Watchers: st.ActiveWatchers, Faults: faults, ChurnPaused: ch.paused.Load()}
		}
	}
	u, err := startUI(d.cfg.ui, d.dash, actions)
	if err != nil {
		return err
	}
	d.onStop(func() string { return "stopped the live page at " + u.URL() }, u.stop)
	d.status.printf("demo: live page of the data path at %s", u.URL())
	return nil
}

var namespacesGVR = meta.GVR{Version: "v1", Resource: "namespaces"}

// isNamespaceNotFound tells the 404 of a write into a missing namespace
// (its details name the namespace) from that of an unknown resource.
func isNamespaceNotFound(err error) bool {
	var se *meta.StatusError
	return errors.As(err, &se) && meta.IsNotFound(err) && se.Status.Details != nil && se.Status.Details.Kind == "namespaces"
}
