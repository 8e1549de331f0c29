package main

import (
	"errors"
	"io"
	"sync"
	"time"

	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
)

// dashboard is what the live page (--ui) shows: the informer's data path as
// the article draws it, folded from the informer's own trace events (observe.Event) and
// Metrics calls. It keeps no second source of truth: every number on the
// page is either counted from those two streams or read from the cache
// itself, so the page cannot disagree with --trace.
//
// Trace events arrive on the reflector's, the processing loop's and the
// handlers' goroutines, metrics calls too, and the HTTP handlers read
// snapshots: everything below mu is guarded by it.
type dashboard struct {
	now   func() time.Time
	words *tracer // the --trace wording, reused for the log lines

	mu       sync.Mutex // guards the fields below
	mode     string     // "fake" (the embedded server: buttons) or "remote" (view only)
	resource string
	// resourceSaid is resource in words of both languages; unset, the
	// page shows resource as it is.
	resourceSaid *text
	server       func() serverView // nil against a real cluster
	cacheLen     func() int        // set once the informer exists
	nsValues     func() []string
	refl         reflectorView
	queue        queueView
	loop         loopView
	handlers     map[string]*handlerView
	order        []string // handler names in registration order
	log          []logLine
	seq          int64
	// lastErr is the reflector's last failure in words of both languages:
	// a lesson's told as part of it (tracer.failureSaid).
	lastErr *text
	audit   auditView     // the cache audit, under the lessons (audit.go)
	changed chan struct{} // closed and replaced on every change
	actions []action      // the page's buttons; nil without an embedded server
}

// logKeep is how many log lines the page can scroll back through.
const logKeep = 200

type reflectorView struct {
	State       string         `json:"state"` // starting, listing, watching, streaming, backing-off, watch-ended
	Since       time.Time      `json:"since"`
	Cause       string         `json:"cause,omitempty"` // of the current or last relist
	RV          string         `json:"resourceVersion"`
	Synced      bool           `json:"synced"`
	Streaming   bool           `json:"streaming"`
	ListPages   int            `json:"listPages"` // pages of the last list
	ListItems   int            `json:"listItems"`
	ListRV      string         `json:"listResourceVersion"`
	ListAt      time.Time      `json:"listAt"`
	WatchSince  time.Time      `json:"watchSince"`
	WatchEvents int            `json:"watchEvents"` // events on the current watch
	Events      map[string]int `json:"events"`      // by type, all watches
	Bookmarks   int            `json:"bookmarks"`
	Relists     map[string]int `json:"relists"` // by cause
	Backoffs    int            `json:"backoffs"`
	Backoff     string         `json:"backoff,omitempty"`   // the current wait
	LastError   string         `json:"lastError,omitempty"` // in the page's language: dashboard.lastErr
	ListCalls   int            `json:"listCalls"`
	WatchCalls  int            `json:"watchCalls"`
	Failures    int            `json:"failures"` // LIST or WATCH calls that failed
}

type queueView struct {
	// Kind is the queue the informer runs: "inorder" (the default,
	// client-go's RealFIFO) or "deltafifo" (--delta-fifo).
	Kind       string      `json:"kind"`
	Depth      int         `json:"depth"`
	Queued     int         `json:"queued"`     // deltas queued in all
	Replaces   int         `json:"replaces"`   // whole lists queued
	Tombstones int         `json:"tombstones"` // deletes a relist produced
	Last       []deltaView `json:"last"`
}

type deltaView struct {
	Op  observe.Op `json:"op"`
	Key string     `json:"key"`
}

type loopView struct {
	Applied int                `json:"applied"` // deltas applied to the cache
	ByOp    map[observe.Op]int `json:"byOp"`
	Resyncs int                `json:"resyncs"`
	// CacheSwaps counts relists whose result replaced the cache in one
	// step: a reader saw the old list or the new one, never a mix.
	CacheSwaps int        `json:"cacheSwaps"`
	Skipped    int        `json:"skipped"`
	LastOp     observe.Op `json:"lastOp,omitempty"`
	LastKey    string     `json:"lastKey,omitempty"`
	LastTime   time.Time  `json:"lastTime"`
}

type handlerView struct {
	Name      string  `json:"name"`
	Calls     int     `json:"calls"`
	Depth     int     `json:"queueDepth"`
	LagMs     float64 `json:"lagMs"` // dispatch to call, last call
	MaxLagMs  float64 `json:"maxLagMs"`
	TookMs    float64 `json:"tookMs"`
	Coalesced int     `json:"coalesced"`
	Panics    int     `json:"panics"`
}

type cacheView struct {
	Objects    int      `json:"objects"`
	Indexes    []string `json:"indexes"`
	Namespaces []string `json:"namespaces"`
	// Audit: how many cache audits ran and what the last found, in the
	// page's language; "–" before the first, or without the audit.
	Audit string `json:"audit"`
}

type serverView struct {
	URL             string           `json:"url"`
	ResourceVersion int64            `json:"resourceVersion"`
	Requests        int64            `json:"requests"`
	Writes          int64            `json:"writes"`
	Watchers        int              `json:"watchers"`
	Faults          map[string]int64 `json:"faults"`
	ChurnPaused     bool             `json:"churnPaused"`
	ChurnEvery      string           `json:"churnEvery"` // the time between two churn writes
}

// logLine is one hop of the data path, named in the article's and
// client-go's terms so a reader can map the page onto either.
type logLine struct {
	Seq      int64     `json:"seq"`
	Time     time.Time `json:"time"`
	Stage    string    `json:"stage"`    // zerokube's stage name
	Part     string    `json:"part"`     // the box on the page
	ClientGo string    `json:"clientGo"` // where client-go does the same, in the page's language
	cg       text
	Text     string `json:"text"` // in the language the page asked for
	said     text
}

// actionView is a button of the page.
type actionView struct {
	Name  string `json:"name"`
	Label string `json:"label"`
	Help  string `json:"help"`
	Fault bool   `json:"fault"` // a failure path, not a write
}

// state is one snapshot of the page, the body of /api/state and of every
// server-sent event.
type state struct {
	Mode      string         `json:"mode"`
	Resource  string         `json:"resource"`
	Now       time.Time      `json:"now"`
	Server    *serverView    `json:"server,omitempty"`
	Reflector reflectorView  `json:"reflector"`
	Queue     queueView      `json:"queue"`
	Loop      loopView       `json:"loop"`
	Cache     cacheView      `json:"cache"`
	Handlers  []*handlerView `json:"handlers"`
	Log       []logLine      `json:"log"`
	Actions   []actionView   `json:"actions"`
	Seq       int64          `json:"seq"` // of the newest log line
}

// The queue kinds of queueView.Kind.
const (
	queueInOrder   = "inorder"
	queueDeltaFIFO = "deltafifo"
)

func newDashboard(now func() time.Time, mode, resource string) *dashboard {
	t0 := now()
	return &dashboard{
		now: now, words: &tracer{now: now},
		mode: mode, resource: resource, queue: queueView{Kind: queueInOrder},
		refl:     reflectorView{State: "starting", Since: t0, Events: map[string]int{}, Relists: map[string]int{}},
		loop:     loopView{ByOp: map[observe.Op]int{}},
		handlers: map[string]*handlerView{},
		changed:  make(chan struct{}),
	}
}

// wake tells every waiting stream that the state changed. d.mu must be held.
func (d *dashboard) wakeLocked() {
	close(d.changed)
	d.changed = make(chan struct{})
}

// touch wakes the streams after a change the informer does not report.
func (d *dashboard) touch() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.wakeLocked()
}

// changes returns a channel closed at the next change.
func (d *dashboard) changes() <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.changed
}

// observe folds one trace event into the page; it is (part of) the
// informer's Options.Observe.Trace.
func (d *dashboard) observe(ev observe.Event) {
	said := d.describe(ev)
	now := d.now()
	d.mu.Lock()
	defer d.mu.Unlock()
	d.apply(ev, now)
	part, cg := stageTerms(ev.Stage, d.queue.Kind == queueDeltaFIFO)
	d.seq++
	d.log = append(d.log, logLine{Seq: d.seq, Time: now, Stage: ev.Stage.String(), Part: part, cg: cg, said: said})
	if len(d.log) > logKeep {
		d.log = append(d.log[:0], d.log[len(d.log)-logKeep:]...)
	}
	d.wakeLocked()
}

// note adds a line of the demo's own to the log, under stage, in the
// reflector's box.
func (d *dashboard) note(stage string, said text) {
	now := d.now()
	d.mu.Lock()
	defer d.mu.Unlock()
	d.seq++
	d.log = append(d.log, logLine{Seq: d.seq, Time: now, Stage: stage, Part: "reflector", said: said})
	d.wakeLocked()
}

// describe words ev as --trace does.
func (d *dashboard) describe(ev observe.Event) text {
	if ev.Stage == observe.StageStoreUpdated {
		d.words.applied() // keeps the "depth ≈" of the wording in step
	}
	return d.words.describe(ev)
}

// setState moves the reflector box. d.mu must be held.
func (d *dashboard) setStateLocked(s string, now time.Time) {
	if d.refl.State != s {
		d.refl.State, d.refl.Since = s, now
	}
}

// apply is the state machine of the page: which box changes on which
// stage; this part moves the reflector's box. d.mu must be held.
func (d *dashboard) apply(ev observe.Event, now time.Time) {
	r := &d.refl
	switch ev.Stage {
	case observe.StageRelist:
		r.Cause = ev.Cause.String()
		r.Relists[r.Cause]++
		r.ListPages, r.ListItems, r.Backoff = 0, 0, ""
		d.setStateLocked("listing", now)
	case observe.StageListPage:
		r.ListPages, r.ListItems = ev.Page, r.ListItems+ev.Items
		r.ListRV, r.ListAt = ev.ResourceVersion, now
		d.setStateLocked("listing", now)
	case observe.StageReplace:
		d.queue.Replaces++
		d.queue.Queued += ev.Items
		r.RV = ev.ResourceVersion
	case observe.StageSynced:
		r.Synced = true
	case observe.StageWatchOpened:
		r.Streaming, r.WatchSince, r.WatchEvents, r.Backoff = ev.Streaming, now, 0, ""
		if ev.ResourceVersion != "" {
			r.RV = ev.ResourceVersion
		}
		if ev.Streaming {
			d.setStateLocked("streaming", now)
		} else {
			d.setStateLocked("watching", now)
		}
	case observe.StageEvent:
		r.WatchEvents++
		r.Events[string(ev.EventType)]++
		if ev.ResourceVersion != "" && r.State != "streaming" {
			r.RV = ev.ResourceVersion
		}
	case observe.StageBookmark:
		r.Bookmarks++
		r.RV = ev.ResourceVersion
		if r.State == "streaming" {
			d.setStateLocked("watching", now) // the bookmark that ends a streaming list
		}
	case observe.StageWatchEnded:
		if ev.Err != nil && !ev.Stopping && !errors.Is(ev.Err, io.EOF) && !informer.IsAuditRepair(ev.Err) {
			d.failedLocked(ev.Err)
		}
		d.setStateLocked("watch-ended", now)
	case observe.StageListFailed, observe.StageWatchFailed:
		d.failedLocked(ev.Err)
	case observe.StageBackoff:
		r.Backoffs++
		r.Backoff = ev.Duration.Round(time.Millisecond).String()
		d.failedLocked(ev.Err)
		d.setStateLocked("backing-off", now)
	default:
		d.applyQueueAndLoop(ev, now)
	}
}

// failedLocked keeps err as the reflector's last failure. d.mu must be
// held.
func (d *dashboard) failedLocked(err error) {
	said := d.words.failureSaid(err)
	d.lastErr = &said
}

// applyQueueAndLoop is apply for the delta queue's and the processing
// stage's boxes. d.mu must be held.
func (d *dashboard) applyQueueAndLoop(ev observe.Event, now time.Time) {
	switch ev.Stage {
	case observe.StageDeltaQueued:
		d.queue.Queued++
		d.queue.Last = append(d.queue.Last, deltaView{Op: ev.Op, Key: ev.Key})
		if len(d.queue.Last) > 8 {
			d.queue.Last = d.queue.Last[1:]
		}
	case observe.StageStoreUpdated:
		d.loop.Applied++
		d.loop.ByOp[ev.Op]++
		d.loop.LastOp, d.loop.LastKey, d.loop.LastTime = ev.Op, ev.Key, now
		if ev.Op == observe.OpTombstone { // the relist's list lacked it
			d.queue.Tombstones++
		}
	case observe.StageResync:
		d.loop.Resyncs++
	case observe.StageCacheReplaced:
		d.loop.CacheSwaps++
	case observe.StageSkipped:
		d.loop.Skipped++
	case observe.StageAudited, observe.StageAuditFailed:
		d.applyAuditLocked(ev)
	}
}

// snapshot returns the page's state now, its words in language l.
func (d *dashboard) snapshot(l lang) state {
	d.mu.Lock()
	server, cacheLen, nsValues := d.server, d.cacheLen, d.nsValues
	d.mu.Unlock()
	// The cache and the server are read outside d.mu: they take their own
	// locks, and the informer's goroutines may be waiting for d.mu.
	var c cacheView
	if cacheLen != nil {
		c = cacheView{Objects: cacheLen(), Indexes: []string{"namespace"}, Namespaces: nsValues()}
	}
	var sv *serverView
	if server != nil {
		v := server()
		sv = &v
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	res := d.resource
	if d.resourceSaid != nil {
		res = d.resourceSaid.in(l)
	}
	st := state{
		Mode: d.mode, Resource: res, Now: d.now(), Server: sv,
		Reflector: d.refl, Queue: d.queue, Loop: d.loop, Cache: c,
		Log: make([]logLine, len(d.log)), Seq: d.seq,
	}
	for _, a := range d.actions {
		st.Actions = append(st.Actions, a.view(l))
	}
	for i, line := range d.log {
		line.Text, line.ClientGo = line.said.in(l), line.cg.in(l)
		st.Log[i] = line
	}
	if d.lastErr != nil {
		st.Reflector.LastError = d.lastErr.in(l)
	}
	st.Cache.Audit = d.audit.said(l)
	st.Reflector.Events = copyMap(d.refl.Events)
	st.Reflector.Relists = copyMap(d.refl.Relists)
	st.Loop.ByOp = copyMap(d.loop.ByOp)
	st.Queue.Last = append([]deltaView(nil), d.queue.Last...)
	for _, name := range d.order {
		h := *d.handlers[name]
		st.Handlers = append(st.Handlers, &h)
	}
	return st
}

func copyMap[K comparable](m map[K]int) map[K]int {
	out := make(map[K]int, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// handler returns the view of the named handler. d.mu must be held.
func (d *dashboard) handlerLocked(name string) *handlerView {
	h := d.handlers[name]
	if h == nil {
		h = &handlerView{Name: name}
		d.handlers[name] = h
		d.order = append(d.order, name)
	}
	return h
}

// metrics returns the observe.Metrics that feed the page.
func (d *dashboard) metrics() observe.Metrics { return dashMetrics{d: d} }

// dashMetrics is the page's observe.Metrics: counters the trace events do
// not carry (queue depths, handler lag, coalescing, call outcomes).
type dashMetrics struct {
	observe.NopMetrics
	d *dashboard
}

func (m dashMetrics) update(fn func(d *dashboard)) {
	m.d.mu.Lock()
	defer m.d.mu.Unlock()
	fn(m.d)
	m.d.wakeLocked()
}

func (m dashMetrics) ListCall(err error) {
	m.update(func(d *dashboard) {
		d.refl.ListCalls++
		if err != nil {
			d.refl.Failures++
			d.failedLocked(err)
		}
	})
}

func (m dashMetrics) WatchCall(err error) {
	m.update(func(d *dashboard) {
		d.refl.WatchCalls++
		if err != nil {
			d.refl.Failures++
			d.failedLocked(err)
		}
	})
}

func (m dashMetrics) QueueDepth(n int) {
	m.d.words.setDepth(n)
	m.update(func(d *dashboard) { d.queue.Depth = n })
}

func (m dashMetrics) HandlerQueueDepth(name string, n int) {
	m.update(func(d *dashboard) { d.handlerLocked(name).Depth = n })
}

func (m dashMetrics) HandlerCall(name string, lag, took time.Duration) {
	m.update(func(d *dashboard) {
		h := d.handlerLocked(name)
		h.Calls++
		h.LagMs, h.TookMs = ms(lag), ms(took)
		h.MaxLagMs = max(h.MaxLagMs, h.LagMs)
	})
}

func (m dashMetrics) HandlerPanic(name string) {
	m.update(func(d *dashboard) { d.handlerLocked(name).Panics++ })
}

func (m dashMetrics) Coalesced(name string) {
	m.update(func(d *dashboard) { d.handlerLocked(name).Coalesced++ })
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// stageTerms names the box a stage belongs to on the page, and where
// client-go does the same step (k8s.io/client-go/tools/cache), in words of
// both languages: client-go's names stay as they are, the words around
// them are the reader's.
func stageTerms(s observe.Stage, deltaFIFO bool) (part string, clientGo text) {
	q := "RealFIFO" // fifo.InOrder's twin in client-go
	if deltaFIFO {
		q = "DeltaFIFO"
	}
	same := func(en string) text { return say(msg{en: "%s", zh: "%s"}, en) }
	switch s {
	case observe.StageListPage:
		return "reflector", say(msg{en: "Reflector.list (ListWatch.List through the pager)", zh: "Reflector.list（经分页器调用 ListWatch.List）"})
	case observe.StageReplace:
		return "queue", same(q + ".Replace")
	case observe.StageWatchOpened:
		return "reflector", same("Reflector.watch (ListWatch.Watch)")
	case observe.StageEvent:
		return "reflector", say(msg{en: "watchHandler: an event from ResultChan", zh: "watchHandler：来自 ResultChan 的一个事件"})
	case observe.StageBookmark:
		return "reflector", same("watchHandler: watch.Bookmark")
	case observe.StageWatchEnded:
		return "reflector", say(msg{en: "watchHandler returns", zh: "watchHandler 返回"})
	case observe.StageDeltaQueued:
		return "queue", same(q + ".Add / Update / Delete")
	case observe.StageStoreUpdated:
		return "cache", same("processDeltas: Indexer.Add / Update / Delete")
	case observe.StageHandlerCalled:
		return "handlers", same("processorListener.run: OnAdd / OnUpdate / OnDelete")
	case observe.StageRelist:
		return "reflector", say(msg{en: "Reflector.ListAndWatch starts over", zh: "Reflector.ListAndWatch 从头再来"})
	case observe.StageBackoff:
		return "reflector", say(msg{en: "backoff between ListAndWatch attempts", zh: "两次 ListAndWatch 之间的退避"})
	case observe.StageSynced:
		return "cache", say(msg{en: "HasSynced: the initial list is popped", zh: "HasSynced：初始列表已全部弹出"})
	case observe.StageSkipped:
		return "reflector", say(msg{en: "an object of an unexpected type is dropped", zh: "丢弃一个类型不符的对象"})
	case observe.StageResync:
		return "loop", say(msg{en: "resync: %s.Resync queues Sync deltas", zh: "resync：%s.Resync 把 Sync 增量放入队列"}, q)
	case observe.StageCacheReplaced:
		return "cache", say(msg{en: "processDeltas of a Replace (client-go applies it key by key)", zh: "处理 Replace 的 processDeltas（client-go 逐个键应用）"})
	case observe.StageListFailed:
		return "reflector", say(msg{en: "Reflector.list returns an error", zh: "Reflector.list 返回错误"})
	case observe.StageWatchFailed:
		return "reflector", say(msg{en: "ListWatch.Watch returns an error", zh: "ListWatch.Watch 返回错误"})
	case observe.StageCoalesced:
		return "handlers", say(msg{en: "no client-go twin: its processorListener buffer grows without bound",
			zh: "client-go 没有对应：它的 processorListener 缓冲区会无限增长"})
	case observe.StageTransformFailed:
		return "reflector", say(msg{en: "TransformFunc returns an error", zh: "TransformFunc 返回错误"})
	case observe.StageAudited:
		return "cache", say(msg{en: "consistencydetector.CheckDataConsistency: only with KUBE_WATCHLIST_INCONSISTENCY_DETECTOR, meant for CI",
			zh: "consistencydetector.CheckDataConsistency：只在设置 KUBE_WATCHLIST_INCONSISTENCY_DETECTOR 时运行，只打算用于 CI"})
	case observe.StageAuditDifference:
		return "cache", say(msg{en: "CheckDataConsistency logs a diff, then panics", zh: "CheckDataConsistency 记录差异，然后 panic"})
	case observe.StageAuditFailed:
		return "cache", say(msg{en: "CheckDataConsistency retries its LIST every second", zh: "CheckDataConsistency 每秒重试一次 LIST"})
	}
	return "informer", text{}
}

// compile-time check: the page's metrics are observe.Metrics.
var _ observe.Metrics = dashMetrics{}

// runsDeltaFIFO says the informer runs client-go's DeltaFIFO (--delta-fifo):
// the page and its words name that queue instead of the in-order one.
func (d *dashboard) runsDeltaFIFO() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.queue.Kind = queueDeltaFIFO
	d.words.deltaFIFO = true
}

// watchCache lets the page count the informer's cache itself.
func (d *dashboard) watchCache(length func() int, namespaces func() []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.cacheLen, d.nsValues = length, namespaces
}
