package main

import (
	"io"
	"io/fs"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/docs"
	"github.com/zerokube/zerokube/informer/observe"
)

func get(t testing.TB, url string) (int, string) {
	t.Helper()
	res, err := http.Get(url)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, string(b)
}

// TestEveryBoxLinksToASectionThatExists: each anchor of boxSections is an
// <a id> line of docs/internals.md, and of docs/internals.zh-CN.md once that
// page is written (until then the Chinese page's boxes link to the English
// one, and this part of the test has nothing to check).
func TestEveryBoxLinksToASectionThatExists(t *testing.T) {
	pages := []string{"internals.md"}
	if _, err := fs.Stat(docs.Pages, "internals.zh-CN.md"); err == nil {
		pages = append(pages, "internals.zh-CN.md")
	} else {
		t.Log("docs/internals.zh-CN.md is not written yet: its anchors are not checked")
	}
	for _, page := range pages {
		b, err := fs.ReadFile(docs.Pages, page)
		require.NoError(t, err)
		rendered := renderMarkdown(string(b))
		for _, s := range boxSections {
			tag := `<a id="` + s.anchor + `"></a>`
			assert.Contains(t, string(b), "\n"+tag+"\n", "docs/%s: the %s box links to #%s, which the page lacks", page, s.box, s.anchor)
			assert.Contains(t, rendered, tag, "docs/%s as the demo serves it keeps #%s", page, s.anchor)
		}
	}
}

func TestRenderMarkdownKnowsTheDocsSubset(t *testing.T) {
	out := renderMarkdown("# How it works\n\n<a id=\"reflector\"></a>\n\n### 3. The reflector: a state machine\n\n" +
		"Text with `code <b>`, **bold**, *what happened* and [a link](#relist),\na [page](internals.md) and [a file](../cmd/demo/main.go).\n\n" +
		"```text\ntrace 1 <x>\n```\n\n| a | b |\n|---|---|\n| `x` | y |\n\n- one\n  more\n- two\n\n1. first\n\n### 资源版本：为什么\n")
	for _, want := range []string{
		`<h1 id="how-it-works">How it works</h1>`,
		`<a id="reflector"></a>`,
		`<h3 id="3-the-reflector-a-state-machine">`,
		`<code>code &lt;b&gt;</code>`, `<strong>bold</strong>`, `<em>what happened</em>`, `<a href="#relist">a link</a>`,
		`<a href="/docs/internals.md">page</a>`, ` a file.`,
		"<pre><code>trace 1 &lt;x&gt;\n</code></pre>",
		`<tr><th>a</th><th>b</th></tr>`, `<tr><td><code>x</code></td><td>y</td></tr>`,
		"<ul>\n<li>one more</li>\n<li>two</li>\n</ul>", "<ol>\n<li>first</li>\n</ol>",
		`<h3 id="资源版本为什么">`,
	} {
		assert.Contains(t, out, want)
	}
	assert.NotContains(t, out, "<b>", "markup in the text is escaped")
}

// TestLivePageSpeaksChinese: with --lang zh the page, its state and its
// buttons' answers are in Chinese, the boxes link to the internals page
// the demo serves, and ?lang=en switches the same page back to English.
func TestLivePageSpeaksChinese(t *testing.T) {
	r := startDemo(t, "--ui", "127.0.0.1:0", "--churn=false", "--resync=0", "--lang", "zh", "--trace", "--color=never")
	base := r.uiURL(t)

	code, page := get(t, base)
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, page, `<html lang="zh-CN">`)
	assert.Contains(t, page, "增量队列（文章里的 DeltaFIFO）")
	assert.Contains(t, page, "fifo.InOrder · client-go 的 RealFIFO", "the queue the demo runs")
	assert.Contains(t, page, `<span id="resource">命名空间 default 中的 v1/pods</span>`)
	assert.Contains(t, page, "事件处理函数")
	assert.Contains(t, page, `<a id="lang-switch" class="switch" href="/?lang=en"`)
	zhDoc := "/docs/" + docPage(docs.Pages, langZH)
	assert.Contains(t, page, `href="`+zhDoc+`#reflector"`)

	_, en := get(t, base+"?lang=en")
	assert.Contains(t, en, `<html lang="en">`)
	assert.Contains(t, en, "Processing loop")
	assert.Contains(t, en, `href="/docs/internals.md#reflector"`)

	code, doc := get(t, strings.TrimSuffix(base, "/")+zhDoc)
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, doc, `<a id="reflector"></a>`)
	code, _ = get(t, base+"docs/nope.md")
	assert.Equal(t, http.StatusNotFound, code)

	s := openStreamLang(t, base, "zh")
	st := s.await(t, "the first sync", watching)
	var words []string
	for _, l := range st.Log {
		words = append(words, l.Text)
	}
	assert.Contains(t, strings.Join(words, "\n"), "同步完成（synced）：本地缓存中有 3 个对象")
	for _, a := range st.Actions {
		if a.Name == "step" {
			assert.Equal(t, "单步：变更一次", a.Label)
		}
	}
	reply := actLang(t, base, "step", "zh")
	assert.Contains(t, reply.Result, "自动变更已暂停；这一步：")

	// The trace on stdout speaks Chinese too; the article's lines and the
	// stage names do not change.
	waitFor(t, r.stdout, regexpOf(`trace \S+ synced +同步完成（synced）`))
	waitFor(t, r.stdout, regexpOf(`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d Add:  default/example-`))
	waitFor(t, r.stderr, regexpOf(`demo: 已同步 3 个对象：命名空间 default 中的 v1/pods，来自内嵌的模拟 API Server`))
}

// TestTheClassCanStepAndSlowTheChurn: the step button pauses the churn and
// makes exactly one write; slower and faster change the pace within their
// bounds.
func TestTheClassCanStepAndSlowTheChurn(t *testing.T) {
	r := startDemo(t, "--ui", "127.0.0.1:0", "--churn-interval", "1s", "--resync=0")
	base := r.uiURL(t)
	s := openStream(t, base)
	s.await(t, "the first sync", watching)

	act(t, base, "step")
	st := s.await(t, "the churn paused", func(st state) bool { return st.Server.ChurnPaused })
	writes := st.Server.Writes
	act(t, base, "step")
	st = s.await(t, "one more change", func(st state) bool { return st.Server.Writes > writes })
	assert.LessOrEqual(t, st.Server.Writes, writes+2, "one step is one change (a pod's deletion is two writes)")

	assert.Equal(t, "the churn now writes every 2s", act(t, base, "churn-slower").Result)
	assert.Equal(t, "the churn now writes every 1s", act(t, base, "churn-faster").Result)
	for range 5 {
		act(t, base, "churn-faster")
	}
	assert.Equal(t, "the churn now writes every 250ms", act(t, base, "churn-faster").Result, "never faster than 250ms")
	s.await(t, "the pace on the page", func(st state) bool { return st.Server.ChurnEvery == "250ms" })
}

// The page's log renders each line in the language asked for, from one
// trace event.
func TestDashboardLogSpeaksTheLanguageAskedFor(t *testing.T) {
	d := newDashboard(time.Now, "fake", "v1/pods")
	d.observe(observe.Event{Stage: observe.StageSynced, Items: 2, ResourceVersion: "5"})
	assert.Equal(t, "synced: 2 objects in the cache at resourceVersion 5", d.snapshot(langEN).Log[0].Text)
	assert.Equal(t, "同步完成（synced）：本地缓存中有 2 个对象，资源版本 5", d.snapshot(langZH).Log[0].Text)
}

// Without --churn the churn is paused, not absent: the page can resume it.
func TestAPausedChurnCanBeResumedFromThePage(t *testing.T) {
	r := startDemo(t, "--ui", "127.0.0.1:0", "--churn=false", "--churn-interval", "100ms", "--resync=0")
	base := r.uiURL(t)
	s := openStream(t, base)
	st := s.await(t, "the first sync, churn paused", func(st state) bool { return watching(st) && st.Server.ChurnPaused })
	writes := st.Server.Writes
	assert.Equal(t, "churn resumed, one change every 100ms", act(t, base, "resume-churn").Result)
	s.await(t, "the churn writing", func(st state) bool { return !st.Server.ChurnPaused && st.Server.Writes >= writes+2 })
}
