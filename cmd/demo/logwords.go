package main

import (
	"context"
	"log/slog"
)

// logWords are the libraries' warnings and errors a reader of the demo
// meets without -v, in Chinese: the demo's Chinese reader reads each in
// Chinese, with the English message after it for a search (the informer
// and the server log in English, their attributes stay as they are).
var logWords = map[string]string{
	"informer: list/watch failed, backing off":                                                 "informer：list/watch 失败，退避后重试",
	"informer: streaming list unsupported, using LIST from now on":                             "informer：API Server 不支持流式 list，此后改用 LIST",
	"informer: streaming list cut short, using LIST this once":                                 "informer：流式 list 中途中断，这一次改用 LIST",
	"informer: an object does not fit the type; using LIST, which skips it, from now on":       "informer：有对象不符合类型；此后改用 LIST，跳过它",
	"informer: streaming list failed, using LIST this once":                                    "informer：流式 list 失败，这一次改用 LIST",
	"informer: snapshot rejected, listing instead":                                             "informer：快照被拒绝，改为重新 list",
	"informer: saving a snapshot failed":                                                       "informer：保存快照失败",
	"informer: unknown watch event type":                                                       "informer：未知的 watch 事件类型",
	"informer: skipping an object that does not fit the type (Options.Decode.SkipUndecodable)": "informer：跳过一个不符合类型的对象（Options.Decode.SkipUndecodable）",
	"informer: skipping object of the wrong kind":                                              "informer：跳过类型（kind）不对的对象",
	"informer: transform failed; keeping the object as received":                               "informer：Transform 失败；对象按收到的原样保留",
	"informer: handler panicked":                                                               "informer：事件处理函数 panic 了",
	"informer: the cache audit found the cache different from the server":                      "informer：缓存审计发现本地缓存和 API Server 不一致",
	"informer: the cache audit failed":                                                         "informer：缓存审计失败",
	"fakeapiserver: ending a watcher that fell behind":                                         "模拟 API Server：结束一个跟不上的 watch",
	"fakeapiserver: custom resource not served":                                                "模拟 API Server：自定义资源没有提供服务",
	"fakeapiserver: namespace controller: delete failed":                                       "模拟 API Server：命名空间控制器删除失败",
	"apiclient: keeping the previous bearer token":                                             "apiclient：继续使用之前的 bearer token",
	"discovery: a short name could also match a lower priority resource":                       "discovery：这个短名称也可能指一个优先级更低的资源",
	"leaderelection: renewing":                                                                 "leaderelection：续约失败",
	"leaderelection: acquiring":                                                                "leaderelection：获取 Lease 失败",
	"leaderelection: releasing":                                                                "leaderelection：释放 Lease 失败",
	"informer: factory shares the informer created with other options; these are not used":     "informer：工厂共享了用其他选项创建的 informer；这些选项没有用上",
}

// zhLog says each record's message in Chinese, the English original after
// it, when logWords has it.
type zhLog struct{ slog.Handler }

func (h zhLog) Handle(ctx context.Context, r slog.Record) error {
	if zh, ok := logWords[r.Message]; ok {
		r2 := slog.NewRecord(r.Time, r.Level, zh+"（"+r.Message+"）", r.PC)
		r.Attrs(func(a slog.Attr) bool { r2.AddAttrs(a); return true })
		r = r2
	}
	return h.Handler.Handle(ctx, r)
}

func (h zhLog) WithAttrs(as []slog.Attr) slog.Handler { return zhLog{h.Handler.WithAttrs(as)} }
func (h zhLog) WithGroup(name string) slog.Handler    { return zhLog{h.Handler.WithGroup(name)} }
