package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// metric is one column of the tables: how to read it from a record.
type metric struct {
	name string
	get  func(record) float64
	unit string
	// server: the metric reads the server's CPU, which is unknown for a
	// run whose idle window was not idle (see busyIdle).
	server bool
}

// busyIdle is the idle rate (CPU seconds per second) above which the
// server was not idle before a child: kube-apiserver idles at 0-20 ms/s
// here, and a window at half a CPU or more (etcd's compaction, the previous
// child's garbage) leaves the discount, and so the child's share, unknown.
const busyIdle = 0.1

var metrics = []metric{
	{"sync", func(r record) float64 { return r.SyncSeconds }, "s", false},
	{"sync CPU / object", func(r record) float64 { return 1e6 * r.SyncCPU / float64(max(r.N, 1)) }, "µs", false},
	{"retained / object", func(r record) float64 { return r.RetainedBytes }, "B", false},
	{"peak RSS, sync", func(r record) float64 { return float64(r.PeakRSSSync) / (1 << 20) }, "MiB", false},
	{"watch CPU / event", func(r record) float64 { return 1e6 * r.WatchCPU / float64(max(r.Events, 1)) }, "µs", false},
	{"p50 write→handler", func(r record) float64 { return r.P50 }, "ms", false},
	{"p99 write→handler", func(r record) float64 { return r.P99 }, "ms", false},
}

// group is every run of one variant at one size on one server.
type group struct {
	server, variant string
	n               int
	runs            []record
}

func (g *group) values(m metric) []float64 {
	out := make([]float64, 0, len(g.runs))
	for _, r := range g.runs {
		if m.server && r.Idle.API > busyIdle {
			continue
		}
		out = append(out, m.get(r))
	}
	slices.Sort(out)
	return out
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

func readRecords(files []string) ([]record, error) {
	var out []record
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var r record
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				fh.Close()
				return nil, fmt.Errorf("compare: %s: %w", f, err)
			}
			out = append(out, r)
		}
		fh.Close()
	}
	return out, nil
}

func key(r record, rated bool) string {
	v := r.Variant
	if r.Opts != "" {
		v += ":" + r.Opts
	}
	if rated {
		v += fmt.Sprintf(" @%g/s", r.Rate)
	}
	return v
}

// groups collects records by server, size and variant (and write rate,
// when the records hold several), in first-seen order.
func groups(recs []record) []*group {
	rates := map[float64]bool{}
	for _, r := range recs {
		rates[r.Rate] = true
	}
	rated := len(rates) > 1
	var out []*group
	idx := map[string]*group{}
	for _, r := range recs {
		k := fmt.Sprintf("%s/%d/%s", r.Server, r.N, key(r, rated))
		g := idx[k]
		if g == nil {
			g = &group{server: r.Server, variant: key(r, rated), n: r.N}
			idx[k] = g
			out = append(out, g)
		}
		g.runs = append(g.runs, r)
	}
	slices.SortStableFunc(out, func(a, b *group) int {
		if a.server != b.server {
			return strings.Compare(b.server, a.server) // kube first
		}
		return a.n - b.n
	})
	return out
}

func writeReport(files []string, outPath string) error {
	recs, err := readRecords(files)
	if err != nil {
		return err
	}
	var w io.Writer = os.Stdout
	if outPath != "-" {
		f, err := os.Create(outPath)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	gs := groups(recs)
	for _, server := range []string{"kube", "fake"} {
		var sg []*group
		for _, g := range gs {
			if g.server == server {
				sg = append(sg, g)
			}
		}
		if len(sg) == 0 {
			continue
		}
		writeServer(w, server, sg)
	}
	return nil
}

var serverTitle = map[string]string{
	"kube": "a real kube-apiserver v1.37.2 with etcd, over TLS on loopback",
	"fake": "cmd/fakeapiserver in its own process, over TLS on loopback",
}

func writeServer(w io.Writer, server string, gs []*group) {
	fmt.Fprintf(w, "### Server: %s\n\n", serverTitle[server])
	lo, hi, size := len(gs[0].runs), 0, 0.0
	for _, g := range gs {
		lo, hi = min(lo, len(g.runs)), max(hi, len(g.runs))
		size = g.runs[0].ObjSize
	}
	// Runs appended at different times (run.sh -append) leave some rows
	// with more runs than others.
	runs := fmt.Sprint(hi)
	if lo != hi {
		runs = fmt.Sprintf("%d to %d", lo, hi)
	}
	fmt.Fprintf(w, "Pods of %.1f KB as listed. Medians of %s runs, (min–max) beside them; every run is a fresh child process.\n\n", size/1000, runs)
	writeHeader(w, []string{"pods", "informer"}, metrics, "note")
	for _, g := range gs {
		fmt.Fprintf(w, "| %d | %s |", g.n, g.variant)
		for _, m := range metrics {
			fmt.Fprintf(w, " %s |", cell(g.values(m)))
		}
		fmt.Fprintf(w, " %s |\n", g.runs[0].Note)
	}
	fmt.Fprintln(w)
	writeCluster(w, gs)
	writeTargets(w, gs)
	writeScale(w, gs)
}

// writeHeader writes a table's header: the lead columns, one per metric
// with its unit, and a trailing column unless trail is "".
func writeHeader(w io.Writer, lead []string, cols []metric, trail string) {
	names := slices.Clone(lead)
	for _, m := range cols {
		names = append(names, fmt.Sprintf("%s (%s)", m.name, m.unit))
	}
	if trail != "" {
		names = append(names, trail)
	}
	fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(names, " | "), strings.Repeat("---|", len(names)))
}

// writeRatios writes a targets table under its title, when it has rows.
func writeRatios(w io.Writer, title, header, rows string) {
	if rows == "" {
		return
	}
	fmt.Fprintf(w, "%s\n\n%s\n|%s\n%s\n", title, header, strings.Repeat("---|", strings.Count(header, "|")-1), rows)
}

func cell(v []float64) string {
	if len(v) == 0 {
		return "—"
	}
	if len(v) == 1 {
		return num(v[0])
	}
	return fmt.Sprintf("%s (%s–%s)", num(median(v)), num(v[0]), num(v[len(v)-1]))
}

func num(x float64) string {
	switch {
	case x >= 1000:
		return fmt.Sprintf("%.0f", x)
	case x >= 10:
		return fmt.Sprintf("%.1f", x)
	default:
		return fmt.Sprintf("%.3g", x)
	}
}
