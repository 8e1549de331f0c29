package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// usageHead is what demo -h prints before the flags.
var usageHead = msg{en: `Usage: demo [flags]

The informer quick start: a pod informer that prints one line per handler
call, "2006-01-02 15:04:05 Add:  namespace/name" (and Update:, Delete:).

With no flags it starts an embedded fake API server, creates a few pods in
"default", keeps a gentle churn going and prints a kubeconfig for kubectl.
It talks to a real cluster only when --kubeconfig or --master is given;
--kubeconfig="" then finds the config as kubectl does ($KUBECONFIG, then
~/.kube/config, then in-cluster).

Flags:
`, zh: `用法：demo [参数]

informer 快速入门：一个 Pod informer，事件处理函数每被调用一次就打印一行
"2006-01-02 15:04:05 Add:  namespace/name"（以及 Update:、Delete:）。

不带参数时，它启动一个内嵌的模拟 API Server，在 "default" 里创建几个 Pod，
持续做一些轻量的变更，并打印一个给 kubectl 用的 kubeconfig。
只有给出 --kubeconfig 或 --master 时才会连接真实集群；--kubeconfig=""
会像 kubectl 一样查找配置（$KUBECONFIG，然后 ~/.kube/config，然后 in-cluster）。

参数：
`}

// flagHelpZH is each flag's help in Chinese, for demo -h in Chinese; the
// English is at the flag's definition in flags.go. A flag added there
// needs its line here (TestEveryFlagHasChineseHelp).
var flagHelpZH = map[string]string{
	"kubeconfig":        `真实集群的 kubeconfig，用它代替内嵌的模拟 API Server（"" = 按 kubectl 的方式查找，例如 ~/.kube/config）`,
	"master":            "真实集群的 API Server 地址（覆盖 kubeconfig 里的 server）",
	"namespace":         `要 watch 的命名空间；"" 表示所有命名空间`,
	"resource":          "要 watch 的资源：pods、常见资源的复数名（deployments、configmaps 等）、version/resource 或 group/version/resource",
	"resync":            "resync 周期：每过一个周期，本地缓存里的每个对象都以 Update 的形式再交付一次（0 = 不 resync）",
	"selector":          "标签选择器（label selector），例如 app=web,tier!=db",
	"churn":             "在内嵌的 API Server 上持续创建、改标签、删除对象",
	"churn-interval":    "两次自动变更之间的间隔",
	"serve":             "只运行内嵌的模拟 API Server（连同自动变更），给 kubectl 和其他客户端用",
	"streaming-list":    "用流式列表（带 sendInitialEvents 的 watch）代替 LIST 完成同步",
	"websocket":         "通过 websocket 而不是分块传输的 HTTP 来 watch",
	"trace":             "打印数据通路的每一步：LIST 分页、watch、事件、增量、本地缓存、事件处理函数、bookmark、重新 list",
	"color":             "给 --trace 的输出上色：auto（stdout 是终端且没有设置 NO_COLOR 时）、always、never",
	"sync-timeout":      "第一次同步超过这个时间就放弃",
	"bookmark-interval": "内嵌的 API Server 多久发一次 BOOKMARK 事件",
	"page-size":         `LIST 的分页大小；负数表示不分页（资源版本 0 的 LIST 本来就由 watch 缓存整体返回：想看分页请加 --consistent-list）`,
	"consistent-list":   `第一次 LIST 用一致性读（资源版本 ""），API Server 按 --page-size 分页；默认的资源版本 "0" 的 list 由 watch 缓存整体返回`,
	"ui":                "在这个地址提供数据通路的实时页面，例如 127.0.0.1:8080（只写 :8080 则只监听本机回环地址；127.0.0.1:0 自动选一个空闲端口，页面地址打印在 stderr 上）",
	"shard":             "只缓存 N 个分片中的第 i 个，例如 0/2：在同一个 API Server 上运行 N 个 demo，每个分片一个（API Server 支持 shard selector 时由它过滤，否则由 informer 自己过滤）",
	"shard-by":          "--shard 按什么做哈希：uid 或 namespace",
	"server-shards":     "内嵌的 API Server 支持 shardSelector（kube-apiserver 的 ShardedListAndWatch 特性门控）；false：像没有这个门控的 API Server 一样忽略它，由 informer 过滤",
	"snapshot":          "把本地缓存的快照保存在这个目录里，下次启动时从快照恢复而不是全量 list（热重启；API Server 必须是同一个：配合 --master 使用，例如连到一个 demo --serve）",
	"serve-health":      "在 http://ADDR/healthz 以 JSON 提供 informer 的健康状态（同步且跟上时 200，过期或未同步时 503），在 http://ADDR/metrics 提供给 Prometheus 的指标；只写 :8081 则只监听本机回环地址",
	"leader-elect":      "竞选 Lease " + leaseName + "，只在当选 leader 时 watch，其余的等待。在同一个 API Server 上运行两个（例如先 demo --serve，再运行两次 demo --kubeconfig 它的KUBECONFIG --leader-elect），然后中断 leader：它会释放 Lease，另一个在 2 秒内接手",
	"delta-fifo":        "用 client-go 的 DeltaFIFO（按键分组，和文章画的一样）给增量排队，代替默认的按序队列（即 client-go 的 RealFIFO：不同对象的变化，事件处理函数按 API Server 的顺序看到）",
	"tombstone-after":   "第一次同步之后过这么久，内嵌的 API Server 会在 watch 卡住时删除它的一个对象（Pod，或 --resource 指定的资源），压缩历史并断开连接。重新 list 时发现对象没了，事件处理函数收到一个墓碑（finalStateUnknown=true 的 Delete），也就是文章的第 4 步；0 表示不做",
	"present":           "以演示模式打开实时页面（--ui）：大字、高对比度，只显示六个方框和最后几步，适合投影；页面上可以来回切换",
	"v":                 "把 informer、客户端和 API Server 的全部日志（debug 及以上）打印到 stderr；不加 -v 时只打印它们的警告，且从第一次同步完成后才打印，课堂演示故意引发的失败（实时页面的按钮、--tombstone-after）不打印警告：由演示自己讲",
	"lang":              "--trace 的说明、demo 自己的消息和实时页面使用的语言：en 或 zh（默认看 LC_ALL、LC_MESSAGES 或 LANG；除非它们指定中文，否则是英文）；事件处理函数打印的行和 trace 的阶段名在两种语言下都一样",
}

// printUsage writes demo -h in language l: the head, then every flag as
// flag.PrintDefaults lays it out.
func printUsage(out io.Writer, fs *flag.FlagSet, l lang) {
	fmt.Fprint(out, l.f(usageHead))
	if l == langEN {
		fs.SetOutput(out)
		fs.PrintDefaults()
		return
	}
	fs.VisitAll(func(f *flag.Flag) {
		kind, _ := flag.UnquoteUsage(f)
		line := "  -" + f.Name
		if kind != "" {
			line += " " + kind
		}
		help := flagHelpZH[f.Name]
		if help == "" {
			help = f.Usage
		}
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			def := f.DefValue
			if kind == "string" {
				def = fmt.Sprintf("%q", def)
			}
			help += "（默认 " + def + "）"
		}
		fmt.Fprintf(out, "%s\n    \t%s\n", line, strings.ReplaceAll(help, "\n", "\n    \t"))
	})
}

// langInArgs is the language --lang asks for in args, before they are
// parsed, so that -h given before --lang is answered in it too; the
// environment's otherwise (run puts it first in args).
func langInArgs(args []string) lang {
	l := langEN
	for i, a := range args {
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "lang" {
			continue
		}
		if !hasValue && i+1 < len(args) {
			value = args[i+1]
		}
		if v, ok := localeLang(value); ok {
			l = v
		}
	}
	return l
}
