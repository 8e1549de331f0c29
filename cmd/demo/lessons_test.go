package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/informer/observe"
)

// A lesson's expected failure is told as part of the lesson, in the
// reader's language: the trace and the page say which lesson meant it and
// what broke, with no decoder's positions, and no WARN line reaches
// stderr without -v. Regression: every lesson printed "WATCH ended after
// 10 events: watchstream: event 11 at byte 9344: truncated: kubeproto:
// decode watch frame 10 …" and a level=WARN line, in both languages.
func TestALessonsFailureIsToldAsPartOfTheLesson(t *testing.T) {
	for _, tc := range []struct{ lang, ended, backoff, bounds, page string }{
		{"en", `watch-ended\s+WATCH ended after \d+ events: as the lesson “Cut the watch” meant: the stream was cut in the middle of an event`,
			`backoff\s+backing off \S+ \(the lessons' bound: at most 1s before jitter\), as the lesson “Cut the watch” meant`,
			`lessons\s+for the lessons the informer backs off 250ms doubling to 1s .* ends a watch silent for 5s`,
			"as the lesson “Cut the watch” meant: the stream was cut in the middle of an event"},
		{"zh", `watch-ended\s+WATCH 在 \d+ 个事件后中断：正是“切断 watch”这一课要演示的：事件流在一个事件的中间被切断`,
			`backoff\s+退避等待 \S+（课堂演示的上限：抖动之前最多 1s），正是“切断 watch”这一课要演示的`,
			`lessons\s+为了课堂演示，informer 的退避从 250ms 起倍增到 1s.*watch 静默 5s 即结束`,
			"正是“切断 watch”这一课要演示的：事件流在一个事件的中间被切断"},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			d, base := startClass(t, tc.lang, tc.bounds)
			act(t, base, "cut-watch")
			waitFor(t, d.stdout, regexp.MustCompile(tc.ended))
			waitFor(t, d.stdout, regexp.MustCompile(tc.backoff))
			s := openStreamLang(t, base, tc.lang)
			s.await(t, "the lesson's words as the reflector's last error", func(st state) bool {
				return st.Reflector.LastError == tc.page
			})
			require.Equal(t, 0, d.stop(t))
			for _, out := range []string{d.stdout.String(), d.stderr.String()} {
				require.NotContains(t, out, "watchstream:")
				require.NotContains(t, out, "kubeproto:")
				require.NotContains(t, out, "level=WARN")
			}
		})
	}
}

// startClass starts a demo with the page's buttons and a trace in
// language l, its churn writing every 100 ms, and waits for the lessons'
// bounds (the trace line that matches bounds) and a watch: the buttons
// then have one to act on. It returns the demo and the page's URL.
func startClass(t *testing.T, l, bounds string) (*running, string) {
	t.Helper()
	d := startDemo(t, "--lang="+l, "--ui", "127.0.0.1:0", "--trace", "--color=never", "--tombstone-after=0", "--churn-interval=100ms")
	base := d.uiURL(t)
	waitFor(t, d.stdout, regexp.MustCompile(bounds))
	waitFor(t, d.stdout, regexp.MustCompile(`watch-opened`))
	return d, base
}

// stubFaults is a faultServer whose watches are all closed: the reflector
// is between two watches (backing off, listing) when the button is pressed.
type stubFaults struct{}

func (stubFaults) CutWatches() int                { return 0 }
func (stubFaults) DropWatches() int               { return 0 }
func (stubFaults) StallWatches() int              { return 0 }
func (stubFaults) Compact(int64)                  {}
func (stubFaults) Restart()                       {}
func (stubFaults) FailNext(fakeapiserver.Failure) {}
func (stubFaults) ResourceVersion() int64         { return 1 }
func (stubFaults) DropNextWatchEvent() int        { return 0 }

// A button pressed while no watch is open says so, instead of "stalled 0
// watch(es); writes now reach the informer only after the idle timeout",
// which was not what happened.
func TestAButtonPressedBetweenWatchesSaysNoWatchWasOpen(t *testing.T) {
	for _, a := range faultActions(stubFaults{}, nil, 5*time.Second) {
		switch a.name {
		case "cut-watch", "drop-watches", "stall":
			said, err := a.run(context.Background())
			require.NoError(t, err)
			require.Contains(t, said.in(langEN), "no watch was open", a.name)
			require.Contains(t, said.in(langZH), "当时没有打开的 watch", a.name)
		}
	}
}

// Ctrl-C at any moment is a stop: the demo says "stopping" and exits 0,
// whatever it cut short, and no line calls the interrupt a failure.
// Regression: an interrupt during the first LIST printed "list-failed …
// context canceled", and one during discovery an error and exit code 1.
func TestCtrlCAtAnyMomentSaysStopping(t *testing.T) {
	for _, moment := range []string{"at-once", "list"} {
		t.Run(moment, func(t *testing.T) {
			held := make(chan struct{}, 1)
			srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: slog.New(slog.DiscardHandler),
				Intercept: func(r *http.Request, verb string) error {
					if verb == "list" && moment == "list" {
						held <- struct{}{}
						<-r.Context().Done() // a LIST that never answers
					}
					return nil
				}})
			d := startDemo(t, "--kubeconfig", kubeconfigFor(t, srv.URL(), ""), "--trace", "--color=never")
			if moment == "list" {
				<-held
				waitFor(t, d.stdout, regexp.MustCompile(`relist\s+relist \(cause: initial\)`))
			}
			require.Equal(t, 0, d.stop(t))
			require.Contains(t, d.stderr.String(), "demo: stopping (interrupted)")
			for _, out := range []string{d.stdout.String(), d.stderr.String()} {
				require.NotContains(t, out, "context canceled")
				require.NotContains(t, out, "giving up")
				require.NotContains(t, out, "cannot")
			}
		})
	}
}

// --churn=false and --tombstone-after work together: the lesson deletes
// one of the seeded objects, and the shutdown line says the churn itself
// wrote nothing. Regression: --churn=false silently turned the tombstone
// off, and the shutdown said "stopped the churn after 3 writes".
func TestTheTombstoneLessonWorksWithoutTheChurn(t *testing.T) {
	d := startDemo(t, "--churn=false", "--tombstone-after=50ms")
	waitFor(t, d.stderr, regexp.MustCompile(`demo: in 50ms the server deletes a Pod the watch misses`))
	waitFor(t, d.stderr, regexp.MustCompile(`demo: the Delete of default/example-\S+ above is a tombstone`))
	require.Equal(t, 0, d.stop(t))
	require.Contains(t, d.stderr.String(), "demo: stopped the churn after 0 writes of its own (and 4 more: the seeded objects and the page's buttons)")
}

// The tombstone lesson names the kind the demo watches. Regression:
// --resource deploy said "the server deletes a pod".
func TestTheTombstoneLessonNamesTheKind(t *testing.T) {
	d := startDemo(t, "--resource=deploy", "--tombstone-after=50ms", "--churn-interval=1h")
	waitFor(t, d.stderr, regexp.MustCompile(`demo: in 50ms the server deletes a Deployment the watch misses`))
	waitFor(t, d.stderr, regexp.MustCompile(`demo: the Delete of default/example-\S+ above is a tombstone`))
	require.NotContains(t, strings.ToLower(d.stderr.String()), "pod")
}

// The README and both internals pages say the lessons' bounds; they are
// classBounds', the one place they are set.
func TestTheDocsSayTheLessonsBounds(t *testing.T) {
	lb := classBounds(classBookmarks)
	for file, want := range map[string][]string{
		"README.md": {fmt.Sprintf("backs off %v doubling to %v and ends a watch silent for %v", lb.backoff.Initial, lb.backoff.Max, lb.idle),
			fmt.Sprintf("audits its cache every %v", lb.audit)},
		"docs/internals.md": {fmt.Sprintf("doubles from %v to %v", lb.backoff.Initial, lb.backoff.Max),
			fmt.Sprintf("a watch silent for %v ends, against bookmarks every %v", lb.idle, lb.bookmark),
			fmt.Sprintf("the cache is audited every %v", lb.audit), fmt.Sprintf("the demo audits every %v", lb.audit)},
		"docs/internals.zh-CN.md": {fmt.Sprintf("退避从 %v 倍增到 %v", lb.backoff.Initial, lb.backoff.Max),
			fmt.Sprintf("每 %v 发一次 BOOKMARK，watch 静默 %v 即结束", lb.bookmark, lb.idle),
			fmt.Sprintf("本地缓存每 %v 审计一次", lb.audit), fmt.Sprintf("demo 每 %v 审计一次", lb.audit)},
	} {
		b, err := os.ReadFile(filepath.Join("../..", file))
		require.NoError(t, err)
		page := strings.Join(strings.Fields(string(b)), " ")
		for _, w := range want {
			require.Contains(t, page, w, "%s disagrees with classBounds", file)
		}
	}
}

// A failure no lesson provoked, on the Chinese demo: the trace says what
// it was in Chinese with the English original, and the library's warning
// comes in Chinese with its English message after it. Regression: error
// text and WARN lines stayed English on the Chinese page and trace.
func TestAFailureIsToldInChineseWithItsOriginal(t *testing.T) {
	d := startDemo(t, "--lang=zh", "--trace", "--color=never", "--tombstone-after=0", "--churn-interval=100ms")
	url := waitFor(t, d.stderr, regexp.MustCompile(`模拟 API Server 地址 (http://[^\s（]+)`))[1]
	waitFor(t, d.stdout, regexp.MustCompile(`watch-opened`))
	post(t, url+"/fake/cut-watch") // behind the demo's back: no lesson
	waitFor(t, d.stdout, regexp.MustCompile(`watch-ended\s+WATCH 在 \d+ 个事件后中断：事件流在一个事件的中间被切断（原文：watchstream: `))
	waitFor(t, d.stdout, regexp.MustCompile(`backoff\s+退避等待 \S+，原因：事件流在一个事件的中间被切断（原文：informer: watching from rv "\d+": watchstream: `))
	waitFor(t, d.stderr, regexp.MustCompile(`level=WARN msg="informer：list/watch 失败，退避后重试（informer: list/watch failed, backing off）"`))
}

// Every message logWords says in Chinese is one a library logs: a message
// reworded there would otherwise silently stay English.
func TestEveryLogWordIsALibrarysMessage(t *testing.T) {
	var src strings.Builder
	for _, dir := range []string{"informer", "fakeapiserver", "fakeapiserver/internal/storage", "apiclient", "discovery", "leaderelection"} {
		files, err := filepath.Glob(filepath.Join("../..", dir, "*.go"))
		require.NoError(t, err)
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			src.Write(b)
		}
	}
	for en, zh := range logWords {
		require.Contains(t, src.String(), `"`+en+`"`, "logWords has %q, which no library logs", en)
		require.Regexp(t, `\p{Han}`, zh)
	}
}

// The log's client-go column speaks the reader's language: client-go's
// names stay, the words around them are Chinese on the Chinese page.
// Regression: the column stayed English on the Chinese page.
func TestTheClientGoColumnIsInTheReadersLanguage(t *testing.T) {
	han := regexp.MustCompile(`\p{Han}`)
	for s := observe.StageListPage; s <= observe.StageAuditFailed; s++ {
		_, cg := stageTerms(s, false)
		if cg.m.en == "%s" || cg.m == (msg{}) {
			continue // a client-go name alone, or no twin named
		}
		require.Regexp(t, han, cg.in(langZH), "stage %s", s)
		require.NotRegexp(t, han, cg.in(langEN), "stage %s", s)
	}
}
