package main

import (
	"context"
	"net/http"
	"time"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/meta"
)

// action is one button of the live page. run does it and says what it
// did in a sentence the page shows next to the buttons.
type action struct {
	name        string
	label, help msg
	fault       bool // provokes a failure path (drawn in red), not a write
	run         func(ctx context.Context) (text, error)
}

// view is the button as the page draws it, in language l.
func (a action) view(l lang) actionView {
	return actionView{Name: a.name, Label: l.f(a.label), Help: l.f(a.help), Fault: a.fault}
}

// faultServer is what the buttons need of the embedded fake server: its
// fault injection, the same Go API the reliability tests use.
type faultServer interface {
	CutWatches() int
	DropWatches() int
	StallWatches() int
	Compact(rv int64)
	Restart()
	FailNext(f fakeapiserver.Failure)
	ResourceVersion() int64
	DropNextWatchEvent() int
}

// fakeActions are the buttons against the embedded server. Each one
// provokes a path of the reflector's state machine that docs/internals.md
// describes; the help text names it. The faults are lessons: a press
// begins one in lessons, so that the failures it provokes are told as
// part of it. idle is the informer's watch idle bound.
func fakeActions(srv faultServer, ch *churner, lessons *lessonTracker, idle time.Duration) []action {
	faults := faultActions(srv, ch, idle)
	for i := range faults {
		a := &faults[i]
		a.fault = true
		run, label := a.run, a.label
		a.run = func(ctx context.Context) (text, error) {
			lessons.begin(label)
			return run(ctx)
		}
	}
	return append(append(writeActions(ch), churnActions(ch)...), faults...)
}

// writeActions write to the server as kubectl would.
func writeActions(ch *churner) []action {
	return []action{
		{name: "create", label: msg{en: "Create a pod", zh: "创建 Pod"}, help: msg{en: "a write the watch delivers as ADDED", zh: "一次写入，watch 以 ADDED 事件送达"},
			run: func(context.Context) (text, error) {
				ch.mu.Lock()
				defer ch.mu.Unlock()
				name, err := ch.create()
				return say(msgCreated, name), err
			}},
		{name: "label", label: msg{en: "Label a pod", zh: "给 Pod 打标签"}, help: msg{en: "a write the watch delivers as MODIFIED", zh: "一次写入，watch 以 MODIFIED 事件送达"},
			run: func(context.Context) (text, error) {
				name, err := ch.pick(ch.relabel)
				return say(msgRelabelled, name), err
			}},
		{name: "delete", label: msg{en: "Delete a pod", zh: "删除 Pod"},
			help: msg{en: "a graceful deletion: MODIFIED (deletionTimestamp set), then DELETED", zh: "一次优雅删除：先是 MODIFIED（写上 deletionTimestamp），然后是 DELETED"},
			run: func(context.Context) (text, error) {
				name, err := ch.pick(ch.delete)
				return say(msgDeleted, name), err
			}},
	}
}

// churnActions let a class follow the churn at its own pace: pause it,
// step it one change at a time, or slow it down.
func churnActions(ch *churner) []action {
	return []action{
		{name: "pause-churn", label: msg{en: "Pause churn", zh: "暂停自动变更"}, help: msg{en: "stop the background writes", zh: "停止后台的自动写入"},
			run: func(context.Context) (text, error) {
				ch.paused.Store(true)
				return say(msg{en: "churn paused", zh: "自动变更已暂停"}), nil
			}},
		{name: "resume-churn", label: msg{en: "Resume churn", zh: "继续自动变更"}, help: msg{en: "restart the background writes", zh: "恢复后台的自动写入"},
			run: func(context.Context) (text, error) {
				ch.paused.Store(false)
				return say(msg{en: "churn resumed, one change every %v", zh: "自动变更已恢复，每 %v 一次"}, ch.interval()), nil
			}},
		{name: "step", label: msg{en: "Step: one change", zh: "单步：变更一次"},
			help: msg{en: "pause the churn and make one change now: follow it box by box, then step again",
				zh: "暂停自动变更，立即做一次变更：逐个方框跟着它走一遍，再点下一步"},
			run: func(context.Context) (text, error) {
				ch.paused.Store(true)
				did, err := ch.change()
				return say(msg{en: "churn paused; one change: %s", zh: "自动变更已暂停；这一步：%s"}, did), err
			}},
		{name: "churn-slower", label: msg{en: "Slower", zh: "慢一点"}, help: msg{en: "double the time between two churn writes", zh: "把两次自动写入的间隔加倍"},
			run: func(context.Context) (text, error) {
				return say(msgChurnEvery, ch.setInterval(2*ch.interval())), nil
			}},
		{name: "churn-faster", label: msg{en: "Faster", zh: "快一点"}, help: msg{en: "halve the time between two churn writes", zh: "把两次自动写入的间隔减半"},
			run: func(context.Context) (text, error) {
				return say(msgChurnEvery, ch.setInterval(ch.interval()/2)), nil
			}},
	}
}

var msgChurnEvery = msg{en: "the churn now writes every %v", zh: "现在每 %v 自动写入一次"}

// noWatch is what a button that acts on the open watches says when there
// was none: the reflector was between two (backing off, listing).
var noWatch = msg{en: "no watch was open (the reflector is between two: see its box), so nothing was %s",
	zh: "当时没有打开的 watch（Reflector 正处在两次 watch 之间：看它的方框），所以没有%s任何 watch"}

// faultActions provoke the reflector's failure paths.
func faultActions(srv faultServer, ch *churner, idle time.Duration) []action {
	return []action{
		{name: "cut-watch", label: msg{en: "Cut the watch", zh: "切断 watch"},
			help: msg{en: "the stream breaks mid-event: the reflector re-watches from its last resourceVersion, nothing is relisted",
				zh: "事件流在半个事件处断开：Reflector 从最后的资源版本重新 watch，不重新 list"},
			run: func(context.Context) (text, error) {
				if n := srv.CutWatches(); n > 0 {
					return say(msg{en: "armed %d watch(es) to break in their next frame (the next event or bookmark)",
						zh: "已让 %d 个 watch 在下一帧（下一个事件或 BOOKMARK）断开"}, n), nil
				}
				return say(noWatch, say(msg{en: "cut", zh: "切断"})), nil
			}},
		{name: "drop-watches", label: msg{en: "Drop all watches", zh: "关闭所有 watch"},
			help: msg{en: "the server ends every watch cleanly, as on shutdown: the reflector re-watches",
				zh: "API Server 像关机时那样正常结束所有 watch：Reflector 重新 watch"},
			run: func(context.Context) (text, error) {
				if n := srv.DropWatches(); n > 0 {
					return say(msg{en: "ended %d watch(es)", zh: "结束了 %d 个 watch"}, n), nil
				}
				return say(noWatch, say(msg{en: "ended", zh: "结束"})), nil
			}},
		{name: "compact", label: msg{en: "Compact history", zh: "压缩历史"},
			help: msg{en: "the server forgets old events: a watch or continue token from before now gets 410 Gone",
				zh: "API Server 丢掉旧事件：此前的资源版本或 continue 令牌再来 watch/list 会得到 410 Gone"},
			run: func(context.Context) (text, error) {
				srv.Compact(0)
				return say(msg{en: "history compacted up to resourceVersion %d", zh: "历史已压缩到资源版本 %d"}, srv.ResourceVersion()), nil
			}},
		{name: "compact-cut", label: msg{en: "Compact + cut watch (410)", zh: "压缩 + 切断 watch（410）"},
			help: msg{en: "a write the watch misses, then compaction past it, then a broken stream: the re-watch gets 410 Gone, the reflector relists and Replace reconciles",
				zh: "先做一次 watch 看不到的写入，再把历史压缩过去，然后断开连接：重新 watch 得到 410 Gone，Reflector 重新 list，由 Replace 校正本地缓存"},
			run: func(context.Context) (text, error) { return provokeGone(srv, ch) }},
		{name: "missed-delete", label: tombstoneLesson,
			help: msg{en: "a delete the watch misses, then compaction past it and a broken stream: the relist lacks the object, so the handler gets Delete with finalStateUnknown=true (the article's step 4)",
				zh: "先做一次 watch 看不到的删除，再把历史压缩过去，然后断开连接：重新 list 的结果里没有这个对象，事件处理函数收到 finalStateUnknown=true 的 Delete（文章的第 4 步）"},
			run: func(context.Context) (text, error) { return missedDelete(srv, ch) }},
		{name: "fail-lists-503", label: msg{en: "Next lists: 503", zh: "接下来的 list：503"},
			help: msg{en: "the next 3 LISTs answer 503, then a 410 forces a relist: watch the backoff",
				zh: "接下来 3 次 LIST 返回 503，再用一次 410 逼出重新 list：观察退避（backoff）"},
			run: func(context.Context) (text, error) {
				srv.FailNext(fakeapiserver.Failure{Count: 3, Code: 503, Verb: "list", Match: notAudit})
				gone, err := provokeGone(srv, ch)
				return say(msg{en: "the next 3 LISTs answer 503; %s", zh: "接下来 3 次 LIST 返回 503；%s"}, gone), err
			}},
		{name: "fail-lists-429", label: msg{en: "Next lists: 429", zh: "接下来的 list：429"},
			help: msg{en: "the next 2 LISTs answer 429 with Retry-After 2s, then a 410 forces a relist",
				zh: "接下来 2 次 LIST 返回 429（Retry-After 2 秒），再用一次 410 逼出重新 list"},
			run: func(context.Context) (text, error) {
				srv.FailNext(fakeapiserver.Failure{Count: 2, Code: 429, Verb: "list", RetryAfter: 2 * time.Second, Match: notAudit})
				gone, err := provokeGone(srv, ch)
				return say(msg{en: "the next 2 LISTs answer 429 (Retry-After: 2); %s", zh: "接下来 2 次 LIST 返回 429（Retry-After: 2）；%s"}, gone), err
			}},
		{name: "stall", label: msg{en: "Stall the watch", zh: "让 watch 卡住"},
			help: msg{en: "the stream goes silent but stays open (a half-open connection): only the reflector's idle timeout ends it",
				zh: "事件流不再有数据但连接不断（半开连接）：只有 Reflector 的空闲超时能结束它"},
			run: func(context.Context) (text, error) {
				if n := srv.StallWatches(); n > 0 {
					return say(msg{en: "stalled %d watch(es): the informer hears nothing until its idle bound (%v) ends the watch; the re-watch then brings what it missed",
						zh: "卡住了 %d 个 watch：informer 什么也收不到，直到空闲上限（%v）结束这个 watch；重新 watch 后会补上错过的变化"}, n, idle), nil
				}
				return say(noWatch, say(msg{en: "stalled", zh: "卡住"})), nil
			}},
		{name: "drop-event", label: dropEventLesson,
			help: msg{en: "the server silently skips one watch event: no error, no 410, the cache just differs; the cache audit (every few seconds here) finds it and relists",
				zh: "API Server 悄悄漏发一个 watch 事件：没有错误，没有 410，本地缓存就这样和 API Server 不一样了；缓存审计（这里每隔几秒一次）发现它并重新 list"},
			run: func(context.Context) (text, error) { return dropEvent(srv, ch) }},
		{name: "restart", label: msg{en: "Restart the server", zh: "重启 API Server"},
			help: msg{en: "every connection drops, the objects stay: the reflector re-watches from its resourceVersion",
				zh: "所有连接断开，对象都还在：Reflector 从自己的资源版本重新 watch"},
			run: func(context.Context) (text, error) {
				srv.Restart()
				return say(msg{en: "dropped every connection; objects and history kept", zh: "断开了所有连接；对象和历史都保留"}), nil
			}},
	}
}

// unseen makes change while every watch is stalled, so no watch delivers
// it, then compacts the history past it and cuts every connection: the
// re-watch from the resourceVersion a watch had gets 410 Gone. It returns
// what change named, the resourceVersion compacted to, and how it went
// unseen: by the stalled watch, or with no watch open (a press while the
// reflector backs off).
func unseen(srv faultServer, change func() (string, error)) (string, int64, text, error) {
	how := say(msg{en: "unseen by the stalled watch", zh: "卡住的 watch 看不到它"})
	if srv.StallWatches() == 0 {
		how = say(msg{en: "while no watch was open", zh: "当时没有打开的 watch"})
	}
	name, err := change()
	if err != nil {
		srv.Restart() // do not leave the watch stalled
		return "", 0, text{}, err
	}
	srv.Compact(0)
	rv := srv.ResourceVersion()
	srv.Restart()
	return name, rv, how, nil
}

// provokeGone makes the informer's next watch start from a compacted
// resourceVersion: the open watch is stalled so it misses one write, the
// history is compacted past that write, and every connection is dropped.
// The reflector re-watches from the resourceVersion it had, the server
// answers 410 Gone, and the reflector relists.
func provokeGone(srv faultServer, ch *churner) (text, error) {
	name, rv, how, err := unseen(srv, func() (string, error) {
		ch.mu.Lock()
		defer ch.mu.Unlock()
		return ch.create()
	})
	if err != nil {
		return text{}, err
	}
	return say(msg{en: "created %s %s, compacted history to %d and cut every connection: the re-watch gets 410 Gone",
		zh: "创建了 %s（%s），把历史压缩到 %d，并断开所有连接：重新 watch 会得到 410 Gone"}, name, how, rv), nil
}

// notAudit matches the reflector's LISTs, not the cache audit's: the
// audit lists at an exact resourceVersion every few seconds under the
// lessons, and would otherwise take some of the failures a lesson armed
// for the reflector to back off from.
func notAudit(r *http.Request) bool {
	return r.URL.Query().Get("resourceVersionMatch") != string(meta.MatchExact)
}

// dropEventLesson is the lesson's name, the label of its button.
var dropEventLesson = msg{en: "Drop one event", zh: "漏发一个事件"}

// dropEvent makes the watch lose one event: every open watch is armed to
// skip the next event, and the lesson's own write follows at once (the
// churn waits for it), a relabel of an object no other write touches. The
// cache keeps the old version, and nothing on the watch says so: no
// error, no 410, the next events move the resourceVersion on. The cache
// audit (lessonBounds.audit) lists at the cache's resourceVersion, finds
// the object stale and relists.
func dropEvent(srv faultServer, ch *churner) (text, error) {
	armed := 0
	name, err := ch.relabelUnseen(func() { armed = srv.DropNextWatchEvent() })
	if err != nil {
		return text{}, err
	}
	if armed == 0 {
		return say(msg{en: "no watch was open (the reflector is between two: see its box), so no event was dropped; relabelled %s, which the next watch brings",
			zh: "当时没有打开的 watch（Reflector 正处在两次 watch 之间：看它的方框），所以没有漏发事件；给 %s 换了标签，下一个 watch 会带来它"}, name), nil
	}
	return say(msg{en: "relabelled %s and the server dropped that MODIFIED event on %d watch(es): the cache keeps the old version until the audit finds it",
		zh: "给 %s 换了标签，API Server 在 %d 个 watch 上漏发了这个 MODIFIED 事件：本地缓存保留旧版本，直到审计发现它"}, name, armed), nil
}
