package main

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The "Drop one event" lesson: the server loses the MODIFIED of the
// lesson's relabel, the cache keeps the old version with nothing on the
// watch to say so, and the cache audit the lessons turn on finds the
// object stale and relists; the handler hears the update the watch lost,
// the next audit finds the cache in step, and the page's cache box says
// so. The churn writes every 100 ms meanwhile: it never touches the
// lesson's object, so nothing but the audit repairs it. No WARN reaches
// stderr and no line calls the repair a 410: it is the lesson's.
func TestADroppedEventIsFoundAndRepairedByTheAudit(t *testing.T) {
	t.Parallel() // waits on timers, not a CPU: beside the lesson presses
	for _, tc := range []struct{ lang, bounds, reply, diff, ended, relist, handler, inStep, page string }{
		{"en", `lessons\s+.*audits its cache against the server every 3s`,
			"relabelled unseen-change and the server dropped that MODIFIED event on 1 watch(es)",
			`audit-difference\s+audit: default/unseen-change is at resourceVersion \d+ on the server, the cache holds another version: a MODIFIED was lost`,
			`watch-ended\s+WATCH ended after \d+ events by the informer itself: the cache audit found the cache different`,
			`relist\s+relist \(cause: audit\)`,
			`handler-called\s+handler "print" called: update default/unseen-change`,
			`audited\s+cache audit at resourceVersion \d+: the server's exact list has the same`,
			"last: in step"},
		{"zh", `lessons\s+.*informer 每 3s 把本地缓存和 API Server 核对一次`,
			"给 unseen-change 换了标签，API Server 在 1 个 watch 上漏发了这个 MODIFIED 事件",
			`audit-difference\s+审计：default/unseen-change 在 API Server 上的资源版本是 \d+，本地缓存里是另一个版本：一个 MODIFIED 事件丢了`,
			`watch-ended\s+informer 自己在 \d+ 个事件后结束了 WATCH：缓存审计发现本地缓存和 API Server 不一致`,
			`relist\s+全量 list（原因：audit）`,
			`handler-called\s+事件处理函数 "print" 被调用：update default/unseen-change`,
			`audited\s+缓存审计（资源版本 \d+）：API Server 恰好在这个资源版本上的列表和本地缓存一致`,
			"最近一次：一致"},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			t.Parallel() // each waits out audit periods: on timers, not a CPU
			d, base := startClass(t, tc.lang, tc.bounds)
			reply := actLang(t, base, "drop-event", tc.lang)
			require.Contains(t, reply.Result, tc.reply)
			// Each step after the press, in order: the output from the
			// press on is searched for the next after the last.
			from := len(d.stdout.String())
			for _, re := range []string{tc.diff, tc.ended, tc.relist, tc.handler, tc.inStep} {
				from = waitForAfter(t, d.stdout, from, regexp.MustCompile(re))
			}
			s := openStreamLang(t, base, tc.lang)
			s.await(t, "the cache box's audit in step", func(st state) bool {
				return strings.Contains(st.Cache.Audit, tc.page) && !strings.Contains(st.Reflector.LastError, "410")
			})
			require.Equal(t, 0, d.stop(t))
			require.NotContains(t, d.stderr.String(), "level=WARN")
			require.NotRegexp(t, `watch-ended\s+.*410`, d.stdout.String())
		})
	}
}

// waitForAfter is waitFor on what buf holds from offset from on; it
// returns the offset where the match ends.
func waitForAfter(t testing.TB, buf *syncBuffer, from int, re *regexp.Regexp) int {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for time.Now().Before(deadline) {
		if loc := re.FindStringIndex(buf.String()[from:]); loc != nil {
			return from + loc[1]
		}
		<-tick.C
	}
	t.Fatalf("no match for %q after byte %d within %v; output from there:\n%s", re, from, waitTimeout, buf.String()[from:])
	return 0
}
