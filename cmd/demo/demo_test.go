package main

import (
	"context"
	"fmt"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/shard"
)

var podsRef = apiclient.Ref{GVR: meta.GVR{Version: "v1", Resource: "pods"}, Namespace: "default"}

// client returns an apiclient for the demo's embedded server: the test
// writes over HTTP, as kubectl would.
func client(t testing.TB, url string) *apiclient.Client {
	t.Helper()
	c, err := apiclient.New(&apiclient.Config{Host: url, QPS: -1})
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	return c
}

func createPod(t testing.TB, c *apiclient.Client, name string) {
	t.Helper()
	p := &Pod{}
	p.Name, p.Namespace = name, "default"
	_, err := apiclient.Create[Pod](context.Background(), c, podsRef, p)
	require.NoError(t, err)
}

func lineFor(verb, key string) *regexp.Regexp {
	return regexp.MustCompile(`(?m)^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} ` + verb + `:  ` + regexp.QuoteMeta(key) + `$`)
}

func requireArticleFormat(t testing.TB, out *syncBuffer) {
	t.Helper()
	for _, l := range out.lines() {
		require.Regexp(t, articleRE, l, "every stdout line is the article's format")
	}
}

func TestQuickStartPrintsTheArticlesLinesForEveryWrite(t *testing.T) {
	d := startDemo(t, "--churn=false")
	url := d.serverURL(t)
	// The seeded pods arrive as the initial list.
	waitFor(t, d.stdout, regexp.MustCompile(`(?s)(Add:  default/example-\S+\n.*){3}`))
	c := client(t, url)

	createPod(t, c, "by-test")
	waitFor(t, d.stdout, lineFor("Add", "default/by-test"))

	_, err := apiclient.Patch[Pod](context.Background(), c, podsRef, "by-test", meta.MergePatch,
		[]byte(`{"metadata":{"labels":{"tier":"web"}}}`))
	require.NoError(t, err)
	waitFor(t, d.stdout, lineFor("Update", "default/by-test"))

	require.NoError(t, c.Delete(context.Background(), podsRef, "by-test", apiclient.DeleteOptions{}))
	waitFor(t, d.stdout, lineFor("Delete", "default/by-test"))

	requireArticleFormat(t, d.stdout)
	require.Equal(t, 0, d.stop(t))
	for _, want := range []string{"interrupted", "stopped the informer on v1/pods in namespace default",
		"stopped the fake API server at " + url, "removed "} {
		require.Contains(t, d.stderr.String(), want)
	}
}

func TestChurnAndResyncProduceLinesWithoutAnyWrite(t *testing.T) {
	d := startDemo(t, "--churn-interval=20ms", "--resync=50ms")
	d.serverURL(t)
	waitFor(t, d.stdout, regexp.MustCompile(`(?m) Update:  default/example-`))
	waitFor(t, d.stdout, regexp.MustCompile(`(?m) Delete:  default/example-`))
	require.Equal(t, 0, d.stop(t))
	requireArticleFormat(t, d.stdout)
	require.Regexp(t, `stopped the churn after \d+ writes`, d.stderr.String())
}

// stagesForOne are the trace lines one created object must produce, in
// data-path order, ending with the article's line and the handler's trace.
func stagesForOne(key string) []string {
	return []string{
		"event ADDED " + key + " at resourceVersion ",
		"delta add " + key + " queued (depth ",
		"store add " + key + " (cache updated",
		"Add:  " + key,
		`handler "print" called: add ` + key,
	}
}

func TestTraceShowsEveryHopOfOneObject(t *testing.T) {
	d := startDemo(t, "--trace", "--churn=false")
	c := client(t, d.serverURL(t))
	waitFor(t, d.stdout, regexp.MustCompile(`WATCH opened from resourceVersion \d+`))
	createPod(t, c, "traced")
	waitFor(t, d.stdout, regexp.MustCompile(`handler "print" called: add default/traced`))

	out := d.stdout.String()
	for _, want := range []string{
		"relist (cause: initial)", "LIST page 1: 3 items at resourceVersion ", "no continue token",
		"Replace(3 items", "synced: 3 objects in the cache",
	} {
		require.Contains(t, out, want)
	}
	at := 0
	for _, stage := range stagesForOne("default/traced") {
		i := strings.Index(out[at:], stage)
		require.GreaterOrEqual(t, i, 0, "stage %q after offset %d in:\n%s", stage, at, out)
		at += i
	}
	require.NotContains(t, out, "\x1b[", "no colour when stdout is not a terminal")
	for _, l := range d.stdout.lines() {
		if !strings.HasPrefix(l, "trace ") {
			require.Regexp(t, articleRE, l)
		}
	}
}

func TestTraceShowsPaginationSelectorsAndStreamingList(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string
		adds int
	}{
		{"streaming list", []string{"--streaming-list"}, []string{"WATCH opened as a streaming list",
			"BOOKMARK marked initial-events-end: the streaming list is complete"}, 3},
		{"websocket watch", []string{"--websocket"}, []string{"WATCH opened from resourceVersion", "over a websocket"}, 3},
		{"generic resource", []string{"--resource=configmaps"}, []string{"LIST page 1: 3 items"}, 3},
		{"all namespaces", []string{"--namespace="}, []string{"LIST page 1: 3 items"}, 3},
		{"selector matching all", []string{"--selector=app=example"}, []string{"LIST page 1: 3 items"}, 3},
		{"selector matching none", []string{"--selector=app!=example"}, []string{"synced: 0 objects"}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := startDemo(t, append([]string{"--trace", "--churn=false"}, tc.args...)...)
			for _, w := range tc.want {
				waitFor(t, d.stdout, regexp.MustCompile(regexp.QuoteMeta(w)))
			}
			waitFor(t, d.stderr, regexp.MustCompile(`demo: synced`))
			if tc.adds > 0 {
				waitFor(t, d.stdout, regexp.MustCompile(fmt.Sprintf(`(?s)(Add:  default/example-\S+\n.*){%d}`, tc.adds)))
			}
			require.Equal(t, 0, d.stop(t))
			require.Equal(t, tc.adds, strings.Count(d.stdout.String(), " Add:  "))
		})
	}
}

// TestTraceShowsEachRequestsShapeUnderItsLine: every relist and every
// watch-opened line is followed by one request line, the shape the
// informer traced (verb, resourceVersion, wire, selectors as sent) and its
// first reason; a streaming list's one WATCH is shown once, under its
// relist line.
func TestTraceShowsEachRequestsShapeUnderItsLine(t *testing.T) {
	sel, err := shard.Of(0, 2)
	require.NoError(t, err)
	selectors := "labelSelector=app=example shardSelector=" + sel.String()
	for _, tc := range []struct {
		name string
		args []string
		want []string // the request lines, in order
	}{
		{"list then watch", []string{"--selector=app=example", "--shard=0/2"}, []string{
			"LIST rv=0 limit=500 protobuf gzip whole " + selectors + "; why: rv=0: any state will do",
			"WATCH rv=$RV protobuf gzip whole " + selectors + "; why: from the list's resourceVersion",
		}},
		{"streaming list", []string{"--streaming-list"}, []string{
			`WATCH sendInitialEvents=true rv="" match=NotOlderThan protobuf gzip whole; why: streaming list: Options.Sync.StreamingList`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := startDemo(t, append([]string{"--trace", "--churn=false"}, tc.args...)...)
			waitFor(t, d.stdout, regexp.MustCompile(`watch-opened`))
			require.Equal(t, 0, d.stop(t))
			var got []string
			lines := d.stdout.lines()
			for i, l := range lines {
				f := strings.Fields(l)
				if len(f) < 3 || f[0] != "trace" {
					continue
				}
				switch f[2] {
				case "relist", "watch-opened":
					streamed := strings.Contains(l, "WATCH opened as a streaming list")
					next := ""
					if i+1 < len(lines) {
						next = lines[i+1]
					}
					if streamed {
						require.NotRegexp(t, `^trace \S+ request `, next, "a streaming list's WATCH, shown again after %q", l)
						continue
					}
					require.Regexp(t, `^trace \S+ request `, next, "no request line after %q", l)
					_, req, _ := strings.Cut(next, " request        ")
					got = append(got, req)
				case "request":
					require.Contains(t, got, strings.SplitN(l, " request        ", 2)[1], "a request line under no relist or watch-opened")
				}
			}
			require.Len(t, got, len(tc.want), "request lines:\n%s", strings.Join(got, "\n"))
			rv := regexp.MustCompile(`WATCH opened from resourceVersion (\d+)`).FindStringSubmatch(d.stdout.String())
			for i, w := range tc.want {
				if rv != nil {
					w = strings.ReplaceAll(w, "$RV", rv[1])
				}
				require.True(t, strings.HasPrefix(got[i], w), "request %d:\n got %s\nwant %s…", i, got[i], w)
			}
		})
	}
}

// A tombstone's line is the article's line, keyed by meta.Key as client-go
// keys it with DeletionHandlingMetaNamespaceKeyFunc; stderr says it was a
// tombstone, in the reader's language, and an observed delete says nothing.
func TestTombstonesPrintTheirKey(t *testing.T) {
	for _, l := range []lang{langEN, langZH} {
		var out, status syncBuffer
		d := &demo{out: &lineWriter{w: &out}, status: &lineWriter{w: &status}, now: time.Now, cfg: config{lang: l}}
		p := &Pod{}
		p.Name, p.Namespace = "gone", "default"
		printer[*Pod](d).OnDelete(p, false)
		require.Empty(t, status.String())
		printer[*Pod](d).OnDelete(p, true)
		for _, line := range out.lines() {
			require.Regexp(t, articleRE, line)
		}
		require.Contains(t, out.String(), " Delete:  default/gone\n")
		want := map[lang]string{langEN: "the Delete of default/gone above is a tombstone: finalStateUnknown=true",
			langZH: "上面 default/gone 的 Delete 是一个墓碑：finalStateUnknown=true"}[l]
		require.Contains(t, status.String(), want)
		require.Contains(t, status.String(), "DeletionHandlingMetaNamespaceKeyFunc")
	}
}

func TestServeRunsOnlyTheServer(t *testing.T) {
	d := startDemo(t, "--serve", "--churn=false")
	c := client(t, d.serverURL(t))
	waitFor(t, d.stderr, regexp.MustCompile(`serving until interrupted`))
	n := 0
	_, err := apiclient.List[Pod](context.Background(), c, podsRef, apiclient.ListOptions{}, func(*Pod) error { n++; return nil })
	require.NoError(t, err)
	require.Equal(t, seedObjects, n)
	require.Equal(t, 0, d.stop(t))
	require.Empty(t, d.stdout.String(), "no informer, no handler lines")
	require.Contains(t, d.stderr.String(), "stopped the fake API server")
}

func post(t testing.TB, url string) {
	t.Helper()
	resp, err := http.Post(url, "", nil)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusOK, resp.StatusCode, url)
}

func TestTraceShowsBookmarksAndRelistsWithTheirCause(t *testing.T) {
	d := startDemo(t, "--trace", "--churn=false", "--bookmark-interval=20ms")
	url := d.serverURL(t)
	waitFor(t, d.stdout, regexp.MustCompile(`BOOKMARK: resourceVersion is now \d+`))
	// The next watch gets 410 Gone: the informer must relist and say why.
	post(t, url+"/fake/fail?code=410&verb=watch&count=1")
	post(t, url+"/fake/drop-watches")
	waitFor(t, d.stdout, regexp.MustCompile(`relist \(cause: watch-gone\) from resourceVersion "\d+"`))
	waitFor(t, d.stdout, regexp.MustCompile(`(?s)watch-gone.*LIST page 1: 3 items`))
	require.Equal(t, 0, d.stop(t))
}

// A LIST at resourceVersion "0" is served whole (as kube-apiserver serves it
// from its watch cache); pages show on a consistent list, which the
// informer makes after a LIST at a resourceVersion got 410.
// A list at "0" comes whole from the (fake) server's watch cache, whatever
// the page size; --consistent-list makes the first list one the server pages.
func TestConsistentFirstListShowsPages(t *testing.T) {
	d := startDemo(t, "--trace", "--churn=false", "--page-size=2", "--consistent-list")
	waitFor(t, d.stdout, regexp.MustCompile(`(?s)relist \(cause: initial\) from resourceVersion ""`+
		`.*LIST page 1: 2 items at resourceVersion \d+, continue token present: more pages follow`+
		`.*LIST page 2: 1 items at resourceVersion \d+, no continue token: last page`))
	require.Equal(t, 0, d.stop(t))
}

func TestTraceShowsPagesOfAConsistentRelist(t *testing.T) {
	t.Parallel() // waits on timers, not a CPU: beside the lesson presses
	d := startDemo(t, "--trace", "--churn=false", "--page-size=2")
	url := d.serverURL(t)
	waitFor(t, d.stdout, regexp.MustCompile(`WATCH opened from resourceVersion \d+`))
	// One event first: a watch that ends with none within a second is a
	// failure of its own (relisted at once), which is not this test's path.
	createPod(t, client(t, url), "by-test")
	waitFor(t, d.stdout, regexp.MustCompile(`event ADDED default/by-test`))
	post(t, url+"/fake/fail?code=410&verb=watch&count=1")
	post(t, url+"/fake/fail?code=410&verb=list&count=1")
	post(t, url+"/fake/drop-watches")
	waitFor(t, d.stdout, regexp.MustCompile(`(?s)relist \(cause: watch-gone\).*relist \(cause: list-gone\) from resourceVersion ""`+
		`.*LIST page 1: 2 items at resourceVersion \d+, continue token present: more pages follow`+
		`.*LIST page 2: 2 items at resourceVersion \d+, no continue token: last page`))
	require.Equal(t, 0, d.stop(t))
}

// --snapshot: a second demo on the same server resumes from the first's
// snapshot without a LIST; after the server's history is compacted, a
// third one relists and says why.
func TestSnapshotResumesAndRelistsAfterCompaction(t *testing.T) {
	server := startDemo(t, "--serve", "--churn=false")
	url := server.serverURL(t)
	dir := t.TempDir()
	agent := func() *running {
		return startDemo(t, "--master", url, "--snapshot", dir, "--trace", "--color=never", "--churn=false")
	}
	first := agent()
	waitFor(t, first.stdout, regexp.MustCompile(`synced: 3 objects`))
	require.Equal(t, 0, first.stop(t))
	require.Contains(t, first.stdout.String(), "snapshot saved: 3 objects")

	second := agent()
	waitFor(t, second.stdout, regexp.MustCompile(`resumed from snapshot at RV \d+, watching`))
	waitFor(t, second.stdout, regexp.MustCompile(`synced from the snapshot: 3 objects`))
	require.NotContains(t, second.stdout.String(), "LIST page", "no LIST")
	require.Equal(t, 0, second.stop(t))

	c := client(t, url)
	require.NoError(t, c.Delete(context.Background(), podsRef, seedName(t, c), apiclient.DeleteOptions{}))
	post(t, url+"/fake/compact")
	third := agent()
	waitFor(t, third.stdout, regexp.MustCompile(`relist \(cause: snapshot-expired\)`))
	waitFor(t, third.stdout, regexp.MustCompile(`deleted while nobody watched`))
	require.Equal(t, 0, third.stop(t))

	// A damaged snapshot is said in one line on stderr, without -v.
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		require.NoError(t, os.WriteFile(f, []byte("not a snapshot"), 0o600))
	}
	fourth := startDemo(t, "--master", url, "--snapshot", dir, "--churn=false")
	waitFor(t, fourth.stderr, regexp.MustCompile(`synced 2 v1/pods`))
	lines := regexp.MustCompile(`(?m)^demo: the snapshot in .* was not used: it .*; listing instead \(-v says more\)$`).FindAllString(fourth.stderr.String(), -1)
	require.Len(t, lines, 1, "stderr:\n%s", fourth.stderr.String())
	require.Equal(t, 0, fourth.stop(t))
}

// The trace says what happened in every ending, in both languages: at a
// stop the watch was ended by the shutdown, not by the server (the stream
// closed under the stop used to read as a clean close); after a restart
// from a snapshot the sync names the snapshot's resourceVersion (it used to
// be empty) and says nothing was listed, on stdout's trace and on stderr.
func TestTraceIsTrueAtAStopAndAfterASnapshotResume(t *testing.T) {
	words := map[string]struct{ stopped, clean, synced, syncedLine string }{
		"en": {
			stopped:    `watch-ended\s+WATCH stopped after \d+ events: the informer is shutting down \(Ctrl-C\), no re-watch`,
			clean:      "closed cleanly by the server",
			synced:     `synced\s+synced from the snapshot: 3 objects in the cache at resourceVersion (\d+), nothing listed`,
			syncedLine: `demo: synced 3 v1/pods in namespace default: resumed from the snapshot in \S+ at resourceVersion (\d+), nothing listed`,
		},
		"zh": {
			stopped:    `watch-ended\s+WATCH 在 \d+ 个事件后停止：informer 正在退出（Ctrl-C），不再重新 watch`,
			clean:      "正常关闭了 WATCH",
			synced:     `synced\s+同步完成（synced），来自快照：本地缓存中有 3 个对象，资源版本 (\d+)。没有发 LIST`,
			syncedLine: `demo: 已同步 3 个对象：.*。它们来自 \S+ 里的快照（资源版本 (\d+)），没有发 LIST`,
		},
	}
	for _, l := range []string{"en", "zh"} {
		t.Run(l, func(t *testing.T) {
			w := words[l]
			server := startDemo(t, "--serve", "--churn=false")
			url, dir := server.serverURL(t), t.TempDir()
			agent := func() *running {
				return startDemo(t, "--lang="+l, "--master", url, "--snapshot", dir, "--trace", "--color=never", "--churn=false")
			}
			first := agent()
			waitFor(t, first.stdout, regexp.MustCompile(`watch-opened`))
			require.Equal(t, 0, first.stop(t))
			waitFor(t, first.stdout, regexp.MustCompile(w.stopped))
			require.NotContains(t, first.stdout.String(), w.clean, "nothing but the stop ended the watch")

			second := agent()
			rv := waitFor(t, second.stdout, regexp.MustCompile(w.synced))[1]
			require.Equal(t, rv, waitFor(t, second.stderr, regexp.MustCompile(w.syncedLine))[1])
			require.NotContains(t, second.stdout.String(), "list-page", "nothing listed")
			waitFor(t, second.stdout, regexp.MustCompile(`watch-opened`)) // a watch for the stop to end
			require.Equal(t, 0, second.stop(t))
			waitFor(t, second.stdout, regexp.MustCompile(w.stopped))
			require.NotContains(t, second.stdout.String(), w.clean)
		})
	}
}

// A slow first sync is said while it runs, so a reader never waits
// without a word; then the synced line comes as ever.
func TestASlowSyncIsSaidWhileItRuns(t *testing.T) {
	t.Parallel() // waits on timers, not a CPU: beside the lesson presses
	server := startDemo(t, "--serve", "--churn=false")
	url := server.serverURL(t)
	post(t, url+"/fake/latency?d=1500ms")
	d := startDemo(t, "--master", url, "--churn=false")
	waitFor(t, d.stderr, regexp.MustCompile(`demo: still syncing v1/pods in namespace default from \S+ after 1s`))
	waitFor(t, d.stderr, regexp.MustCompile(`demo: synced 3 v1/pods`))
}

// seedName is the name of one of the server's pods.
func seedName(t *testing.T, c *apiclient.Client) string {
	var name string
	_, err := apiclient.List[Pod](context.Background(), c, podsRef, apiclient.ListOptions{}, func(p *Pod) error {
		name = p.Name
		return nil
	})
	require.NoError(t, err)
	return name
}

// A namespace that does not exist used to leave the demo silent: the seed's
// 404 was taken for an unknown resource. The demo owns its server, so it
// creates the namespace, says so, and churns there.
func TestMissingNamespaceIsCreatedInTheEmbeddedServer(t *testing.T) {
	d := startDemo(t, "--churn=false", "--namespace=nope")
	waitFor(t, d.stderr, regexp.MustCompile(`demo: namespace nope did not exist: created it in the embedded server`))
	waitFor(t, d.stdout, regexp.MustCompile(`(?s)(Add:  nope/example-\S+\n.*){3}`))
	require.Equal(t, 0, d.stop(t))
}

// Against a server the demo does not own, a missing namespace is an empty
// list, not an error: the demo says the namespace does not exist.
func TestMissingNamespaceOnARealServerIsReported(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: slog.New(slog.DiscardHandler)})
	d := startDemo(t, "--kubeconfig", kubeconfigFor(t, srv.URL(), ""), "--namespace=nope")
	waitFor(t, d.stderr, regexp.MustCompile(`demo: namespace nope does not exist on the server`))
	require.Equal(t, 0, d.stop(t))
}
