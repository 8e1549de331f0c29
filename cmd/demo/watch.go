package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/apiclient/websocket"
	"github.com/zerokube/zerokube/cache"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
)

// slowSync is how long the first sync runs before the demo says it is
// still under way.
const slowSync = time.Second

// errSyncTimeout is the cause of giving up on the first sync.
var errSyncTimeout = errors.New("sync timeout")

// watchResource is the article's main: an informer on ref whose handler
// prints one line per call. It returns nil when ctx ends (after stopping
// the informer and saying so), or the reason the first sync failed.
func watchResource[T any, P meta.PtrObject[T]](ctx context.Context, d *demo, c *apiclient.Client, ref apiclient.Ref, host string) error {
	syncCtx, giveUp := context.WithCancelCause(ctx)
	defer giveUp(nil)
	inf := newInformer[T, P](d, c, ref, giveUp)
	if _, err := inf.AddHandler(printer[P](d), informer.HandlerOptions{Name: "print"}); err != nil {
		return fmt.Errorf("add handler: %w", err)
	}
	runCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_ = inf.Run(runCtx) // a fail-fast error also reaches WaitForSync
	}()
	stopInformer := func() { stop(); wg.Wait() }
	if d.cfg.serveHealth != "" {
		d.exportHealth(ref, inf)
		url, err := serveHealth(runCtx, &wg, d.cfg.serveHealth, inf, d.metrics)
		if err != nil {
			stopInformer()
			return err
		}
		d.tell(msg{en: "health at %s/healthz", zh: "健康检查地址 %s/healthz"}, url)
		d.tell(msg{en: "metrics at %s/metrics", zh: "指标（metrics）地址 %s/metrics"}, url)
	}
	syncCtx, cancel := context.WithTimeoutCause(syncCtx, d.cfg.syncTimeout, errSyncTimeout)
	defer cancel()
	// A sync that takes long (a big list, a slow server) is said while it
	// runs; a quick one, or a quick failure, stays silent, so a failure
	// remains the only line.
	slow := time.AfterFunc(slowSync, func() {
		d.tell(msg{en: "still syncing %s from %s after %v (a LIST, or a streaming list, under way; giving up after --sync-timeout %v)…",
			zh: "%[3]v 过去了，还在从 %[2]s 同步%[1]s（LIST 或流式列表进行中；超过 --sync-timeout %[4]v 就放弃）……"},
			refSaid(ref), host, slowSync, d.cfg.syncTimeout)
	})
	err := inf.WaitForSync(syncCtx)
	slow.Stop()
	if err != nil {
		stopInformer()
		if ctx.Err() != nil {
			return nil // interrupted while syncing: a clean stop
		}
		return syncFailure(ref, host, d.cfg.syncTimeout, err, context.Cause(syncCtx))
	}
	d.synced.Store(true)
	n := len(inf.Lister().List(meta.LabelSelector{}))
	if d.resumed.Load() {
		d.tell(msg{en: "synced %d %s: resumed from the snapshot in %s at resourceVersion %s, nothing listed; the watch brings what changed since",
			zh: "已同步 %[1]d 个对象：%[2]s。它们来自 %[3]s 里的快照（资源版本 %[4]s），没有发 LIST；之后的变化由 watch 带来"},
			n, refSaid(ref), d.cfg.snapshot, inf.LastSyncResourceVersion())
	} else {
		d.tell(msg{en: "synced %d %s from %s", zh: "已同步 %[1]d 个对象：%[2]s，来自%[3]s"}, n, refSaid(ref), d.source)
	}
	d.scheduleTombstone(ctx)
	if n == 0 {
		d.warnMissingNamespace(ctx, c, ref)
	}
	if d.shard != nil {
		who := say(msg{en: "the informer (the server ignores shardSelector)", zh: "informer 自己（API Server 忽略 shardSelector）"})
		if d.shard.ServerSide() {
			who = say(msg{en: "the server (its list carried metadata.shardInfo)", zh: "API Server（它的列表带有 metadata.shardInfo）"})
		}
		d.tell(msg{en: "shard %s filtered by %s", zh: "分片 %s 由%s过滤"}, d.cfg.shard, who)
	}
	d.onStop(func() text {
		return say(msg{en: "stopped the informer on %s (%d objects cached, resourceVersion %s)",
			zh: "停止了 informer：%s（本地缓存 %d 个对象，资源版本 %s）"},
			refSaid(ref), len(inf.Lister().List(meta.LabelSelector{})), inf.LastSyncResourceVersion())
	}, stopInformer)
	<-ctx.Done()
	return nil
}

// newInformer builds the informer the flags describe. giveUp ends the
// wait for the first sync when a failure will not go away by retrying.
func newInformer[T any, P meta.PtrObject[T]](d *demo, c *apiclient.Client, ref apiclient.Ref, giveUp context.CancelCauseFunc) *informer.Informer[T, P] {
	opts := informer.Options[P]{
		Name:          ref.String(),
		LabelSelector: d.cfg.selector,
		Sync: informer.SyncOptions{
			StreamingList:       d.cfg.streamingList,
			PageSize:            d.cfg.pageSize,
			ConsistentFirstList: d.cfg.consistent,
			FailFast:            true, // 401, 403, 404: say so at once instead of retrying forever
		},
		Process: informer.ProcessOptions{
			ResyncPeriod: d.cfg.resync,
			DeltaFIFO:    d.cfg.deltaFIFO,
		},
		Observe: informer.ObserveOptions{
			Logger: slog.New(d.logHandler()),
			WatchErrorHandler: func(ctx context.Context, err error) {
				if !d.synced.Load() && ctx.Err() == nil && unreachable(err) {
					giveUp(err)
				}
			},
		},
	}
	if d.cfg.websocket {
		opts.Transport.Websocket = websocket.Dialer{}
	}
	if sel, _ := d.cfg.shardSelector(); !sel.IsEverything() {
		opts.Shard, _ = informer.NewShard(sel) // checked with the flags
		d.shard = opts.Shard
		d.tell(msg{en: "caching shard %s of %s: %s", zh: "只缓存分片 %[1]s：%[2]s，%[3]s"}, d.cfg.shard, refSaid(ref), sel)
	}
	if d.cfg.snapshot != "" {
		opts.Snapshot = informer.SnapshotOptions{Dir: d.cfg.snapshot} // New fills in what it is of
	}
	var metrics []observe.Metrics
	if d.cfg.snapshot != "" {
		metrics = append(metrics, snapshotReport{d: d})
	}
	var traces []func(observe.Event)
	var idle, maxBackoff time.Duration
	if d.lessons != nil {
		traces = append(traces, d.lessons.observe) // first: the others read what it knows
	}
	if b := d.bounds; b != nil {
		opts.Backoff, opts.Watch.IdleTimeout = b.backoff, b.idle
		idle, maxBackoff = b.idle, b.backoff.Max
		// Only with the page's buttons: the "Drop one event" lesson needs
		// the audit, and the plain demo's output stays the article's.
		opts.Audit = informer.AuditOptions{Period: b.audit, Repair: true}
	}
	if d.cfg.trace {
		t := &tracer{out: d.out, color: useColor(d.cfg.color, d.stdout, d.getenv), now: d.now, websocket: d.cfg.websocket,
			lang: d.cfg.lang, graceful: d.graceful, deltaFIFO: d.cfg.deltaFIFO, lessons: d.lessons, idle: idle, maxBackoff: maxBackoff}
		traces, metrics = append(traces, t.traceFunc()), append(metrics, depthMetrics{t: t})
		if d.bounds != nil {
			t.note("lessons", d.bounds.said())
		}
	}
	if d.dash != nil {
		d.dash.words.lessons, d.dash.words.idle, d.dash.words.maxBackoff = d.lessons, idle, maxBackoff
		if d.bounds != nil {
			d.dash.note("lessons", d.bounds.said())
		}
		traces, metrics = append(traces, d.dash.observe), append(metrics, d.dash.metrics())
	}
	if m := d.exportedMetrics(ref); m != nil {
		metrics = append(metrics, m)
	}
	opts.Observe.Trace, opts.Observe.Metrics = fanOutTrace(traces), fanOutMetrics(metrics)
	inf := informer.New[T](c, ref, opts) // and its ListerWatcher, the article's ListWatch
	if d.churn != nil {
		store, ns := inf.Store(), d.churn.ns
		cached := func(name string) bool {
			key := name
			if ns != "" {
				key = ns + "/" + name
			}
			_, ok := store.GetByKey(key)
			return ok
		}
		d.churn.cached.Store(&cached)
	}
	if d.dash != nil {
		store := inf.Store()
		d.dash.watchCache(store.Len, func() []string { return store.ListIndexFuncValues(cache.NamespaceIndex) })
	}
	return inf
}

// unreachable reports a failure with no Status from the server (refused,
// DNS, a TLS or scheme mismatch): before the first sync the demo stops at
// once, and syncFailure says which.
// Answers (5xx, 429) are retried by the informer until --sync-timeout.
func unreachable(err error) bool {
	var se *meta.StatusError
	return !errors.As(err, &se) && !errors.Is(err, context.Canceled)
}

// syncFailure says in one line why the informer could not sync.
func syncFailure(ref apiclient.Ref, host string, timeout time.Duration, err, cause error) error {
	var se *informer.SyncError
	switch {
	case errors.As(err, &se):
		return saidErr(se.Err, msg{en: "cannot sync %s from %s: %s: %v", zh: "无法从 %[2]s 同步%[1]s：%[3]s：%[4]v"}, refSaid(ref), host, se.Reason, se.Err)
	case errors.Is(cause, errSyncTimeout):
		return saidErr(err, msg{en: "cannot sync %s from %s: no sync within %v", zh: "无法从 %[2]s 同步%[1]s：%[3]v 内没有完成同步"}, refSaid(ref), host, timeout)
	case errors.Is(cause, apiclient.ErrTLS), errors.Is(cause, apiclient.ErrHTTPSToHTTP), errors.Is(cause, apiclient.ErrHTTPToHTTPS):
		// The server answered: sending the reader to check the network
		// would be wrong; the URL's scheme or the certificates are.
		return saidErr(cause, msg{en: "cannot sync %s from %s: the server answered, but the connection is set up wrong: %v",
			zh: "无法从 %[2]s 同步%[1]s：API Server 有应答，但连接的设置不对：%[3]v"}, refSaid(ref), host, cause)
	case cause != nil:
		return saidErr(cause, msg{en: "cannot sync %s from %s: server unreachable: %v", zh: "无法从 %[2]s 同步%[1]s：连不上 API Server：%[3]v"}, refSaid(ref), host, cause)
	}
	return saidErr(err, msg{en: "cannot sync %s from %s: %v", zh: "无法从 %[2]s 同步%[1]s：%[3]v"}, refSaid(ref), host, err)
}

// printer is the article's handler: one line per call, the object's
// namespace/name key, for tombstones too (their last known state has it).
func printer[P meta.Object](d *demo) informer.HandlerFuncs[P] {
	line := func(verb string, obj P) {
		key := meta.Key(obj)
		d.graceful.saw(key, obj, verb == "Delete")
		d.out.printf("%s", articleLine(d.now(), verb, key))
	}
	return informer.HandlerFuncs[P]{
		AddFunc:    func(obj P, _ bool) { line("Add", obj) },
		UpdateFunc: func(_, obj P) { line("Update", obj) },
		DeleteFunc: func(obj P, finalStateUnknown bool) {
			line("Delete", obj)
			if finalStateUnknown {
				d.tell(tombstoneSaid, meta.Key(obj))
			}
		},
	}
}

// warnMissingNamespace says when the watched namespace does not exist: a
// LIST in a missing namespace is an empty list, not an error, so without
// this the demo would just stay silent.
func (d *demo) warnMissingNamespace(ctx context.Context, c *apiclient.Client, ref apiclient.Ref) {
	if ref.Namespace == "" {
		return
	}
	_, err := apiclient.Get[meta.Raw](ctx, c, apiclient.Ref{GVR: namespacesGVR}, ref.Namespace)
	if meta.IsNotFound(err) {
		d.tell(msg{en: "namespace %s does not exist on the server: nothing will arrive until it is created",
			zh: "API Server 上没有命名空间 %s：在它被创建之前不会收到任何对象"}, ref.Namespace)
	}
}
