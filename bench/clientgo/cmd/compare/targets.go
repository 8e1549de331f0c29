package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
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
	var out strings.Builder
	for _, n := range sizes {
		for _, t := range targets {
			zk, cg := find(n, t.zk), find(n, t.cg)
			if zk == nil || cg == nil {
				continue
			}
			m := metrics[t.m]
			ratio, lo, hi, verdict := judge(zk.values(m), cg.values(m), t.goal)
			fmt.Fprintf(&out, "| %d | %s | %s / %s | %.3g | %.3g–%.3g | ≤ %g | %s |\n", n, t.what, t.zk, t.cg, ratio, lo, hi, t.goal, verdict)
		}
	}
	writeRatios(w, "Targets of issue #16 (ratio of the medians; the range: best and worst pairing of runs):",
		"| pods | target | zerokube / client-go | ratio | range | goal | |", out.String())
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
