package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The default demo shows the article's step 4 within its first minute: a
// delete the watch misses becomes a tombstone, and the trace, stderr and
// the live page (whose log is the trace's words, in its language) say so
// and name the key function.
func TestTheDefaultDemoShowsATombstone(t *testing.T) {
	words := map[string]struct{ handler, stderr, page string }{
		"en": {
			handler: `handler-called\s+handler "print" called: delete (default/example-\S+) with finalStateUnknown=true .*DeletionHandlingMetaNamespaceKeyFunc`,
			stderr:  `demo: the Delete of (default/example-\S+) above is a tombstone: finalStateUnknown=true.*DeletionHandlingMetaNamespaceKeyFunc`,
			page:    "with finalStateUnknown=true",
		},
		"zh": {
			handler: `handler-called\s+事件处理函数 "print" 被调用：delete (default/example-\S+)，finalStateUnknown=true.*DeletionHandlingMetaNamespaceKeyFunc`,
			stderr:  `demo: 上面 (default/example-\S+) 的 Delete 是一个墓碑：finalStateUnknown=true.*DeletionHandlingMetaNamespaceKeyFunc`,
			page:    "finalStateUnknown=true",
		},
	}
	for _, l := range []string{"en", "zh"} {
		t.Run(l, func(t *testing.T) {
			w := words[l]
			// The churn's own writes wait an hour: the one delete is the lesson's.
			d := startDemo(t, "--lang="+l, "--tombstone-after=50ms", "--churn-interval=1h", "--trace", "--color=never", "--ui", "127.0.0.1:0")
			s := openStreamLang(t, d.uiURL(t), l)
			key := waitFor(t, d.stdout, regexp.MustCompile(w.handler))[1]
			require.Equal(t, key, waitFor(t, d.stderr, regexp.MustCompile(w.stderr))[1])
			require.Contains(t, d.stdout.String(), "Delete:  "+key+"\n", "the article's line, keyed as ever")
			require.Regexp(t, `relist\s+\S.*watch-gone`, d.stdout.String(), "found by the relist after 410")
			s.await(t, "the tombstone", func(st state) bool {
				if st.Queue.Tombstones != 1 {
					return false
				}
				for _, line := range st.Log {
					if line.Stage == "handler-called" && strings.Contains(line.Text, w.page) && strings.Contains(line.Text, key) {
						return true
					}
				}
				return false
			})
		})
	}
}

// Every trace line a lesson produces is said in the reader's language:
// one run per language drives the situations a class meets (the first
// list, events, bookmarks, the churn's writes, a missed delete with its
// 410, relist and tombstone, the stop) and reads every line. A Chinese
// line carries Chinese words; an English one none; neither a format
// error.
func TestEveryTraceLineOfALessonIsInTheReadersLanguage(t *testing.T) {
	t.Parallel() // waits on timers, not a CPU: beside the lesson presses
	cjk := regexp.MustCompile(`\p{Han}`)
	line := regexp.MustCompile(`^trace \S+ (\S+)\s+(.*)$`)
	for _, l := range []string{"en", "zh"} {
		t.Run(l, func(t *testing.T) {
			d := startDemo(t, "--lang="+l, "--trace", "--color=never", "--tombstone-after=300ms",
				"--churn-interval=100ms", "--bookmark-interval=50ms", "--resync=200ms")
			waitFor(t, d.stdout, regexp.MustCompile(`handler-called .*finalStateUnknown=true`))
			waitFor(t, d.stdout, regexp.MustCompile(`(?s)finalStateUnknown=true.*\bbookmark\b.*\bresync\b.*handler-called`))
			require.Equal(t, 0, d.stop(t))
			stages := map[string]bool{}
			for _, s := range d.stdout.lines() {
				m := line.FindStringSubmatch(s)
				if m == nil {
					require.Regexp(t, articleRE, s)
					continue
				}
				stage, said := m[1], m[2]
				stages[stage] = true
				require.NotContains(t, said, "%!", s)
				require.NotContains(t, said, "{Stage:", "the fallback wording: %s", s)
				require.Equal(t, l == "zh", cjk.MatchString(said), "not in %s: %s", l, s)
			}
			for _, want := range []string{"relist", "list-page", "replace", "cache-replaced", "store-updated", "synced",
				"watch-opened", "event", "bookmark", "delta-queued", "handler-called", "watch-ended", "resync"} {
				require.True(t, stages[want], "no %s line in:\n%s", want, d.stdout.String())
			}
		})
	}
}
