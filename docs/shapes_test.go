package docs

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
)

// shapesSource is where the request-shape figures come from: the table
// `go run ./bench/shapes/cmd/shapes -report` makes of the samples of the
// run (bench/shapes/RESULTS.jsonl), kept in bench/shapes/RESULTS.md, whose
// own test checks that it is the report of those samples.
const shapesSource = "bench/shapes/RESULTS.md"

// shapesTableMarker starts the API server's table in the source,
// shapesRSSMarker its peak-RSS table.
const (
	shapesTableMarker = "API server (kube-apiserver) CPU, µs per object:"
	shapesRSSMarker   = "API server peak RSS"
)

// markdownRows are the data rows (header and rule skipped) of the first
// Markdown table after the line that starts with marker in text, each
// split into trimmed cells.
func markdownRows(t *testing.T, text, marker, where string) [][]string {
	t.Helper()
	i := strings.Index("\n"+text, "\n"+marker)
	require.GreaterOrEqual(t, i, 0, "%s has no line starting %q", where, marker)
	var rows [][]string
	header := false
	for _, line := range strings.Split(text[i:], "\n")[1:] {
		if !strings.HasPrefix(line, "|") {
			if header {
				break
			}
			continue
		}
		if !header {
			header = true
			continue
		}
		if strings.HasPrefix(line, "|---") {
			continue
		}
		cells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|"), "|")
		for k := range cells {
			cells[k] = strings.TrimSpace(cells[k])
		}
		rows = append(rows, cells)
	}
	require.NotEmpty(t, rows, "%s: no table after %q", where, marker)
	return rows
}

// TestRequestShapeFiguresHaveOneSource: the request-shape table of
// docs/agents.md, and of its Chinese twin, is the source's: the same
// figures in the same rows (the Chinese page names the rows in Chinese).
func TestRequestShapeFiguresHaveOneSource(t *testing.T) {
	src := markdownRows(t, read(t, shapesSource), shapesTableMarker, shapesSource)
	for doc, marker := range map[string]string{
		"docs/agents.md":       "| objects | request | scope |",
		"docs/agents.zh-CN.md": "| 对象 | 请求 | 范围 |",
	} {
		rows := markdownRows(t, read(t, doc), marker, doc)
		require.Len(t, rows, len(src), "%s: the request-shape table's rows", doc)
		for i, row := range rows {
			require.Len(t, row, len(src[i]), "%s: row %d", doc, i+1)
			first := 3 // the figures; the English page names the rows as the source does
			if doc == "docs/agents.md" {
				first = 0
			}
			require.Equal(t, src[i][first:], row[first:], "%s: row %d differs from %s", doc, i+1, shapesSource)
		}
	}
}

// podName is a per-node agent's metadata-only type, as the guide's trace
// example has it.
type podName struct {
	meta.SlimMeta `json:"metadata"`
}

// TestTheGuidesTraceLineIsTheInformers: the relist line docs/agents.md
// shows is the one a per-node agent's informer traces (the request's
// shape and every reason), so a reason reworded in the informer fails
// here until the guide follows.
func TestTheGuidesTraceLineIsTheInformers(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: slog.New(slog.DiscardHandler)})
	c, err := apiclient.New(fakeapiservertest.ClientConfig(srv))
	require.NoError(t, err)
	lines := make(chan string, 1)
	pods := apiclient.Ref{GVR: meta.GVR{Version: "v1", Resource: "pods"}}
	inf := informer.New[podName](c, pods, informer.Options[*podName]{
		FieldSelector: "spec.nodeName=node-a",
		Observe: informer.ObserveOptions{
			Logger: slog.New(slog.DiscardHandler),
			Trace: func(ev observe.Event) {
				if ev.Stage == observe.StageRelist {
					select {
					case lines <- ev.String():
					default:
					}
				}
			},
		},
	})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	defer func() { cancel(); require.NoError(t, <-done) }()
	wait, stop := context.WithTimeout(t.Context(), 10*time.Second)
	defer stop()
	require.NoError(t, inf.WaitForSync(wait))
	line := <-lines
	t.Logf("traced: %s", line)
	for _, doc := range []string{"docs/agents.md", "docs/agents.zh-CN.md"} {
		require.Contains(t, read(t, doc), "\n"+line+"\n", "%s's trace example is not what the informer traces", doc)
	}
}

// shapeMedian is the median in a table of the source (src's rows) of the row
// named obj, verb, scope and the column col (3: protobuf … 6: JSON + gzip).
func shapeMedian(t *testing.T, src [][]string, obj, verb, scope string, col int) float64 {
	t.Helper()
	for _, row := range src {
		if row[0] == obj && row[1] == verb && row[2] == scope {
			v, err := strconv.ParseFloat(strings.Fields(row[col])[0], 64)
			require.NoError(t, err, "%s: %v", shapesSource, row)
			return v
		}
	}
	t.Fatalf("%s has no row %s | %s | %s", shapesSource, obj, verb, scope)
	return 0
}

// TestTheRequestShapeProseFollowsTheTable: the figures the guide's prose
// gives (the cells it quotes, the ratios it draws) are the source's, in
// both languages.
func TestTheRequestShapeProseFollowsTheTable(t *testing.T) {
	src := markdownRows(t, read(t, shapesSource), shapesTableMarker, shapesSource)
	const proto, json = 3, 5
	swn := shapeMedian(t, src, "whole", "stream", "per node", proto)
	lwn := shapeMedian(t, src, "whole", "list-rv0", "per node", proto)
	smn := shapeMedian(t, src, "metadata", "stream", "per node", proto)
	lmn := shapeMedian(t, src, "metadata", "list-rv0", "per node", proto)
	swcJSON := shapeMedian(t, src, "whole", "stream", "cluster-wide", json)
	lwcJSON := shapeMedian(t, src, "whole", "list-rv0", "cluster-wide", json)
	lwc := shapeMedian(t, src, "whole", "list-rv0", "cluster-wide", proto)
	lmc := shapeMedian(t, src, "metadata", "list-rv0", "cluster-wide", proto)
	pmc := shapeMedian(t, src, "metadata", "list-paged", "cluster-wide", proto)
	smc := shapeMedian(t, src, "metadata", "stream", "cluster-wide", proto)
	rss := markdownRows(t, read(t, shapesSource), shapesRSSMarker, shapesSource)
	rssMeta := shapeMedian(t, rss, "metadata", "list-rv0", "cluster-wide", proto)
	rssWhole := shapeMedian(t, rss, "whole", "list-rv0", "cluster-wide", proto)
	lo, hi := min(swn/lwn, smn/lmn), max(swn/lwn, smn/lmn)
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	i := func(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }
	for doc, want := range map[string][]string{
		"docs/agents.md": {
			"costs the server " + i(lo) + " to " + i(hi) + " times a",
			"(whole pods in protobuf: " + i(swn) + " against " + i(lwn) + " µs a pod; metadata: " + i(smn) + " against " + i(lmn) + ")",
			"list costs " + f(swcJSON/lwcJSON) + " times the LIST",
			"the consistent LIST costs " + f(pmc/lmc) + " times the LIST at rv 0 and the streaming list " + f(smc/lmc) + " times",
			f(lwc/lmc) + " times less of the server's CPU than whole pods cluster-wide, " + f(lwn/lmn) + " times less per node",
			"JSON costs the server about " + f(lwcJSON/lwc) + " times as much",
			"its RSS rose " + i(rssMeta) + " MiB over it at 10,000 pods (median; whole objects: " + i(rssWhole) + ")",
			"bounds it at every start for " + f(pmc/lmc) + " times the CPU, a streaming list for " + f(smc/lmc) + " times",
		},
		"docs/agents.zh-CN.md": {
			"LIST 的 " + i(lo) + " 到 " + i(hi) + " 倍",
			"每个 " + i(swn) + " µs 对 " + i(lwn) + " µs；仅元数据：" + i(smn) + " 对 " + i(lmn),
			"流式 list 是 LIST 的 " + f(swcJSON/lwcJSON) + " 倍",
			"一致性 LIST 是 rv 0 的 LIST 的 " + f(pmc/lmc) + " 倍，流式 list 是 " + f(smc/lmc) + " 倍",
			"完整 Pod 的 1/" + f(lwc/lmc) + "，按节点时只有 1/" + f(lwn/lmn),
			"约是 protobuf 的 " + f(lwcJSON/lwc) + " 倍",
			"RSS 因此涨了 " + i(rssMeta) + " MiB（中位数；完整对象：" + i(rssWhole) + "）",
			"以 " + f(pmc/lmc) + " 倍的 CPU 在每次启动时把它限制住，流式 list 则要 " + f(smc/lmc) + " 倍",
		},
	} {
		text := strings.Join(strings.Fields(read(t, doc)), " ") // lines wrap anywhere
		for _, w := range want {
			require.Contains(t, text, w, "%s: a figure of the request-shape prose differs from %s", doc, shapesSource)
		}
	}
}
