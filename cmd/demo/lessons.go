package main

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

// A lesson is a button of the live page that breaks something on purpose
// (fakeActions' faults), or the tombstone lesson. A class presses them one
// after another, so each must show its effect within seconds on the tenth
// press as on the first. With client-go's bounds it would not: the
// backoff doubles to 30 s (up to 60 s with its jitter) while presses keep
// failing the watch, and a stalled watch ends only at the 3-minute idle
// bound. So when the page has buttons the demo sets the bounds below, and
// says so on stderr, in the trace and on the page.
type lessonBounds struct {
	backoff  informer.BackoffOptions
	idle     time.Duration // informer.Options.Watch.IdleTimeout
	bookmark time.Duration // the embedded server's bookmark interval
	// audit is the cache audit's period (informer.AuditOptions, with
	// Repair): the "Drop one event" lesson shows a lost event found and
	// repaired within it. Off by default; a production agent audits every
	// few minutes, a class cannot wait that long.
	audit time.Duration
}

// classBookmarks is the embedded server's bookmark interval under the
// lessons, unless --bookmark-interval says otherwise: a watch that hears a
// bookmark this often is never idle for lessonIdleFactor of it, so the
// idle bound ends only a stalled watch.
const (
	classBookmarks   = 2 * time.Second
	lessonIdleFactor = 5 / 2.0
	// classAudits is the audit period under the lessons: a dropped event
	// is found at most this long after the press. The audit of a demo's
	// few objects is one small LIST.
	classAudits = 3 * time.Second
)

// classBounds are the lessons' bounds for a server that bookmarks every
// bookmark: the backoff doubles from 250 ms to 1 s (at most 1.2 s with
// its 20 % jitter), still visibly doubling, and forgets the failures
// after 5 quiet seconds; a watch silent for 2.5 bookmarks has stalled;
// the cache is audited every classAudits and repaired when it differs.
func classBounds(bookmark time.Duration) lessonBounds {
	return lessonBounds{
		backoff: informer.BackoffOptions{Initial: 250 * time.Millisecond, Max: time.Second, Jitter: 0.2,
			ResetAfter: 5 * time.Second},
		idle:     time.Duration(float64(bookmark) * lessonIdleFactor),
		bookmark: bookmark,
		audit:    classAudits,
	}
}

// said tells the reader what the bounds are, against client-go's.
func (b lessonBounds) said() text {
	return say(msg{en: "for the lessons the informer backs off %v doubling to %v (client-go: 800ms doubling to 30s) and ends a watch silent for %v (zerokube's default: 3m0s); the server bookmarks every %v; " +
		"the informer audits its cache against the server every %v and relists when they differ (Options.Audit, off by default)",
		zh: "为了课堂演示，informer 的退避从 %v 起倍增到 %v（client-go 是从 800ms 倍增到 30s），watch 静默 %v 即结束（zerokube 默认 3m0s）；API Server 每 %v 发一次 BOOKMARK；" +
			"informer 每 %v 把本地缓存和 API Server 核对一次，不一致就重新 list（Options.Audit，默认关闭）"},
		b.backoff.Initial, b.backoff.Max, b.idle, b.bookmark, b.audit)
}

// lessonWindow bounds how long after a press the failures are the
// lesson's: one that did not recover by then is not.
const lessonWindow = 30 * time.Second

// lessonTracker knows which lesson is under way, so that the failures it
// provokes are told as part of it (lessonSaid), not as a warning with a
// decoder's error. A lesson is under way from its press until the watch
// delivers again after the failure it caused (an event or a bookmark), or
// lessonWindow has passed. Its observe is the first of the informer's
// trace consumers, so the others see the state the event left.
type lessonTracker struct {
	now func() time.Time

	mu     sync.Mutex // guards the fields below
	label  msg        // the lesson's button label; zero: none under way
	at     time.Time  // when it was pressed
	failed bool       // a failure came since the press
}

func newLessonTracker(now func() time.Time) *lessonTracker { return &lessonTracker{now: now} }

// begin starts the lesson named label; a lesson under way ends.
func (l *lessonTracker) begin(label msg) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.label, l.at, l.failed = label, l.now(), false
}

// observe follows the informer's events: it is part of Options.Observe.Trace.
func (l *lessonTracker) observe(ev observe.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.label == msg{}:
	case failure(ev):
		l.failed = true
	case l.failed && (ev.Stage == observe.StageEvent || ev.Stage == observe.StageBookmark):
		l.label = msg{} // the watch delivers again: the lesson is over
	}
}

// during returns the lesson under way, if any.
func (l *lessonTracker) during() (msg, bool) {
	if l == nil {
		return msg{}, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.label != (msg{}) && l.now().Sub(l.at) > lessonWindow {
		l.label = msg{}
	}
	return l.label, l.label != msg{}
}

// failure reports the events that tell of a failed LIST or WATCH.
func failure(ev observe.Event) bool {
	switch ev.Stage {
	case observe.StageListFailed, observe.StageWatchFailed, observe.StageBackoff:
		return ev.Err != nil && !stopping(ev.Err)
	case observe.StageWatchEnded:
		return !ev.Stopping && ev.Err != nil && !errors.Is(ev.Err, io.EOF) && !informer.IsAuditRepair(ev.Err)
	case observe.StageAudited:
		return ev.Err != nil // the difference a lost event left: the drop-event lesson's failure
	}
	return false
}

// stopping reports the error of a request the demo's own stop cancelled.
func stopping(err error) bool { return errors.Is(err, context.Canceled) }

// lessonSaid tells a failure the lesson under way provoked as part of it,
// in the reader's language; ok is false when no lesson is under way.
func (t *tracer) lessonSaid(err error) (text, bool) {
	label, ok := t.lessons.during()
	if !ok {
		return text{}, false
	}
	return say(msg{en: "as the lesson “%s” meant: %s", zh: "正是“%s”这一课要演示的：%s"}, say(label), failureSaid(err, t.idle)), true
}

// failureSaid says what a failure of a LIST or WATCH was, in words of
// both languages, without the decoder's positions: what a reader of the
// lesson needs. idle is the watch's idle bound, for a stalled watch.
func failureSaid(err error, idle time.Duration) text {
	switch {
	case informer.IsAuditRepair(err):
		return say(msg{en: "the cache audit found a difference and asked for a relist", zh: "缓存审计发现了不一致，要求重新 list"})
	case watchstream.ProblemOf(err) == watchstream.Stalled:
		return say(msg{en: "the watch delivered nothing for %v (its idle bound): the stream had stalled",
			zh: "watch 已经 %v 没有送来任何东西（空闲上限）：事件流卡住了"}, idle)
	case watchstream.ProblemOf(err) == watchstream.Truncated:
		return say(msg{en: "the stream was cut in the middle of an event", zh: "事件流在一个事件的中间被切断"})
	case meta.IsGone(err) || meta.Code(err) == 410:
		return say(msg{en: "410 Gone: the server's history no longer reaches the watch's resourceVersion",
			zh: "410 Gone：API Server 的历史已经不包含 watch 的资源版本"})
	case meta.Code(err) == 429:
		if d, ok := meta.RetryAfter(err); ok {
			return say(msg{en: "429 Too Many Requests: the server asked to retry after %v", zh: "429 Too Many Requests：API Server 要求 %v 后再试"}, d)
		}
		return say(msg{en: "429 Too Many Requests", zh: "429 Too Many Requests（请求太多）"})
	case meta.Code(err) >= 500:
		return say(msg{en: "the server answered %d", zh: "API Server 返回了 %d"}, meta.Code(err))
	}
	return say(msg{en: "the connection ended (%s)", zh: "连接断开了（%s）"}, oneLine(err))
}
