package main

import (
	"fmt"
	"io"
	"slices"
)

// target is one of issue #16's goals: zk's metric over cg's at most goal.
type target struct {
	what   string
	m      int // index into metrics
	zk, cg string
	goal   float64
}

var targets = []target{
	{"sync CPU per object", 1, "zk-raw", "cg-json", 0.2},
	{"sync CPU per object", 1, "zk-slim", "cg-json", 0.2},
	{"sync CPU per object", 1, "zk-raw", "cg-proto", 0.5},
	{"sync CPU per object", 1, "zk-slim", "cg-proto", 0.5},
	{"retained per object", 2, "zk-raw", "cg-json", 0.35},
	{"retained per object", 2, "zk-slim", "cg-json", 0.05},
	{"peak RSS during sync", 3, "zk-raw", "cg-json", 0.3},
	{"peak RSS during sync", 3, "zk-raw", "cg-proto", 0.3},
	{"watch CPU per event", 4, "zk-raw", "cg-json", 0.15},
	{"watch CPU per event", 4, "zk-slim", "cg-json", 0.15},
	{"watch CPU per event", 4, "zk-raw", "cg-proto", 0.15},
	{"p99 write→handler", 6, "zk-raw", "cg-json", 1},
	{"p99 write→handler", 6, "zk-slim", "cg-json", 1},
	{"p99 write→handler", 6, "zk-raw", "cg-proto", 1},
	// Issue #23, mode for mode: paged LIST against paged LIST (client-go's
	// "list" option), streaming list against client-go's default one.
	{"client + server CPU per object, LIST", 8, "zk-slim", "cg-proto:list", 0.5},
	{"client + server CPU per object, streaming", 8, "zk-slim:stream", "cg-proto", 0.5},
	{"server CPU per sync, LIST", 7, "zk-slim", "cg-proto:list", 1},
	{"server CPU per sync, streaming", 7, "zk-slim:stream", "cg-proto", 1},
	{"sync CPU per object, LIST", 1, "zk-slim", "cg-proto:list", 0.3},
	{"watch CPU per event", 4, "zk-slim", "cg-proto:list", 1},
	{"server watch CPU per event", 9, "zk-slim", "cg-proto:list", 1},
	{"sync wall time, LIST", 0, "zk-slim", "cg-proto:list", 1},
	{"client + server CPU per object, LIST, meta.Raw", 8, "zk-raw", "zk-raw:json", 1},
}

// writeTargets checks the targets at every size: the ratio of the medians,
// with the range the runs allow (the smallest zerokube run over the largest
// client-go run, and the other way round). A goal inside that range is
// reported as inside the noise, neither met nor missed.
func writeTargets(w io.Writer, gs []*group) {
	find := func(n int, v string) *group {
		i := slices.IndexFunc(gs, func(g *group) bool { return g.n == n && g.variant == v })
		if i < 0 {
			return nil
		}
		return gs[i]
	}
	var sizes []int
	for _, g := range gs {
		if !slices.Contains(sizes, g.n) {
			sizes = append(sizes, g.n)
		}
	}
	fmt.Fprintln(w, "Targets of issues #16 and #23 (ratio of the medians; the range: best and worst pairing of runs):")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| pods | target | zerokube / client-go | ratio | range | goal | |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, n := range sizes {
		for _, t := range targets {
			zk, cg := find(n, t.zk), find(n, t.cg)
			if zk == nil || cg == nil {
				continue
			}
			m := metrics[t.m]
			zv, cv := zk.values(m), cg.values(m)
			ratio := median(zv) / median(cv)
			lo, hi := zv[0]/cv[len(cv)-1], zv[len(zv)-1]/cv[0]
			verdict := "inside the noise"
			switch {
			case hi <= t.goal:
				verdict = "met"
			case lo > t.goal:
				verdict = "**missed**"
			}
			fmt.Fprintf(w, "| %d | %s | %s / %s | %.3g | %.3g–%.3g | ≤ %g | %s |\n", n, t.what, t.zk, t.cg, ratio, lo, hi, t.goal, verdict)
		}
	}
	fmt.Fprintln(w)
}

// writeScale shows how each variant grows with the number of pods: total
// sync time and retained heap, and those and the sync's CPU per 1,000
// pods, which stay flat when growth is linear.
func writeScale(w io.Writer, gs []*group) {
	fmt.Fprintln(w, "Scale (medians): a flat \"per 1,000 pods\" column means linear growth.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| informer | pods | sync (s) | sync per 1,000 pods (s) | sync CPU per 1,000 pods (s) | retained (MiB) | retained per 1,000 pods (MiB) | peak RSS (MiB) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	var vars []string
	for _, g := range gs {
		if !slices.Contains(vars, g.variant) {
			vars = append(vars, g.variant)
		}
	}
	for _, v := range vars {
		for _, g := range gs {
			if g.variant != v {
				continue
			}
			sync := median(g.values(metrics[0]))
			cpu := median(g.values(metrics[1])) / 1000 // µs per pod is ms per 1,000 pods; in s
			ret := median(g.values(metrics[2])) * float64(g.n) / (1 << 20)
			rss := median(g.values(metrics[3]))
			k := float64(g.n) / 1000
			fmt.Fprintf(w, "| %s | %d | %s | %.3f | %.3f | %s | %.2f | %s |\n", v, g.n, num(sync), sync/k, cpu, num(ret), ret/k, num(rss))
		}
	}
	fmt.Fprintln(w)
}
