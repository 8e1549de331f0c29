package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// The whole cluster's cost of one informer: the client's CPU and the API
// server's (kube-apiserver's or fakeapiserver's process, its idle rate
// discounted), per synced object and per watch event, mode for mode.

func perPod(r record, s float64) float64 { return 1e6 * s / float64(max(r.N, 1)) }
func perEvent(r record, s float64) float64 {
	return 1e6 * s / float64(max(r.Events, 1))
}

var (
	mSyncWall    = metric{"sync", func(r record) float64 { return r.SyncSeconds }, "s", false}
	mClientPod   = metric{"client CPU / pod", func(r record) float64 { return perPod(r, r.SyncCPU) }, "µs", false}
	mServerPod   = metric{"apiserver CPU / pod", func(r record) float64 { return perPod(r, r.Sync.API) }, "µs", true}
	mEtcdPod     = metric{"etcd CPU / pod", func(r record) float64 { return perPod(r, r.Sync.Etcd) }, "µs", true}
	mTotalPod    = metric{"client + apiserver / pod", func(r record) float64 { return perPod(r, r.SyncCPU+r.Sync.API) }, "µs", true}
	mServerSync  = metric{"apiserver CPU per sync", func(r record) float64 { return r.Sync.API }, "s", true}
	mClientEvent = metric{"watch client CPU / event", func(r record) float64 { return perEvent(r, r.WatchCPU) }, "µs", false}
	mServerEvent = metric{"watch apiserver CPU / event", func(r record) float64 { return perEvent(r, r.Watch.API) }, "µs", true}
	mTotalEvent  = metric{"watch client + apiserver / event", func(r record) float64 { return perEvent(r, r.WatchCPU+r.Watch.API) }, "µs", true}
)

// streaming reports whether g's informer synced with a streaming list: the
// child's note says what it did ("watch-list"), whatever it was asked.
func (g *group) streaming() bool { return strings.Contains(g.runs[0].Note, "watch-list") }

// protobuf reports whether g's informer was answered in protobuf.
func (g *group) protobuf() bool { return strings.Contains(g.runs[0].Note, "protobuf") }

func (g *group) mode() string {
	if g.streaming() {
		return "streaming list"
	}
	return "paged LIST"
}

func (g *group) wire() string {
	if g.protobuf() {
		return "protobuf"
	}
	return "JSON"
}

// measuredServer reports whether g's records carry the server's CPU
// (records from before the driver read it have none).
func (g *group) measuredServer() bool {
	return slices.ContainsFunc(g.runs, func(r record) bool { return r.Sync.API != 0 })
}

// writeCluster writes the whole-cluster table: per size, paged LISTs
// first, then streaming lists, each informer's client, apiserver and total.
func writeCluster(w io.Writer, gs []*group) {
	var rows []*group
	for _, g := range gs {
		if g.measuredServer() {
			rows = append(rows, g)
		}
	}
	if len(rows) == 0 {
		return
	}
	slices.SortStableFunc(rows, func(a, b *group) int {
		if a.n != b.n {
			return a.n - b.n
		}
		return strings.Compare(a.mode(), b.mode()) // "paged LIST" < "streaming list"
	})
	cols := []metric{mSyncWall, mClientPod, mServerPod, mTotalPod, mEtcdPod, mClientEvent, mServerEvent, mTotalEvent}
	fmt.Fprintln(w, "The whole cluster, mode for mode: the client's CPU and the API server's over the same phase")
	fmt.Fprintln(w, "(its process counters, /proc/PID/stat, read when the child starts, when it prints that its")
	fmt.Fprintln(w, "sync ended, and around its watch phase; less the server's idle CPU over as long a window,")
	fmt.Fprintln(w, "measured just before each child). A watch event's apiserver CPU includes applying the")
	fmt.Fprintln(w, "driver's merge patch, the same for every informer. etcd's is beside it, not in the total.")
	fmt.Fprintf(w, "A run whose idle window was busy (over %.0f ms of CPU per second) has no server figures.\n", 1e3*busyIdle)
	fmt.Fprintln(w)
	writeHeader(w, []string{"pods", "mode", "wire", "informer"}, cols, "")
	for _, g := range rows {
		fmt.Fprintf(w, "| %d | %s | %s | %s |", g.n, g.mode(), g.wire(), g.variant)
		for _, m := range cols {
			fmt.Fprintf(w, " %s |", cell(g.values(m)))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
	writeClusterSummary(w, rows)
	writeClusterTargets(w, rows)
	writeMetaTargets(w, rows)
}

// writeClusterSummary is the short form of the table: medians per pod,
// and the total against client-go protobuf's in the same mode.
func writeClusterSummary(w io.Writer, rows []*group) {
	fmt.Fprintln(w, "In short (medians, µs of CPU per synced pod; the last column: the total over client-go")
	fmt.Fprintln(w, "protobuf's in the same mode):")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| pods | mode | informer | wire | client | apiserver | client + apiserver | × client-go protobuf |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, g := range rows {
		tot := median(g.values(mTotalPod))
		rel := "—"
		if cg := protoBase(rows, g.n, g.mode()); cg != nil {
			rel = fmt.Sprintf("%.2f×", tot/median(cg.values(mTotalPod)))
		}
		fmt.Fprintf(w, "| %d | %s | %s | %s | %.0f | %.0f | %.0f | %s |\n", g.n, g.mode(), g.variant, g.wire(),
			median(g.values(mClientPod)), median(g.values(mServerPod)), tot, rel)
	}
	fmt.Fprintln(w)
}

// protoBase is client-go's protobuf informer at n pods in mode, or nil.
func protoBase(rows []*group, n int, mode string) *group {
	for _, g := range rows {
		if g.n == n && g.mode() == mode && g.protobuf() && strings.HasPrefix(g.variant, "cg-proto") {
			return g
		}
	}
	return nil
}

// clusterTarget is one of issue #23's goals: a zerokube informer's metric
// over client-go protobuf's, in the same mode, at most goal.
type clusterTarget struct {
	m    metric
	zk   []string // variant names (without options) it applies to
	goal float64
}

var clusterTargets = []clusterTarget{
	{mTotalPod, []string{"zk-raw", "zk-slim"}, 0.5},
	{mServerSync, []string{"zk-raw", "zk-slim"}, 1},
	{mClientPod, []string{"zk-slim"}, 0.3},
	{mClientEvent, []string{"zk-raw", "zk-slim"}, 1},
	{mServerEvent, []string{"zk-raw", "zk-slim"}, 1},
	{mSyncWall, []string{"zk-raw", "zk-slim"}, 1},
}

// writeClusterTargets checks issue #23's targets for zerokube's protobuf
// informers against client-go's protobuf informer in the same mode and at
// the same size, as writeTargets does: a goal inside the range the runs
// allow is inside the noise.
func writeClusterTargets(w io.Writer, rows []*group) {
	var out strings.Builder
	for _, t := range clusterTargets {
		for _, zk := range rows {
			name, _, _ := strings.Cut(zk.variant, ":")
			cg := protoBase(rows, zk.n, zk.mode())
			if cg == nil || !zk.protobuf() || !slices.Contains(t.zk, name) {
				continue
			}
			zv, cv := zk.values(t.m), cg.values(t.m)
			if len(zv) == 0 || len(cv) == 0 {
				continue
			}
			ratio, lo, hi, verdict := judge(zv, cv, t.goal)
			fmt.Fprintf(&out, "| %d | %s | %s | %s / %s | %.3g | %.3g–%.3g | ≤ %g | %s |\n",
				zk.n, zk.mode(), t.m.name, zk.variant, cg.variant, ratio, lo, hi, t.goal, verdict)
		}
	}
	writeRatios(w, "Targets of issue #23, zerokube over protobuf against client-go over protobuf in the same mode\n"+
		"(ratio of the medians; the range: best and worst pairing of runs):",
		"| pods | mode | target | zerokube / client-go | ratio | range | goal | |", out.String())
}

// judge is zv's median over cv's, the range of the ratio over every pairing
// of runs, and whether goal is met, missed or inside that range.
func judge(zv, cv []float64, goal float64) (ratio, lo, hi float64, verdict string) {
	ratio = median(zv) / median(cv)
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, z := range zv {
		for _, c := range cv {
			lo, hi = min(lo, z/c), max(hi, z/c)
		}
	}
	verdict = "inside the noise"
	switch {
	case hi <= goal:
		verdict = "met"
	case lo > goal:
		verdict = "**missed**"
	}
	return ratio, lo, hi, verdict
}

// writeMetaTargets checks issue #32's targets for zerokube's metadata-only
// informer (zk-meta): its client + apiserver CPU per pod at most 0.3× client-go's
// typed protobuf informer's (cg-proto) and at most client-go's metadata
// informer's (cg-meta), each in the same mode and at the same size.
func writeMetaTargets(w io.Writer, rows []*group) {
	base := func(n int, mode, variant string) *group {
		for _, g := range rows {
			if name, _, _ := strings.Cut(g.variant, ":"); g.n == n && g.mode() == mode && name == variant {
				return g
			}
		}
		return nil
	}
	var out strings.Builder
	for _, zk := range rows {
		if name, _, _ := strings.Cut(zk.variant, ":"); name != "zk-meta" {
			continue
		}
		for _, t := range []struct {
			cg   string
			goal float64
		}{{"cg-proto", 0.3}, {"cg-meta", 1}} {
			cg := base(zk.n, zk.mode(), t.cg)
			if cg == nil {
				continue
			}
			zv, cv := zk.values(mTotalPod), cg.values(mTotalPod)
			if len(zv) == 0 || len(cv) == 0 {
				continue
			}
			ratio, lo, hi, verdict := judge(zv, cv, t.goal)
			fmt.Fprintf(&out, "| %d | %s | %s / %s | %.3g | %.3g–%.3g | ≤ %g | %s |\n",
				zk.n, zk.mode(), zk.variant, cg.variant, ratio, lo, hi, t.goal, verdict)
		}
	}
	writeRatios(w, "Targets of issue #32, the metadata-only informer's client + apiserver CPU per pod in the same mode\n"+
		"(ratio of the medians; the range: best and worst pairing of runs):",
		"| pods | mode | zerokube / client-go | ratio | range | goal | |", out.String())
}
