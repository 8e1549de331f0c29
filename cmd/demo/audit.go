package main

import (
	"errors"
	"strings"
	"time"

	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
)

// describeAudit says what a stage of the cache audit (informer
// Options.Audit, on under the lessons: lessonBounds.audit) did, in the
// words of docs/internals.md's "The cache audit finds what the watch
// lost".
func (t *tracer) describeAudit(ev observe.Event) (text, bool) {
	switch ev.Stage {
	case observe.StageAudited:
		took := ev.Duration.Round(time.Millisecond)
		var d *informer.AuditDifference
		if errors.As(ev.Err, &d) {
			return say(msg{en: "cache audit at resourceVersion %s: the cache differs from the server's exact list (%s: %s, took %v): a watch event was lost on the way; relisting to repair it (AuditOptions.Repair)",
				zh: "缓存审计（资源版本 %s）：本地缓存和 API Server 的精确列表不一致（%s：%s，耗时 %v）：有 watch 事件在路上丢了；重新 list 来修复（AuditOptions.Repair）"},
				ev.ResourceVersion, differenceSaid(d), strings.Join(d.Keys, ", "), took), true
		}
		return say(msg{en: "cache audit at resourceVersion %s: the server's exact list has the same %d objects as the cache (took %v)",
			zh: "缓存审计（资源版本 %s）：API Server 恰好在这个资源版本上的列表和本地缓存一致，%d 个对象（耗时 %v）"},
			ev.ResourceVersion, ev.Items, took), true
	case observe.StageAuditDifference:
		switch ev.Op {
		case observe.OpMissing:
			return say(msg{en: "audit: %s is on the server (resourceVersion %s) and not in the cache: its ADDED was lost",
				zh: "审计：%s 在 API Server 上（资源版本 %s），本地缓存里却没有：它的 ADDED 事件丢了"}, ev.Key, ev.ResourceVersion), true
		case observe.OpExtra:
			return say(msg{en: "audit: %s is in the cache (resourceVersion %s) and no longer on the server: its DELETED was lost",
				zh: "审计：%s 在本地缓存里（资源版本 %s），API Server 上已经没有了：它的 DELETED 事件丢了"}, ev.Key, ev.ResourceVersion), true
		}
		return say(msg{en: "audit: %s is at resourceVersion %s on the server, the cache holds another version: a MODIFIED was lost",
			zh: "审计：%s 在 API Server 上的资源版本是 %s，本地缓存里是另一个版本：一个 MODIFIED 事件丢了"}, ev.Key, ev.ResourceVersion), true
	case observe.StageAuditFailed:
		if meta.IsGone(ev.Err) {
			return say(msg{en: "no cache audit this time: the server no longer serves an exact list at resourceVersion %s (410); the next one tries at a newer resourceVersion, and nothing is relisted for it",
				zh: "这一次没有做缓存审计：API Server 已经不能给出资源版本 %s 上的精确列表（410）；下一次在更新的资源版本上再做，不会因此重新 list"}, ev.ResourceVersion), true
		}
		return say(msg{en: "the cache audit at resourceVersion %s could not compare: %s; the next one tries again",
			zh: "缓存审计（资源版本 %s）没能比较：%s；下一次再试"}, ev.ResourceVersion, t.failureSaid(ev.Err)), true
	}
	return text{}, false
}

// differenceSaid counts what an audit found, in both languages.
func differenceSaid(d *informer.AuditDifference) text {
	return say(msg{en: "%d missing, %d extra, %d stale", zh: "缺 %d 个，多 %d 个，过时 %d 个"}, d.Missing, d.Extra, d.Stale)
}

// auditView is the cache box's line on the audit: how many audits ran
// and what the last one found, in both languages.
type auditView struct {
	audits int
	last   text
}

// applyAudit folds an audit stage into the cache box. d.mu must be held.
func (d *dashboard) applyAuditLocked(ev observe.Event) {
	var diff *informer.AuditDifference
	switch {
	case ev.Stage == observe.StageAudited && errors.As(ev.Err, &diff):
		d.audit.audits++
		d.audit.last = say(msg{en: "%s, relisting", zh: "%s，重新 list"}, differenceSaid(diff))
	case ev.Stage == observe.StageAudited:
		d.audit.audits++
		d.audit.last = say(msg{en: "in step", zh: "一致"})
	case ev.Stage == observe.StageAuditFailed:
		d.audit.last = say(msg{en: "could not compare", zh: "没能比较"})
	}
}

// said is the cache box's audit line in language l; "–" before the first.
func (a auditView) said(l lang) string {
	if a.audits == 0 && a.last.m == (msg{}) {
		return "–"
	}
	return say(msg{en: "%d · last: %s", zh: "%d 次 · 最近一次：%s"}, a.audits, a.last).in(l)
}
