package main

import (
	"errors"
	"io"
	"strings"
	"time"

	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
)

// describe says what happened at ev's stage, in the words of doc.go and
// docs/internals.md (docs/internals.zh-CN.md for the Chinese), in both
// languages. It keeps the tracer's estimates in step, so it is called once
// per event.
func (t *tracer) describe(ev observe.Event) text {
	switch ev.Stage {
	case observe.StageListPage:
		cont := say(msg{en: "no continue token: last page", zh: "没有 continue 令牌：这是最后一页"})
		if ev.More {
			cont = say(msg{en: "continue token present: more pages follow", zh: "带有 continue 令牌：后面还有更多页"})
		}
		return say(msg{en: "LIST page %d: %d items at resourceVersion %s, %s",
			zh: "LIST 第 %d 页：%d 个对象，资源版本 %s，%s"}, ev.Page, ev.Items, ev.ResourceVersion, cont)
	case observe.StageReplace:
		return say(msg{en: "Replace(%d items, resourceVersion %s) into the delta queue %s (depth ≈%d); objects missing from it become tombstones",
			zh: "Replace（%d 个对象，资源版本 %s）放入增量队列 %s，深度约 %d。本地缓存里有、列表里没有的对象，会变成墓碑（tombstone）"},
			ev.Items, ev.ResourceVersion, t.queueName(), t.queued(ev.Items))
	case observe.StageWatchOpened:
		if ev.Streaming {
			return say(msg{en: "WATCH opened as a streaming list (sendInitialEvents) from resourceVersion %q%s",
				zh: "以流式列表（streaming list，sendInitialEvents=true）建立 WATCH，起始资源版本 %q%s"}, ev.ResourceVersion, t.wire())
		}
		return say(msg{en: "WATCH opened from resourceVersion %s%s", zh: "WATCH 已建立，从资源版本 %s 开始增量获取%s"}, ev.ResourceVersion, t.wire())
	case observe.StageEvent:
		return say(msg{en: "event %s %s at resourceVersion %s", zh: "收到事件 %s %s，资源版本 %s"}, ev.EventType, ev.Key, ev.ResourceVersion)
	case observe.StageBookmark:
		if ev.Op == observe.OpInitialEventsEnd {
			return say(msg{en: "BOOKMARK marked initial-events-end: the streaming list is complete at resourceVersion %s; it becomes one Replace",
				zh: "带 initial-events-end 标记的 BOOKMARK：流式列表已经完整，资源版本 %s；整个列表作为一次 Replace 放入队列"}, ev.ResourceVersion)
		}
		return say(msg{en: "BOOKMARK: resourceVersion is now %s (nothing queued)", zh: "BOOKMARK：资源版本推进到 %s（没有对象入队）"}, ev.ResourceVersion)
	case observe.StageWatchEnded:
		return t.watchEnded(ev)
	case observe.StageDeltaQueued:
		return say(msg{en: "delta %s %s queued (depth ≈%d)", zh: "增量 %s %s 入队（队列深度约 %d）"}, ev.Op, ev.Key, t.queued(1))
	case observe.StageStoreUpdated:
		return t.storeUpdated(ev)
	case observe.StageCacheReplaced:
		return t.cacheReplaced(ev)
	case observe.StageResync:
		return say(msg{en: "resync due for handler(s) %s: each of the %d cached objects is re-delivered as OnUpdate(obj, obj), no request to the server",
			zh: "事件处理函数 %s 到了 resync 时间：本地缓存里的 %d 个对象逐个以 OnUpdate(obj, obj) 再交付一次，不向 API Server 发任何请求"}, ev.Handler, ev.Items)
	case observe.StageHandlerCalled:
		return t.handlerCalled(ev)
	case observe.StageRelist:
		return t.relist(ev)
	case observe.StageBackoff:
		if said, ok := t.lessonSaid(ev.Err); ok {
			return say(msg{en: "backing off %v (the lessons' bound: at most %v before jitter), %s",
				zh: "退避等待 %v（课堂演示的上限：抖动之前最多 %v），%s"}, ev.Duration.Round(time.Millisecond), t.maxBackoff, said)
		}
		return say(msg{en: "backing off %v after: %s", zh: "退避等待 %v，原因：%s"}, ev.Duration.Round(time.Millisecond), t.failureSaid(ev.Err))
	case observe.StageSynced:
		if ev.Op == observe.OpSnapshot {
			return say(msg{en: "synced from the snapshot: %d objects in the cache at resourceVersion %s, nothing listed",
				zh: "同步完成（synced），来自快照：本地缓存中有 %d 个对象，资源版本 %s。没有发 LIST"}, ev.Items, ev.ResourceVersion)
		}
		return say(msg{en: "synced: %d objects in the cache at resourceVersion %s", zh: "同步完成（synced）：本地缓存中有 %d 个对象，资源版本 %s"}, ev.Items, ev.ResourceVersion)
	case observe.StageSkipped:
		return say(msg{en: "skipped %s: %s", zh: "跳过 %s：%s"}, ev.Key, errSaid(ev.Err))
	case observe.StageListFailed:
		if stopping(ev.Err) {
			return say(msg{en: "LIST page %d at resourceVersion %q abandoned: the demo is stopping",
				zh: "放弃 LIST 第 %d 页（资源版本 %q）：demo 正在退出"}, ev.Page, ev.ResourceVersion)
		}
		return say(msg{en: "LIST page %d at resourceVersion %q failed: %s", zh: "LIST 第 %d 页（资源版本 %q）失败：%s"},
			ev.Page, ev.ResourceVersion, t.failureSaid(ev.Err))
	case observe.StageWatchFailed:
		if stopping(ev.Err) {
			return say(msg{en: "WATCH from resourceVersion %q abandoned: the demo is stopping",
				zh: "放弃 WATCH（起始资源版本 %q）：demo 正在退出"}, ev.ResourceVersion)
		}
		if ev.Streaming {
			return say(msg{en: "the streaming list from resourceVersion %q could not be opened: %s",
				zh: "流式列表没能建立（起始资源版本 %q）：%s"}, ev.ResourceVersion, t.failureSaid(ev.Err))
		}
		return say(msg{en: "WATCH from resourceVersion %q could not be opened: %s", zh: "WATCH 没能建立（起始资源版本 %q）：%s"},
			ev.ResourceVersion, t.failureSaid(ev.Err))
	case observe.StageCoalesced:
		return say(msg{en: "handler %s's queue is full: the notification for %s merged into the one already waiting",
			zh: "事件处理函数 %s 的队列已满：%s 的通知并入已在等待的那一条"}, ev.Handler, ev.Key)
	case observe.StageTransformFailed:
		return say(msg{en: "Transform failed for %s; the object is kept as received: %s", zh: "%s 的 Transform 失败；对象按收到的原样保留：%s"},
			ev.Key, errSaid(ev.Err))
	}
	if s, ok := t.describeSnapshot(ev); ok {
		return s
	}
	if s, ok := t.describeAudit(ev); ok {
		return s
	}
	return say(msg{en: "%+v", zh: "%+v"}, ev)
}

// storeUpdated explains what the processing loop did with one delta.
func (t *tracer) storeUpdated(ev observe.Event) text {
	had := t.cachedBefore(ev)
	switch ev.Op {
	case observe.OpSnapshot:
		return say(msg{en: "store %s from the snapshot, as it was at resourceVersion %s: handlers hear an initial add",
			zh: "从快照写入本地缓存 %s（快照里的资源版本 %s）：事件处理函数收到一次初始 add"}, ev.Key, ev.ResourceVersion)
	case observe.OpReplace:
		if had {
			return say(msg{en: "store %s from the relist at resourceVersion %s: it was cached at another resourceVersion, so handlers hear an update",
				zh: "按这次全量 list 的结果更新本地缓存里的 %s（资源版本 %s）。缓存里原来的版本不同，所以事件处理函数收到 update"}, ev.Key, ev.ResourceVersion)
		}
		return say(msg{en: "store %s from the relist at resourceVersion %s: it was not cached, so handlers hear an add",
			zh: "按这次全量 list 的结果把 %s 加入本地缓存（资源版本 %s）。缓存里原来没有它，所以事件处理函数收到 add"}, ev.Key, ev.ResourceVersion)
	case observe.OpUnchanged:
		return say(msg{en: "store %s unchanged by the relist (same resourceVersion %s): not news, only handlers due a resync hear of it",
			zh: "%s 在重新 list 后没有变化（资源版本仍是 %s）：不算新消息。只有到了 resync 时间的事件处理函数，才会收到它"}, ev.Key, ev.ResourceVersion)
	case observe.OpTombstone:
		return say(msg{en: "store delete %s: a tombstone. The relist no longer has it: it was deleted while nobody watched (finalStateUnknown)",
			zh: "从本地缓存删除 %s：这是一个墓碑（tombstone）。重新 list 的结果里已经没有它，说明它是在没人 watch 时被删除的（finalStateUnknown）"}, ev.Key)
	case observe.OpSync:
		return say(msg{en: "store %s resync: the cached object, unchanged, goes to the handlers due a resync",
			zh: "%s 的 resync：哪些事件处理函数到了 resync 时间，就把本地缓存里的这个对象原样交给它们"}, ev.Key)
	}
	switch ev.Op {
	case observe.OpAdd:
		return say(msg{en: "store add %s (cache updated before any handler hears of it)",
			zh: "本地缓存新增 %s（先更新本地缓存，再通知事件处理函数）"}, ev.Key)
	case observe.OpUpdate:
		return say(msg{en: "store update %s (cache updated before any handler hears of it)",
			zh: "本地缓存更新 %s（先更新本地缓存，再通知事件处理函数）"}, ev.Key)
	case observe.OpDelete:
		return say(msg{en: "store delete %s (cache updated before any handler hears of it)",
			zh: "从本地缓存删除 %s（先更新本地缓存，再通知事件处理函数）"}, ev.Key)
	}
	return say(msg{en: "store %s %s (cache updated before any handler hears of it)",
		zh: "本地缓存：%s %s（先更新本地缓存，再通知事件处理函数）"}, ev.Op, ev.Key)
}

// cachedBefore reports whether ev's key was in the cache before ev, and
// keeps the tracer's set of cached keys in step. The trace event says a
// relisted object was stored anew (OpReplace), not whether handlers hear
// an add or an update of it; every store-updated passes here, so the set
// knows.
func (t *tracer) cachedBefore(ev observe.Event) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cached == nil {
		t.cached = map[string]bool{}
	}
	had := t.cached[ev.Key]
	switch ev.Op {
	case observe.OpDelete, observe.OpTombstone:
		delete(t.cached, ev.Key)
	default:
		t.cached[ev.Key] = true
	}
	return had
}

// cacheReplaced says what filled the cache in one step: a relist's list,
// or the snapshot loaded at start, which is no relist at all.
func (t *tracer) cacheReplaced(ev observe.Event) text {
	t.mu.Lock()
	fromSnapshot, first := t.fromSnapshot, t.firstList
	t.fromSnapshot, t.firstList = false, false
	t.mu.Unlock()
	switch {
	case fromSnapshot:
		return say(msg{en: "cache filled from the snapshot in one step: %d objects (no LIST was made)",
			zh: "本地缓存一次性装入快照：%d 个对象（没有发 LIST 请求）"}, ev.Items)
	case first:
		return say(msg{en: "cache filled by the first list in one step: %d objects (a reader sees none or all of them)",
			zh: "本地缓存一次性装入第一次全量 list 的结果：%d 个对象（读缓存的代码要么一个都看不到，要么全部看到）"}, ev.Items)
	}
	return say(msg{en: "cache replaced by the relist in one step: %d objects (readers saw the old list until now, never a mix)",
		zh: "本地缓存被这次 list 的结果一次性替换：%d 个对象（读缓存的代码此前看到的一直是旧列表，不会看到新旧混合）"}, ev.Items)
}

// handlerCalled says which handler call returned, and why an Update comes
// before the Delete of a pod deleted gracefully.
func (t *tracer) handlerCalled(ev observe.Event) text {
	took := ev.Duration.Round(time.Microsecond)
	switch {
	case ev.Op == observe.OpTombstone:
		return say(msg{en: "handler %q called: delete %s with finalStateUnknown=true (took %v). A tombstone: the delete was missed while the watch was down and found by the relist. " +
			"client-go hands a DeletedFinalStateUnknown here, which is why the article keys deletes with DeletionHandlingMetaNamespaceKeyFunc; here obj is still the handler's type and meta.Key(obj) is its key",
			zh: "事件处理函数 %q 被调用：delete %s，finalStateUnknown=true（耗时 %v）。这是墓碑（tombstone）：watch 断开期间错过了这次删除，重新 list 时才发现。" +
				"client-go 在这里传的是 DeletedFinalStateUnknown，所以文章用 DeletionHandlingMetaNamespaceKeyFunc 取删除对象的键；这里 obj 仍是事件处理函数的类型，meta.Key(obj) 就是它的键"},
			ev.Handler, ev.Key, took)
	case ev.Op == observe.OpSync:
		return say(msg{en: "handler %q called: update %s from a resync, old == new (took %v)",
			zh: "事件处理函数 %q 被调用：%s 的 update 来自 resync，old == new（耗时 %v）"}, ev.Handler, ev.Key, took)
	case ev.Op == observe.OpUpdate && t.graceful.has(ev.Key):
		return say(msg{en: "handler %q called: update %s (took %v). Graceful deletion: the server first sets deletionTimestamp " +
			"(a MODIFIED event, hence this Update:), and sends DELETED once the object is gone",
			zh: "事件处理函数 %q 被调用：update %s（耗时 %v）。这是优雅删除（graceful deletion）：API Server 先给对象写上 deletionTimestamp" +
				"（一次 MODIFIED 事件，所以先打印 Update:），对象真正删掉之后才发 DELETED"}, ev.Handler, ev.Key, took)
	}
	return say(msg{en: "handler %q called: %s %s (took %v)", zh: "事件处理函数 %q 被调用：%s %s（耗时 %v）"}, ev.Handler, ev.Op, ev.Key, took)
}

// relist says why the reflector lists (again).
func (t *tracer) relist(ev observe.Event) text {
	t.mu.Lock()
	t.fromSnapshot = false // this list, not the snapshot, fills the cache next
	t.firstList = ev.Cause == observe.CauseInitial
	t.mu.Unlock()
	if ev.Cause == observe.CauseSnapshotExpired {
		return say(msg{en: "relist (cause: %s): the snapshot's resourceVersion %s has left the server's history (410); " +
			"this list reconciles the cache: deletes become tombstones, changes updates, unchanged objects nothing",
			zh: "重新 list（原因：%s）：快照的资源版本 %s 已不在 API Server 的历史里（410 Gone）；" +
				"这次 list 用来校正本地缓存：已删除的对象变成墓碑，变化的变成 update，没变的不产生通知"}, ev.Cause, ev.ResourceVersion)
	}
	return say(msg{en: "relist (cause: %s) from resourceVersion %q", zh: "全量 list（原因：%s），资源版本 %q"}, ev.Cause, ev.ResourceVersion)
}

// requestSaid is the shape of a request the informer sent (the verb as
// the wire has it, then observe.Request's words: resourceVersion, page
// size, protobuf or JSON, gzip, metadata-only or whole, selectors) and the
// first of the informer's reasons, which says why it is this LIST or
// WATCH; the others are in the informer's own trace (observe.Event's
// String). The reason keeps the informer's words in Chinese too, as
// errSaid keeps an error's.
func requestSaid(r observe.Request) text {
	_, shape, _ := strings.Cut(r.String(), " ") // after observe's verb name
	verb := map[observe.Verb]string{observe.VerbList: "LIST", observe.VerbWatch: "WATCH",
		observe.VerbStreamingList: "WATCH sendInitialEvents=true"}[r.Verb]
	if len(r.Why) == 0 {
		return say(msg{en: "%s %s", zh: "%s %s"}, verb, shape)
	}
	return say(msg{en: "%s %s; why: %s", zh: "%s %s；原因（informer 原文）：%s"}, verb, shape, r.Why[0])
}

// wire says how the watch travels: the events read the same either way.
// The informer asks for protobuf for the built-in kinds and JSON for the
// rest (informer/wire.go); the request line under it says which it asked
// for.
func (t *tracer) wire() text {
	if t.websocket {
		return say(msg{en: " over a websocket (--websocket: one event per message)", zh: "，走 websocket（--websocket：每条消息一个事件）"})
	}
	return say(msg{en: " over chunked HTTP (one event per chunk: a protobuf frame for built-in kinds, a JSON line otherwise)",
		zh: "，走分块传输的 HTTP（chunked：每块一个事件，内置资源是 protobuf 帧，其他是一行 JSON）"})
}

// watchEnded says who ended a watch: the informer stopping (the event
// says so: the stream closed under the stop may look like a clean close),
// the server closing it cleanly, or a failure.
func (t *tracer) watchEnded(ev observe.Event) text {
	if ev.Stopping {
		return say(msg{en: "WATCH stopped after %d events: the informer is shutting down (Ctrl-C), no re-watch",
			zh: "WATCH 在 %d 个事件后停止：informer 正在退出（Ctrl-C），不再重新 watch"}, ev.Items)
	}
	if informer.IsAuditRepair(ev.Err) {
		return say(msg{en: "WATCH ended after %d events by the informer itself: the cache audit found the cache different, so it relists (a repair, not a failure: no backoff)",
			zh: "informer 自己在 %d 个事件后结束了 WATCH：缓存审计发现本地缓存和 API Server 不一致，所以重新 list（这是修复，不是失败：没有退避）"}, ev.Items)
	}
	if ev.Err == nil || errors.Is(ev.Err, io.EOF) {
		return say(msg{en: "WATCH closed cleanly by the server after %d events; re-watching from resourceVersion %s",
			zh: "API Server 在 %d 个事件后正常关闭了 WATCH。从资源版本 %s 重新 watch"}, ev.Items, ev.ResourceVersion)
	}
	return say(msg{en: "WATCH ended after %d events: %s", zh: "WATCH 在 %d 个事件后中断：%s"}, ev.Items, t.failureSaid(ev.Err))
}

// failureSaid is a failure as part of the lesson under way, or else the
// error's own words; in Chinese, what it was in Chinese and then the
// English original, which a search needs.
func (t *tracer) failureSaid(err error) text {
	if said, ok := t.lessonSaid(err); ok {
		return said
	}
	inChinese := say(msg{en: "%.0s", zh: "%s（原文："}, failureSaid(err, t.idle)) // nothing in English
	return say(msg{en: "%s%s", zh: "%s%s）"}, inChinese, oneLine(err))
}

// errSaid is an error in one line; the error's own words stay as the
// server or the library wrote them.
func errSaid(err error) text {
	if err == nil {
		return say(msg{en: "no error", zh: "没有错误"})
	}
	return say(msg{en: "%s", zh: "%s"}, oneLine(err))
}
