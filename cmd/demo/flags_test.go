package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
)

func TestArticleLineIsExactlyTheArticlesPrintln(t *testing.T) {
	at := time.Date(2023, 6, 3, 14, 19, 21, 0, time.UTC)
	tests := []struct{ verb, key, want string }{
		{"Add", "default/example-fcsjwbzzf2", "2023-06-03 14:19:21 Add:  default/example-fcsjwbzzf2\n"},
		{"Update", "default/example-fcsjwbzzf2", "2023-06-03 14:19:21 Update:  default/example-fcsjwbzzf2\n"},
		{"Delete", "kube-system/coredns", "2023-06-03 14:19:21 Delete:  kube-system/coredns\n"},
		{"Add", "node-1", "2023-06-03 14:19:21 Add:  node-1\n"},
	}
	for _, tc := range tests {
		got := articleLine(at, tc.verb, tc.key)
		require.Equal(t, tc.want, got)
		require.Regexp(t, articleRE, strings.TrimSuffix(got, "\n"))
	}
}

// runOnce runs the demo to completion and returns its exit code and output.
func runOnce(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut syncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	code := run(ctx, args, &out, &errOut)
	require.NoError(t, ctx.Err(), "the demo should have exited by itself")
	return code, out.String(), errOut.String()
}

func requireOneClearLine(t *testing.T, stderr, want string) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
	require.Len(t, lines, 1, "exactly one line on stderr, got:\n%s", stderr)
	require.True(t, strings.HasPrefix(lines[0], "demo: "), lines[0])
	require.Contains(t, lines[0], want)
	require.NotContains(t, stderr, "goroutine ")
	require.NotContains(t, stderr, "panic")
}

func TestBadFlagsGiveOneClearLineAndExitTwo(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--nope"}, "flag provided but not defined: -nope"},
		{[]string{"--resync=soon"}, `invalid value "soon" for flag -resync`},
		{[]string{"--resync=-1s"}, "--resync must not be negative"},
		{[]string{"--resource=a//b"}, `--resource "a//b"`},
		{[]string{"--resource=a/b/c/d"}, "too many slashes"},
		{[]string{"--selector=a in (b"}, "--selector"},
		{[]string{"--serve", "--master=https://example.com"}, "cannot be combined"},
		{[]string{"--color=pink"}, "--color must be"},
		{[]string{"--present"}, "--present is a mode of the live page: add --ui"},
		{[]string{"pods"}, `unexpected argument "pods"`},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stdout, stderr := runOnce(t, tc.args...)
			require.Equal(t, 2, code)
			require.Empty(t, stdout)
			requireOneClearLine(t, stderr, tc.want)
		})
	}
}

func TestHelpPrintsUsageAndExitsZero(t *testing.T) {
	code, _, stderr := runOnce(t, "-h")
	require.Equal(t, 0, code)
	for _, flag := range []string{"-kubeconfig", "-master", "-namespace", "-resource", "-resync",
		"-selector", "-churn", "-serve", "-streaming-list", "-trace"} {
		require.Contains(t, stderr, flag)
	}
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	return p
}

// kubeconfigFor writes a kubeconfig for server with an optional token.
func kubeconfigFor(t *testing.T, server, token string) string {
	user := "{}"
	if token != "" {
		user = `{token: "` + token + `"}`
	}
	return writeFile(t, "kubeconfig", `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "`+server+`"}}]
users: [{name: u, user: `+user+`}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`)
}

func TestConnectionFailuresGiveOneClearLineAndExitOne(t *testing.T) {
	unreachable := kubeconfigFor(t, "http://127.0.0.1:1", "")
	secured := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: slog.New(slog.DiscardHandler),
		Tokens: []fakeapiserver.Token{{Value: "configmaps-only", Resources: []string{"configmaps"}}}})
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"kubeconfig does not parse", []string{"--kubeconfig", writeFile(t, "bad", "clusters: [[[\n  - :")}, "load kubeconfig"},
		{"kubeconfig missing", []string{"--kubeconfig", filepath.Join(t.TempDir(), "none")}, "load kubeconfig"},
		{"server unreachable", []string{"--kubeconfig", unreachable}, "server unreachable"},
		{"no credentials", []string{"--kubeconfig", kubeconfigFor(t, secured.URL(), "")}, ": unauthorized: "},
		{"wrong credentials", []string{"--kubeconfig", kubeconfigFor(t, secured.URL(), "nope")}, ": unauthorized: "},
		{"not allowed", []string{"--kubeconfig", kubeconfigFor(t, secured.URL(), "configmaps-only")}, ": forbidden: "},
		{"resource not served", []string{"--resource=widgets", "--churn=false"}, `--resource widgets: resource not found: discovery: the server at`},
		{"resource not served, spelled out", []string{"--resource=example.com/v1/widgets"}, "resource not found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runOnce(t, tc.args...)
			require.Equal(t, 1, code)
			require.Empty(t, stdout)
			requireOneClearLine(t, stderr, tc.want)
		})
	}
}

func TestResourceNamesResolveThroughDiscovery(t *testing.T) {
	tests := []struct {
		in      string
		want    meta.GVR
		cluster bool
	}{
		{"pods", meta.GVR{Version: "v1", Resource: "pods"}, false},
		{"po", meta.GVR{Version: "v1", Resource: "pods"}, false},
		{"v1/pods", meta.GVR{Version: "v1", Resource: "pods"}, false},
		{"deploy", meta.GVR{Group: "apps", Version: "v1", Resource: "deployments"}, false},
		{"deployments.apps", meta.GVR{Group: "apps", Version: "v1", Resource: "deployments"}, false},
		{"apps/v1/deployments", meta.GVR{Group: "apps", Version: "v1", Resource: "deployments"}, false},
		{"Node", meta.GVR{Version: "v1", Resource: "nodes"}, true},
		{"v1/namespaces", meta.GVR{Version: "v1", Resource: "namespaces"}, true},
		{"wd", meta.GVR{Group: "example.com", Version: "v1", Resource: "widgets"}, false},
	}
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, srv.Register(fakeapiserver.Resource{GVR: meta.GVR{Group: "example.com", Version: "v1", Resource: "widgets"},
		Kind: "Widget", Namespaced: true, ShortNames: []string{"wd"}}))
	for _, tc := range tests {
		got := resolved(t, srv, tc.in)
		require.Equal(t, tc.want, got.gvr, tc.in)
		require.Equal(t, tc.cluster, got.cluster, tc.in)
	}
}

// resolved is --resource name as the demo resolves it on srv.
func resolved(t *testing.T, srv *fakeapiserver.Server, name string) resourceSpec {
	t.Helper()
	res, err := parseResource(name)
	require.NoError(t, err, name)
	d := &demo{cfg: config{resource: res, syncTimeout: 10 * time.Second}, status: &lineWriter{w: io.Discard}}
	require.NoError(t, d.resolve(t.Context(), fakeapiservertest.ClientConfig(srv)), name)
	return d.cfg.resource
}

func TestRealClusterOnlyWhenAskedFor(t *testing.T) {
	tests := []struct {
		args []string
		real bool
	}{
		{nil, false},
		{[]string{"--namespace="}, false},
		{[]string{"--kubeconfig="}, true}, // kubectl's lookup
		{[]string{"--kubeconfig=/x"}, true},
		{[]string{"--master=https://10.0.0.1"}, true},
	}
	for _, tc := range tests {
		c, err := parseFlags(tc.args, nil)
		require.NoError(t, err)
		require.Equal(t, tc.real, c.real(), "%v", tc.args)
	}
}

func TestColourOnlyForTerminalsOrWhenAsked(t *testing.T) {
	env := func(v string) func(string) string { return func(string) string { return v } }
	require.False(t, useColor("auto", &syncBuffer{}, env("")))
	require.True(t, useColor("always", &syncBuffer{}, env("")))
	require.False(t, useColor("never", os.Stdout, env("")))

	var out syncBuffer
	tr := &tracer{out: &lineWriter{w: &out}, color: true, now: time.Now}
	tr.traceFunc()(observe.Event{Stage: observe.StageBookmark, ResourceVersion: "42"})
	require.Contains(t, out.String(), ansiGrey)
	require.Contains(t, out.String(), "BOOKMARK: resourceVersion is now 42")
}

// The trace explains what the stages did, in words, in English and in
// Chinese: a stopping informer is not a server closing the watch, a
// relist's unchanged object is not news, a resync is named, and a snapshot
// load is no relist.
func TestTraceWordsForStopsRelistsAndResyncs(t *testing.T) {
	tr := &tracer{now: time.Now, websocket: true}
	for _, tc := range []struct {
		ev     observe.Event
		en, zh string
	}{
		{observe.Event{Stage: observe.StageWatchEnded, Items: 3, Err: context.Canceled, Stopping: true}, "the informer is shutting down (Ctrl-C)", "informer 正在退出（Ctrl-C）"},
		// The stop is what the event says, not what the error is.
		{observe.Event{Stage: observe.StageWatchEnded, Items: 3, Err: errors.New("interrupt"), Stopping: true}, "the informer is shutting down (Ctrl-C)", "informer 正在退出（Ctrl-C）"},
		{observe.Event{Stage: observe.StageSynced, Items: 3, ResourceVersion: "12", Op: observe.OpSnapshot}, "synced from the snapshot: 3 objects in the cache at resourceVersion 12, nothing listed", "来自快照：本地缓存中有 3 个对象，资源版本 12。没有发 LIST"},
		{observe.Event{Stage: observe.StageHandlerCalled, Handler: "print", Op: observe.OpTombstone, Key: "default/a"}, "delete default/a with finalStateUnknown=true", "delete default/a，finalStateUnknown=true"},
		{observe.Event{Stage: observe.StageHandlerCalled, Handler: "print", Op: observe.OpTombstone, Key: "default/a"}, "DeletionHandlingMetaNamespaceKeyFunc", "DeletionHandlingMetaNamespaceKeyFunc"},
		{observe.Event{Stage: observe.StageStoreUpdated, Op: observe.OpDelete, Key: "default/a"}, "store delete default/a", "从本地缓存删除 default/a"},
		{observe.Event{Stage: observe.StageReplace, Items: 3, ResourceVersion: "4"}, "into the delta queue (fifo.InOrder, client-go's RealFIFO", "增量队列 fifo.InOrder（即 client-go 的 RealFIFO"},
		// A relisted object: an add when it was not cached, an update when it was.
		{observe.Event{Stage: observe.StageStoreUpdated, Op: observe.OpReplace, Key: "default/new", ResourceVersion: "5"}, "it was not cached, so handlers hear an add", "所以事件处理函数收到 add"},
		{observe.Event{Stage: observe.StageStoreUpdated, Op: observe.OpAdd, Key: "default/old", ResourceVersion: "5"}, "store add default/old", "本地缓存新增 default/old"},
		{observe.Event{Stage: observe.StageStoreUpdated, Op: observe.OpReplace, Key: "default/old", ResourceVersion: "6"}, "it was cached at another resourceVersion, so handlers hear an update", "所以事件处理函数收到 update"},
		{observe.Event{Stage: observe.StageWatchEnded, Items: 3}, "WATCH closed cleanly by the server", "正常关闭了 WATCH"},
		{observe.Event{Stage: observe.StageWatchOpened, ResourceVersion: "7"}, "over a websocket", "走 websocket"},
		{observe.Event{Stage: observe.StageStoreUpdated, Op: observe.OpUnchanged, Key: "default/a", ResourceVersion: "5"}, "unchanged by the relist (same resourceVersion 5)", "资源版本仍是 5"},
		{observe.Event{Stage: observe.StageStoreUpdated, Op: observe.OpTombstone, Key: "default/a"}, "deleted while nobody watched", "没人 watch 时被删除"},
		{observe.Event{Stage: observe.StageCacheReplaced, Items: 3}, "cache replaced by the relist in one step: 3 objects", "一次性替换：3 个对象"},
		{observe.Event{Stage: observe.StageResync, Handler: "print", Items: 3}, "resync due for handler(s) print", "事件处理函数 print 到了 resync 时间"},
		{observe.Event{Stage: observe.StageHandlerCalled, Handler: "print", Op: observe.OpSync, Key: "default/a"}, "from a resync, old == new", "来自 resync，old == new"},
		{observe.Event{Stage: observe.StageListPage, Page: 2, Items: 1, ResourceVersion: "9"}, "LIST page 2: 1 items at resourceVersion 9, no continue token: last page", "LIST 第 2 页：1 个对象，资源版本 9，没有 continue 令牌：这是最后一页"},
		// A snapshot fills the cache in one step too, but no relist happened.
		{observe.Event{Stage: observe.StageSnapshotLoaded, Items: 3, ResourceVersion: "12"}, "resumed from snapshot at RV 12, watching: 3 objects loaded", "从快照恢复（资源版本 12）"},
		{observe.Event{Stage: observe.StageCacheReplaced, Items: 3}, "cache filled from the snapshot in one step: 3 objects (no LIST was made)", "本地缓存一次性装入快照：3 个对象"},
		{observe.Event{Stage: observe.StageCacheReplaced, Items: 4}, "cache replaced by the relist in one step: 4 objects", "一次性替换：4 个对象"},
		{observe.Event{Stage: observe.StageRelist, Cause: observe.CauseInitial, ResourceVersion: "0"}, `relist (cause: initial) from resourceVersion "0"`, `全量 list（原因：initial），资源版本 "0"`},
		{observe.Event{Stage: observe.StageCacheReplaced, Items: 3}, "cache filled by the first list in one step: 3 objects", "第一次全量 list 的结果：3 个对象"},
	} {
		said := tr.describe(tc.ev)
		require.Contains(t, said.in(langEN), tc.en)
		require.Contains(t, said.in(langZH), tc.zh)
	}
}

// A pod's graceful deletion reaches the handler as an Update before the
// Delete; the trace line of that handler call says why, only for an
// object whose deletion began.
func TestTraceExplainsTheUpdateOfAGracefulDeletion(t *testing.T) {
	marks := newTerminating()
	tr := &tracer{now: time.Now, graceful: marks}
	called := observe.Event{Stage: observe.StageHandlerCalled, Handler: "print", Op: observe.OpUpdate, Key: "default/a"}
	require.NotContains(t, tr.describe(called).in(langEN), "Graceful deletion")

	now := time.Now()
	pod := &Pod{}
	pod.Namespace, pod.Name, pod.DeletionTimestamp = "default", "a", &now
	marks.saw("default/a", pod, false)
	require.Contains(t, tr.describe(called).in(langEN), "Graceful deletion: the server first sets deletionTimestamp")
	require.Contains(t, tr.describe(called).in(langZH), "优雅删除（graceful deletion）")

	marks.saw("default/a", pod, true) // the Delete: the mark goes
	require.NotContains(t, tr.describe(called).in(langEN), "Graceful deletion")
}
