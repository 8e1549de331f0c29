package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/shard"
)

// config is the parsed command line.
type config struct {
	kubeconfig    string
	kubeconfigSet bool // --kubeconfig was given, even as "": use a real cluster
	master        string
	namespace     string
	resource      resourceSpec
	resync        time.Duration
	selector      string
	churn         bool
	churnEvery    time.Duration
	serve         bool
	streamingList bool
	websocket     bool
	trace         bool
	color         string
	syncTimeout   time.Duration
	bookmarkEvery time.Duration
	bookmarkSet   bool // --bookmark-interval was given: the lessons keep it
	pageSize      int64
	consistent    bool
	verbose       bool
	ui            string // --ui address of the live page; "" = no page
	present       bool   // --present: the page opens in presentation mode
	shard         string // --shard i/N; "" = the whole resource
	shardBy       string // --shard-by uid|namespace
	serverShards  bool   // the embedded server honours shardSelector
	snapshot      string // --snapshot directory; "" = no warm restart
	serveHealth   string // --serve-health address of /healthz and /metrics; "" = none
	leaderElect   bool   // --leader-elect: watch only while holding the demo's Lease
	deltaFIFO     bool   // --delta-fifo: client-go's DeltaFIFO instead of the in-order queue
	// tombstoneAfter: this long after the first sync, the embedded server
	// deletes one object the watch misses (see missedDelete); 0 = never.
	tombstoneAfter time.Duration
	langFlag       string // --lang as given; "" = English (run puts a Chinese environment's first)
	lang           lang   // the language of the trace, the status lines and the page
}

// real reports whether the demo talks to a real cluster. Only an explicit
// --kubeconfig or --master does that: with no flags the demo must run
// anywhere, so it never picks up ~/.kube/config on its own.
func (c config) real() bool { return c.kubeconfigSet || c.master != "" }

// errHelp is returned for -h/--help after the usage went to the output.
var errHelp = errors.New("help requested")

// parseFlags parses args. Usage goes to out only for -h; errors come back
// as one line and never print the whole usage.
func parseFlags(args []string, out io.Writer) (config, error) {
	var c config
	var resource string
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&c.kubeconfig, "kubeconfig", "", "kubeconfig of a real cluster to use instead of the embedded fake server (\"\" = kubectl's lookup, e.g. ~/.kube/config)")
	fs.StringVar(&c.master, "master", "", "API server URL of a real cluster (overrides the kubeconfig's server)")
	fs.StringVar(&c.namespace, "namespace", "default", "namespace to watch; \"\" for all namespaces")
	fs.StringVar(&resource, "resource", "pods", "resource to watch, named as kubectl names it (pods, deploy, deployments.apps, Deployment, a custom resource's plural or short name) or as version/resource or group/version/resource; resolved through the server's discovery")
	fs.DurationVar(&c.resync, "resync", 60*time.Second, "resync period: every period each cached object is delivered again as an Update (0 = never)")
	fs.StringVar(&c.selector, "selector", "", "label selector, e.g. app=web,tier!=db")
	fs.BoolVar(&c.churn, "churn", true, "keep creating, relabelling and deleting objects on the embedded server")
	fs.DurationVar(&c.churnEvery, "churn-interval", 3*time.Second, "time between two churn writes")
	fs.BoolVar(&c.serve, "serve", false, "run only the embedded fake server (with its churn), for kubectl and other clients")
	fs.BoolVar(&c.streamingList, "streaming-list", false, "sync with a streaming list (watch with sendInitialEvents) instead of LIST")
	fs.BoolVar(&c.websocket, "websocket", false, "watch over a websocket instead of chunked HTTP")
	fs.BoolVar(&c.trace, "trace", false, "print every stage of the data path: list pages, watch, events, deltas, store, handlers, bookmarks, relists")
	fs.StringVar(&c.color, "color", "auto", "colour the --trace output: auto (when stdout is a terminal and NO_COLOR is unset), always, never")
	fs.DurationVar(&c.syncTimeout, "sync-timeout", 30*time.Second, "give up when the first sync takes longer")
	fs.DurationVar(&c.bookmarkEvery, "bookmark-interval", time.Minute, "how often the embedded server sends BOOKMARK events")
	fs.Int64Var(&c.pageSize, "page-size", 500, "LIST page size; negative: unpaginated (a LIST at resourceVersion 0 comes whole anyway, as from kube-apiserver's watch cache: add --consistent-list to see pages)")
	fs.BoolVar(&c.consistent, "consistent-list", false, "make the first LIST a consistent read (resourceVersion \"\"), which the server pages by --page-size; the default list at \"0\" is served whole from the watch cache")
	fs.StringVar(&c.ui, "ui", "", "serve a live page of the data path at this address, e.g. 127.0.0.1:8080 (a bare :8080 listens on loopback only; 127.0.0.1:0 takes a free port, and the page's URL is printed on stderr)")
	fs.BoolVar(&c.present, "present", false, "open the live page (--ui) in presentation mode: large type, high contrast, the six boxes and the last hops only, for a projector; the page switches back and forth")
	fs.StringVar(&c.shard, "shard", "", "cache only shard i of N, e.g. 0/2: run N demos, one per shard, on the same server (filtered by the server when it supports shard selectors, by the informer otherwise)")
	fs.StringVar(&c.shardBy, "shard-by", "uid", "what --shard hashes: uid or namespace")
	fs.BoolVar(&c.serverShards, "server-shards", true, "the embedded server honours shardSelector (kube-apiserver's ShardedListAndWatch gate); false: it ignores it, as a server without the gate, and the informer filters")
	fs.StringVar(&c.snapshot, "snapshot", "", "keep a snapshot of the cache in this directory and, at the next start, resume from it instead of listing (warm restart; the server must be the same: use it with --master, e.g. against a demo --serve)")
	fs.StringVar(&c.serveHealth, "serve-health", "", "serve the informer's health as JSON at http://ADDR/healthz (200 in step, 503 stale or not synced) and its metrics for Prometheus at http://ADDR/metrics; a bare :8081 listens on loopback only")
	fs.BoolVar(&c.leaderElect, "leader-elect", false, "campaign for the Lease "+leaseName+" and watch only while leading; the others wait. Run two on one server (e.g. demo --serve, then twice demo --kubeconfig ITS_KUBECONFIG --leader-elect) and interrupt the leader: it releases the Lease and the other takes over within 2 s")
	fs.BoolVar(&c.deltaFIFO, "delta-fifo", false, "queue deltas in client-go's DeltaFIFO (grouped per key, as the article draws it) instead of the default in-order queue (client-go's RealFIFO: handlers see changes to different objects in the server's order)")
	fs.DurationVar(&c.tombstoneAfter, "tombstone-after", 20*time.Second, "this long after the first sync, the embedded server deletes one of its objects (a pod, or one of --resource) while the watch is stalled, compacts its history and cuts the connection: the relist finds the object gone and the handler gets a tombstone (Delete with finalStateUnknown=true), the article's step 4; 0 = never")
	fs.BoolVar(&c.verbose, "v", false, "log everything the informer, the client and the server log (debug and up) to stderr; without -v only their warnings, from the first sync on, and none for a failure a lesson provokes (the live page's buttons, --tombstone-after): the lesson tells it")
	fs.StringVar(&c.langFlag, "lang", "", "language of the --trace words, the demo's messages and the live page: en or zh (default: from LC_ALL, LC_MESSAGES or LANG; English unless they name Chinese); the handler lines and the trace's stage names stay the same")
	fs.Usage = func() {} // errors are one line; -h prints the usage below
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(out, fs, langInArgs(args))
			return c, errHelp
		}
		return c, fmt.Errorf("%w (see demo -h)", err)
	}
	fs.Visit(func(f *flag.Flag) {
		c.kubeconfigSet = c.kubeconfigSet || f.Name == "kubeconfig"
		c.bookmarkSet = c.bookmarkSet || f.Name == "bookmark-interval"
	})
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q (flags only; see demo -h)", fs.Arg(0))
	}
	var err error
	if c.langFlag != "" {
		if c.lang, err = parseLang(c.langFlag); err != nil {
			return c, err
		}
	}
	if c.resource, err = parseResource(resource); err != nil {
		return c, err
	}
	return c, c.check()
}

// check rejects combinations that cannot work, before anything starts.
func (c config) check() error {
	if _, err := meta.ParseLabelSelector(c.selector); err != nil {
		return fmt.Errorf("--selector: %w", err)
	}
	if _, err := c.shardSelector(); err != nil {
		return err
	}
	switch {
	case c.resync < 0:
		return fmt.Errorf("--resync must not be negative, got %v", c.resync)
	case c.churnEvery <= 0:
		return fmt.Errorf("--churn-interval must be positive, got %v", c.churnEvery)
	case c.syncTimeout <= 0:
		return fmt.Errorf("--sync-timeout must be positive, got %v", c.syncTimeout)
	case c.pageSize == 0:
		return errors.New("--page-size must not be 0 (negative means unpaginated)")
	case c.bookmarkEvery <= 0:
		return fmt.Errorf("--bookmark-interval must be positive, got %v", c.bookmarkEvery)
	case c.serve && c.real():
		return errors.New("--serve runs the embedded server; it cannot be combined with --kubeconfig or --master")
	case c.present && c.ui == "":
		return errors.New("--present is a mode of the live page: add --ui, e.g. --ui 127.0.0.1:8080")
	case c.serve && c.ui != "":
		return errors.New("--ui shows an informer; --serve runs none")
	case c.serve && c.leaderElect:
		return errors.New("--leader-elect elects the demo that watches; --serve runs none")
	case c.serve && c.serveHealth != "":
		return errors.New("--serve-health reports an informer; --serve runs none")
	case c.color != "auto" && c.color != "always" && c.color != "never":
		return fmt.Errorf("--color must be auto, always or never, got %q", c.color)
	}
	return nil
}

// resourceSpec is what --resource names: the name as written, and what
// the server's discovery resolved it to (demo.resolve).
type resourceSpec struct {
	name    string
	gvr     meta.GVR
	kind    string // "Pod", "Deployment": what the reader calls one object
	cluster bool   // cluster-scoped: --namespace does not apply
}

// parseResource checks the form of a --resource name; the server's
// discovery resolves it once a server is there (demo.resolve).
func parseResource(s string) (resourceSpec, error) {
	parts := strings.Split(s, "/")
	for _, p := range parts {
		if p == "" {
			return resourceSpec{}, fmt.Errorf("--resource %q: want a name (pods, deploy, deployments.apps), version/resource or group/version/resource", s)
		}
	}
	if len(parts) > 3 {
		return resourceSpec{}, fmt.Errorf("--resource %q: too many slashes; want group/version/resource", s)
	}
	return resourceSpec{name: s}, nil
}

// isPods reports whether the slim Pod type fits the resource.
func (r resourceSpec) isPods() bool {
	return r.gvr == meta.GVR{Version: "v1", Resource: "pods"}
}

// shardSelector is the shard --shard and --shard-by name; the zero Selector
// (everything) without --shard.
func (c config) shardSelector() (shard.Selector, error) {
	var f shard.Field
	switch c.shardBy {
	case "uid", "":
		f = shard.UID
	case "namespace":
		f = shard.Namespace
	default:
		return shard.Selector{}, fmt.Errorf("--shard-by must be uid or namespace, got %q", c.shardBy)
	}
	if c.shard == "" {
		return shard.Selector{}, nil
	}
	is, ns, ok := strings.Cut(c.shard, "/")
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil {
		return shard.Selector{}, fmt.Errorf("--shard wants i/n, e.g. 0/2, got %q", c.shard)
	}
	switch {
	case n < 1:
		return shard.Selector{}, fmt.Errorf("--shard %s: n must be at least 1 (i/n, e.g. 0/2)", c.shard)
	case i < 0 || i >= n:
		return shard.Selector{}, fmt.Errorf("--shard %s: i must be between 0 and n-1 = %d", c.shard, n-1)
	}
	sel, err := shard.Of(i, n)
	if err != nil {
		return shard.Selector{}, fmt.Errorf("--shard %s: %w", c.shard, err)
	}
	return sel.On(f), nil
}
