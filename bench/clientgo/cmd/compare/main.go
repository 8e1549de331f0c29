// Command compare is the driver of the client-go comparison: it starts one
// API server (fakeapiserver, or a real kube-apiserver with etcd when their
// binaries are built), loads it with pods of the client-go workload, and for
// every size and variant starts a child process (cmd/zkchild or
// cmd/cgchild) that syncs one informer; once the child has synced, the
// driver writes updates at a fixed rate and the child times each from the
// write to its handler. Results go to a JSON-lines file, one line per
// child; -report turns such files into the Markdown tables of
// bench/RESULTS.md. bench/clientgo/run.sh runs the whole thing.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/zerokube/zerokube/bench/clientgo/internal/probe"
)

// config is the driver's command line.
type config struct {
	server     string // "fake" or "kube"
	bin        string // directory with zkchild, cgchild and fakeapiserver
	sizes      []int
	bigSizes   []int // sizes run only for bigVariants
	variants   []string
	bigVars    []string
	reps       int
	events     int
	rates      []float64 // the watch phase is run at each
	idle       time.Duration
	serverIdle time.Duration
	out        string
	profileDir string
	watchProf  bool
	report     string
	reportOut  string
}

func parseFlags() config {
	var c config
	var sizes, big, vars, bigVars, rates string
	flag.StringVar(&c.server, "server", "fake", "fake (cmd/fakeapiserver) or kube (kube-apiserver + etcd)")
	flag.StringVar(&c.bin, "bin", "", "directory holding zkchild, cgchild and fakeapiserver")
	flag.StringVar(&sizes, "sizes", "2000,10000,50000", "pod counts, ascending")
	flag.StringVar(&big, "big", "100000", "larger pod counts run for -big-variants only")
	flag.StringVar(&vars, "variants", "cg-json,cg-proto,cg-json-strip,zk-raw,zk-full,zk-slim", "variants (name or name:opts); \"readme\" stands for the README table's twelve")
	flag.StringVar(&bigVars, "big-variants", "zk-slim", "variants run at the -big sizes")
	flag.IntVar(&c.reps, "reps", 3, "runs of each variant at each size")
	flag.IntVar(&c.events, "events", 1000, "updates written in each child's watch phase")
	flag.StringVar(&rates, "rate", "250", "updates per second in the watch phase; a comma-separated list runs each variant at each rate")
	flag.DurationVar(&c.idle, "idle", 0, "before each watch phase, measure each child's CPU over this long a window without writes")
	flag.DurationVar(&c.serverIdle, "server-idle", 3*time.Second, "before each child, measure the server's idle CPU in windows of a second over this long (the lowest rate is discounted from its phases)")
	flag.StringVar(&c.out, "out", "results.jsonl", "append results here")
	flag.StringVar(&c.profileDir, "profile", "", "write each child's CPU profile into this directory")
	flag.BoolVar(&c.watchProf, "profile-watch", false, "with -profile: profile each child's watch phase apart from its sync")
	flag.StringVar(&c.report, "report", "", "only summarize these JSON-lines files (comma-separated)")
	flag.StringVar(&c.reportOut, "report-out", "-", "where -report writes its Markdown")
	flag.Parse()
	c.sizes, c.bigSizes = ints(sizes), ints(big)
	c.variants, c.bigVars = variantWords(vars), variantWords(bigVars)
	for _, w := range words(rates) {
		r, err := strconv.ParseFloat(w, 64)
		if err != nil || r <= 0 {
			log.Fatalf("compare: -rate %q is not a positive number", w)
		}
		c.rates = append(c.rates, r)
	}
	return c
}

func ints(s string) []int {
	var out []int
	for _, w := range words(s) {
		n, err := strconv.Atoi(w)
		if err != nil {
			log.Fatalf("compare: %q is not a number", w)
		}
		out = append(out, n)
	}
	return out
}

// readmeVariants are the rows of the README's comparison table, each mode
// beside the same mode: one name reproduces the table.
var readmeVariants = []string{
	"cg-proto:list", "zk-slim:list", "zk-raw:list", "cg-json:list", "zk-meta:list", "cg-meta:list",
	"cg-proto:stream", "zk-slim:stream", "zk-raw:stream", "cg-json:stream", "zk-meta:stream", "cg-meta:stream",
}

// variantWords is words with "readme" replaced by readmeVariants.
func variantWords(s string) []string {
	var out []string
	for _, w := range words(s) {
		if w == "readme" {
			out = append(out, readmeVariants...)
			continue
		}
		out = append(out, w)
	}
	return out
}

func words(s string) []string {
	var out []string
	for _, w := range strings.Split(s, ",") {
		if w = strings.TrimSpace(w); w != "" {
			out = append(out, w)
		}
	}
	return out
}

func main() {
	log.SetFlags(log.Ltime)
	c := parseFlags()
	if c.report != "" {
		if err := writeReport(words(c.report), c.reportOut); err != nil {
			log.Fatal(err)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := drive(ctx, c); err != nil {
		log.Fatal(err)
	}
}

// record is one line of the results file.
type record struct {
	Server string    `json:"server"`
	Date   time.Time `json:"date"`
	probe.Result
	Opts    string  `json:"opts,omitempty"`
	Rate    float64 `json:"rate,omitempty"` // updates per second written in the watch phase
	ObjSize float64 `json:"obj_bytes"`      // mean JSON size of a listed pod
	serverPhases
}

func drive(ctx context.Context, c config) error {
	srv, err := startServer(ctx, c)
	if err != nil {
		return err
	}
	defer srv.Close()
	ld, err := newLoader(ctx, srv)
	if err != nil {
		return err
	}
	out, err := os.OpenFile(c.out, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer out.Close()
	type step struct {
		n    int
		vars []string
	}
	var steps []step
	for _, n := range c.sizes {
		steps = append(steps, step{n, c.variants})
	}
	for _, n := range c.bigSizes {
		steps = append(steps, step{n, c.bigVars})
	}
	for _, st := range steps {
		t := time.Now()
		if err := ld.loadTo(ctx, st.n); err != nil {
			return err
		}
		size, err := ld.meanSize(ctx)
		if err != nil {
			return err
		}
		log.Printf("%s: %d pods loaded (%.1f KB each as listed) in %s", c.server, st.n, size/1000, time.Since(t).Round(time.Second))
		// Both servers serve every variant: the fake speaks protobuf
		// (PartialObjectMetadata included) as kube-apiserver does.
		vars := st.vars
		for _, rate := range c.rates {
			for rep := range c.reps {
				for k := range vars {
					v := vars[(k+rep)%len(vars)] // rotate the order between reps
					if err := runOne(ctx, c, srv, ld, out, v, st.n, rep, rate, size); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// runOne runs one child and appends its record to out.
func runOne(ctx context.Context, c config, srv *server, ld *loader, out *os.File, v string, n, rep int, rate, size float64) error {
	res, ph, err := runChild(ctx, c, srv, ld, v, n, rep, rate)
	if err != nil {
		return err
	}
	name, opts, _ := strings.Cut(v, ":")
	res.Variant = name
	rec := record{Server: c.server, Date: time.Now().UTC(), Result: res, Opts: opts, Rate: rate, ObjSize: size, serverPhases: ph}
	line, _ := json.Marshal(rec)
	if _, err := out.Write(append(line, '\n')); err != nil {
		return err
	}
	var idle string
	if res.IdleSeconds > 0 {
		idle = fmt.Sprintf(" idle %.1f ms/s", 1e3*res.IdleCPU/res.IdleSeconds)
	}
	ev := float64(max(res.Events, 1))
	log.Printf("%s n=%d %s: server sync %.2fs (etcd %.2fs), watch %.0f µs/event; idle %.0f ms/s", c.server, n, v,
		ph.Sync.API, ph.Sync.Etcd, 1e6*ph.Watch.API/float64(max(res.Events, 1)), 1e3*ph.Idle.API)
	log.Printf("%s n=%d %s @%g/s: sync %.2fs cpu %.2fs retained %.0f B/obj rss %d MB watch %.0f µs/event (%.2fs, %.1f faults and %.1f switches/event)%s p50 %.2f ms p99 %.2f ms %s",
		c.server, n, v, rate, res.SyncSeconds, res.SyncCPU, res.RetainedBytes, res.PeakRSSSync>>20,
		1e6*res.WatchCPU/ev, res.WatchSeconds, float64(res.WatchFaults)/ev, float64(res.WatchSwitches)/ev, idle, res.P50, res.P99, res.Note)
	return nil
}

func profilePath(c config, v string, n, rep int, rate float64) string {
	if c.profileDir == "" {
		return ""
	}
	return filepath.Join(c.profileDir, profileName(c, v, n, rep, rate)+".pprof")
}

func watchProfilePath(c config, v string, n, rep int, rate float64) string {
	if c.profileDir == "" || !c.watchProf {
		return ""
	}
	return filepath.Join(c.profileDir, profileName(c, v, n, rep, rate)+".watch.pprof")
}

// profileName names a child's profiles; the rate only when there are several.
func profileName(c config, v string, n, rep int, rate float64) string {
	name := fmt.Sprintf("%s-%s-%d-%d", c.server, strings.ReplaceAll(v, ":", "_"), n, rep)
	if len(c.rates) > 1 {
		name += fmt.Sprintf("-r%g", rate)
	}
	return name
}
