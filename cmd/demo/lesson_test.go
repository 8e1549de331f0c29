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
