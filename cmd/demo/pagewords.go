package main

import (
	"fmt"
	"io/fs"

	"github.com/zerokube/zerokube/docs"
)

// boxSections is the one table of which section of the internals page
// explains which part of the live page. The anchors are explicit
// `<a id="…"></a>` lines, the same in docs/internals.md and in its Chinese
// twin docs/internals.zh-CN.md, so one table serves both languages
// (TestEveryBoxLinksToASectionThatExists checks them).
var boxSections = []struct{ box, anchor string }{
	{"server", "client"},
	{"reflector", "reflector"},
	{"queue", "delta-queue"},
	{"loop", "processing"},
	{"cache", "cache"},
	{"handlers", "handlers"},
	{"controls", "relist"},
	{"log", "trace"},
}

// docPage is the internals page in language l, as the demo serves it; the
// English one while the Chinese is not written yet.
func docPage(pages fs.FS, l lang) string {
	if l == langZH {
		if _, err := fs.Stat(pages, "internals.zh-CN.md"); err == nil {
			return "internals.zh-CN.md"
		}
	}
	return "internals.md"
}

// pageData is what index.html is executed with.
type pageData struct {
	state
	Lang    string            // en or zh: the page's language
	HTML    string            // its HTML lang attribute
	Other   string            // the language the switch offers
	Docs    map[string]string // box → link to its section
	DocPage string            // the internals page itself
	Words   map[string]string // the script's words (pageWords' "js." entries)
	// Present: the page in presentation mode (large type, high contrast,
	// the six boxes and the last few hops only), for a projector.
	Present bool
	// PresentDefault: the mode the page opens in without ?present= (--present).
	PresentDefault bool
	l              lang
}

func newPageData(st state, l lang) pageData {
	p := pageData{state: st, Lang: l.code(), HTML: "en", Other: "zh", Docs: map[string]string{}, Words: map[string]string{}, l: l}
	if l == langZH {
		p.HTML, p.Other = "zh-CN", "en"
	}
	page := docPage(docs.Pages, l)
	for _, s := range boxSections {
		p.Docs[s.box] = "/docs/" + page + "#" + s.anchor
	}
	p.DocPage = "/docs/" + page
	for k, m := range pageWords {
		if len(k) > 3 && k[:3] == "js." {
			p.Words[k[3:]] = l.f(m)
		}
	}
	return p
}

// T is the page's word for key, in its language; an unknown key fails the
// page, so a typo cannot ship a blank label.
func (p pageData) T(key string) (string, error) {
	m, ok := pageWords[key]
	if !ok {
		return "", fmt.Errorf("live page: no words for %q", key)
	}
	return p.l.f(m), nil
}

// pageWords are the live page's own words: index.html asks for them with
// {{.T "key"}}, the script gets the "js." ones.
var pageWords = map[string]msg{
	"title":              {en: "zerokube · the informer's data path, live", zh: "zerokube · informer 数据通路实时演示"},
	"subtitle":           {en: "the informer's data path, live", zh: "informer 的数据通路，实时演示"},
	"mode.fake":          {en: "embedded fake API server", zh: "内嵌的模拟 API Server"},
	"mode.remote":        {en: "an API server named by --kubeconfig or --master (view only)", zh: "--kubeconfig 或 --master 指定的 API Server（只看不改）"},
	"switch":             {en: "中文", zh: "English"},
	"switch.help":        {en: "阅读中文版", zh: "read this page in English"},
	"present":            {en: "Presentation mode", zh: "演示模式"},
	"present.help":       {en: "large type, high contrast, the six boxes and the last hops only: for a projector (demo --present opens the page so)", zh: "大字、高对比度，只显示六个方框和最后几步：适合投影（demo --present 默认以这种方式打开页面）"},
	"present.off":        {en: "Normal view", zh: "普通视图"},
	"present.off.help":   {en: "every box, the buttons and the whole log", zh: "显示全部方框、按钮和完整日志"},
	"doc":                {en: "how it works", zh: "原理"},
	"doc.help":           {en: "the section of docs/internals.md this box shows", zh: "讲解这个方框的文档章节"},
	"server.cg":          {en: "kube-apiserver / fakeapiserver", zh: "kube-apiserver / fakeapiserver"},
	"rv":                 {en: "resourceVersion", zh: "资源版本"},
	"requests":           {en: "requests", zh: "请求数"},
	"watchers":           {en: "watches open", zh: "打开的 watch"},
	"writes":             {en: "writes", zh: "写入次数"},
	"churn":              {en: "churn", zh: "自动变更"},
	"reflector.cg":       {en: "informer.Reflector · client-go Reflector.ListAndWatch", zh: "informer.Reflector · client-go 的 Reflector.ListAndWatch"},
	"for":                {en: "for", zh: "持续"},
	"last-list":          {en: "last list", zh: "上次 list"},
	"watch-since":        {en: "watch open since", zh: "watch 已打开"},
	"events":             {en: "events", zh: "事件"},
	"bookmarks":          {en: "bookmarks", zh: "书签（bookmark）"},
	"relists":            {en: "relists", zh: "重新 list"},
	"backoffs":           {en: "backoffs", zh: "退避"},
	"queue.title":        {en: "Delta queue (the article's DeltaFIFO)", zh: "增量队列（文章里的 DeltaFIFO）"},
	"queue.cg.inorder":   {en: "fifo.InOrder · client-go RealFIFO", zh: "fifo.InOrder · client-go 的 RealFIFO"},
	"queue.cg.deltafifo": {en: "fifo.DeltaFIFO · client-go DeltaFIFO", zh: "fifo.DeltaFIFO · client-go 的 DeltaFIFO"},
	"queue.why.inorder": {en: "The default: every delta in arrival order, so handlers see changes to different objects in the server's order. DeltaFIFO groups deltas per key; run with --delta-fifo to see it.",
		zh: "默认队列：所有增量按到达顺序排队，所以事件处理函数看到不同对象的变化，顺序和 API Server 一致。DeltaFIFO 按键分组；加 --delta-fifo 可以看它。"},
	"queue.why.deltafifo": {en: "--delta-fifo: deltas grouped per key, one key popped at a time, as the article draws it. The default queue keeps every delta in arrival order instead.",
		zh: "--delta-fifo：增量按键分组，每次取出一个键，和文章画的一样。默认队列则让所有增量按到达顺序排队。"},
	"depth":          {en: "depth", zh: "队列深度"},
	"queued":         {en: "queued", zh: "累计入队"},
	"replaces":       {en: "Replace (relists)", zh: "Replace（全量替换）"},
	"tombstones":     {en: "tombstones", zh: "墓碑（tombstone）"},
	"loop.title":     {en: "Processing loop", zh: "处理循环"},
	"loop.cg":        {en: "informer · client-go processDeltas", zh: "informer · client-go 的 processDeltas"},
	"applied":        {en: "applied", zh: "已应用"},
	"by-op":          {en: "by operation", zh: "按操作"},
	"resyncs":        {en: "resyncs", zh: "resync 次数"},
	"swaps":          {en: "cache swaps (relists)", zh: "缓存整体替换"},
	"last":           {en: "last: ", zh: "最近一次："},
	"aria.pipeline":  {en: "the data path", zh: "数据通路"},
	"arrow.deltas":   {en: "deltas", zh: "增量"},
	"arrow.store":    {en: "store", zh: "写缓存"},
	"arrow.notify":   {en: "notify", zh: "通知"},
	"cache.title":    {en: "Indexer (cache)", zh: "Indexer（本地缓存）"},
	"cache.cg":       {en: "cache.Store · client-go ThreadSafeStore", zh: "cache.Store · client-go 的 ThreadSafeStore"},
	"objects":        {en: "objects", zh: "对象数"},
	"indexes":        {en: "indexes", zh: "索引"},
	"namespaces":     {en: "namespaces", zh: "命名空间"},
	"synced":         {en: "synced", zh: "已同步（synced）"},
	"audited":        {en: "audited", zh: "审计"},
	"handlers.title": {en: "Handlers", zh: "事件处理函数（回调函数）"},
	"handlers.cg":    {en: "listener queue · client-go processorListener", zh: "每个处理函数一个通知队列 · client-go 的 processorListener"},
	"no-handler":     {en: "no handler yet", zh: "还没有事件处理函数"},
	"poke":           {en: "Poke it", zh: "动手试试"},
	"poke.help":      {en: "writes, the churn's pace, and faults of the embedded server", zh: "写入、自动变更的节奏，以及内嵌 API Server 的故障注入"},
	"hops":           {en: "Hops", zh: "数据经过的每一步"},
	"newest-last":    {en: "newest last", zh: "最新的在最下面"},
	"follow":         {en: "follow", zh: "自动滚动"},
	"col.time":       {en: "time", zh: "时间"},
	"col.box":        {en: "box", zh: "方框"},
	"col.stage":      {en: "stage", zh: "阶段"},
	"col.cg":         {en: "client-go", zh: "client-go"},
	"col.what":       {en: "what happened", zh: "发生了什么"},
	"footer":         {en: "Every number here comes from the informer's own trace events (observe.Event) and metrics, the stream --trace prints. ", zh: "页面上的每个数字都来自 informer 自己的 trace 事件（observe.Event）和 metrics，也就是 --trace 打印的那条流。"},
	"footer.doc":     {en: "How each box works: ", zh: "每个方框的原理见："},

	"js.connecting":        {en: "connecting…", zh: "连接中…"},
	"js.live":              {en: "live", zh: "实时"},
	"js.reconnecting":      {en: "reconnecting…", zh: "重新连接中…"},
	"js.paused":            {en: "paused", zh: "已暂停"},
	"js.every":             {en: "every", zh: "每"},
	"js.yes":               {en: "yes", zh: "是"},
	"js.no":                {en: "no", zh: "否"},
	"js.pages":             {en: "page(s)", zh: "页"},
	"js.sep":               {en: ", ", zh: "，"},
	"js.lp":                {en: " (", zh: "（"},
	"js.rp":                {en: ")", zh: "）"},
	"js.op.add":            {en: "add", zh: "新增"},
	"js.op.update":         {en: "update", zh: "更新"},
	"js.op.delete":         {en: "delete", zh: "删除"},
	"js.op.replace":        {en: "replace", zh: "按 list 写入"},
	"js.op.unchanged":      {en: "unchanged", zh: "未变"},
	"js.op.tombstone":      {en: "tombstone", zh: "墓碑"},
	"js.op.sync":           {en: "sync", zh: "resync"},
	"js.op.snapshot":       {en: "snapshot", zh: "快照"},
	"js.items-at":          {en: "items at", zh: "个对象，资源版本"},
	"js.on-watch":          {en: "on this watch", zh: "来自当前 watch"},
	"js.calls":             {en: "calls", zh: "调用次数"},
	"js.queue":             {en: "queue", zh: "队列"},
	"js.lag":               {en: "lag", zh: "延迟"},
	"js.max-lag":           {en: "max lag", zh: "最大延迟"},
	"js.coalesced":         {en: "coalesced", zh: "合并"},
	"js.panics":            {en: "panics", zh: "panic"},
	"js.error":             {en: "error", zh: "错误"},
	"js.no-answer":         {en: "the demo did not answer:", zh: "demo 没有响应："},
	"js.last-error":        {en: "last error:", zh: "最近的错误："},
	"js.state.starting":    {en: "starting", zh: "启动中 starting"},
	"js.state.listing":     {en: "listing", zh: "全量 list 中 listing"},
	"js.state.watching":    {en: "watching", zh: "增量 watch 中 watching"},
	"js.state.streaming":   {en: "streaming", zh: "流式 list 中 streaming"},
	"js.state.backing-off": {en: "backing off", zh: "退避中 backing-off"},
	"js.state.watch-ended": {en: "watch ended", zh: "watch 已结束 watch-ended"},
	"js.part.reflector":    {en: "reflector", zh: "Reflector"},
	"js.part.queue":        {en: "queue", zh: "增量队列"},
	"js.part.loop":         {en: "loop", zh: "处理循环"},
	"js.part.cache":        {en: "cache", zh: "本地缓存"},
	"js.part.handlers":     {en: "handlers", zh: "事件处理函数"},
	"js.part.informer":     {en: "informer", zh: "informer"},
}
