// Package probe is the measuring half of the comparison: every child
// process (one informer variant, client-go's or zerokube's) runs Main,
// which times the sync, weighs the cache, and records write-to-handler
// latencies, then prints one JSON Result for the driver. It imports neither
// client-go nor zerokube's informer, so the two children carry only their
// own library (client-go's scheme registration would otherwise inflate
// zerokube's heap and RSS).
package probe

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// LabelWritten is the label the driver sets on every write of the watch
// phase: the writer's clock in Unix nanoseconds when it sent the request.
const LabelWritten = "zk-bench-written"

// The lines a child prints on stdout before its Result, each a JSON
// object {"phase": ...}, so the driver can read the server's CPU counters at
// the phase boundaries:
const (
	// PhaseSyncEnd: the informer has synced and its handler has seen every
	// object; printed before anything else happens (the heap's weighing).
	PhaseSyncEnd = "sync-end"
	// PhaseSynced: the child is ready for the watch phase's writes.
	PhaseSynced = "synced"
)

// Flags is what the driver tells a child.
type Flags struct {
	Variant    string
	Kubeconfig string
	N          int           // objects the sync must deliver
	Events     int           // updates the watch phase will write
	Timeout    time.Duration // for each phase
	Profile    string        // CPU profile of the whole child, "" for none
	WatchProf  string        // CPU profile of the watch phase only
	Opts       string        // variant options (comma-separated words); "procs1" (any child): GOMAXPROCS=1
	// Idle is a window after the sync in which nothing is written: its CPU
	// is what the informer costs with no events (timers, bookmarks, GC of
	// the cached heap), to tell apart from what each event costs.
	Idle time.Duration
}

// ParseFlags reads the child's command line.
func ParseFlags() Flags {
	var f Flags
	flag.StringVar(&f.Variant, "variant", "", "variant name")
	flag.StringVar(&f.Kubeconfig, "kubeconfig", "", "kubeconfig of the server")
	flag.IntVar(&f.N, "n", 0, "objects to sync")
	flag.IntVar(&f.Events, "events", 0, "updates of the watch phase")
	flag.DurationVar(&f.Timeout, "timeout", 5*time.Minute, "deadline of each phase")
	flag.StringVar(&f.Profile, "cpuprofile", "", "write a CPU profile here (of the sync only when -watch-cpuprofile is set)")
	flag.StringVar(&f.WatchProf, "watch-cpuprofile", "", "write a CPU profile of the watch phase here")
	flag.StringVar(&f.Opts, "opts", "", "variant options")
	flag.DurationVar(&f.Idle, "idle", 0, "measure the CPU of this long a window without writes before the watch phase")
	flag.Parse()
	return f
}

// Result is one child's measurement.
type Result struct {
	Variant       string  `json:"variant"`
	N             int     `json:"n"`
	SyncSeconds   float64 `json:"sync_s"`
	SyncCPU       float64 `json:"sync_cpu_s"`
	RetainedBytes float64 `json:"retained_b_per_obj"`
	PeakRSSSync   int64   `json:"peak_rss_sync_b"`      // VmHWM once synced
	PeakRSS       int64   `json:"peak_rss_b"`           // VmHWM at the end
	IdleSeconds   float64 `json:"idle_s,omitempty"`     // the window without writes
	IdleCPU       float64 `json:"idle_cpu_s,omitempty"` // CPU spent in it
	Events        int     `json:"events"`
	WatchSeconds  float64 `json:"watch_s,omitempty"` // from "synced" to the last event handled
	WatchCPU      float64 `json:"watch_cpu_s"`
	WatchFaults   int64   `json:"watch_faults,omitempty"`   // minor page faults in the watch phase
	WatchSwitches int64   `json:"watch_switches,omitempty"` // context switches (voluntary and not) in it
	P50           float64 `json:"p50_ms"`
	P99           float64 `json:"p99_ms"`
	Max           float64 `json:"max_ms"`
	Note          string  `json:"note,omitempty"`
}

// Recorder keeps the latency of every labelled update.
type Recorder struct {
	lat  []int64
	n    atomic.Int64
	want int64
	done chan struct{}
}

func newRecorder(want int) *Recorder {
	r := &Recorder{lat: make([]int64, max(want, 1)), want: int64(want), done: make(chan struct{})}
	if want == 0 {
		close(r.done)
	}
	return r
}

// Observe records the latency of an update whose labels carry
// LabelWritten; other updates are ignored. Safe for concurrent use.
func (r *Recorder) Observe(labels map[string]string) {
	now := time.Now().UnixNano()
	v, ok := labels[LabelWritten]
	if !ok {
		return
	}
	w, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return
	}
	k := r.n.Add(1) - 1
	if k < int64(len(r.lat)) {
		r.lat[k] = now - w
	}
	if k+1 == r.want {
		close(r.done)
	}
}

// Counter counts the adds of the initial sync.
type Counter struct{ n atomic.Int64 }

// Add counts one add.
func (c *Counter) Add() { c.n.Add(1) }

// Load returns the adds so far.
func (c *Counter) Load() int { return int(c.n.Load()) }

// Start starts an informer and returns once it has synced and its handler
// has seen every object of the initial list; keep returns what must stay
// reachable (the informer) so the heap measurement counts it.
type Start func(ctx context.Context, f Flags, adds *Counter, rec *Recorder) (keep any, err error)

// Main runs a child: sync, weigh, watch, report on stdout. The driver
// starts its writes when it reads the "synced" line.
func Main(start Start) {
	f := ParseFlags()
	if err := run(f, start); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", f.Variant, err)
		os.Exit(1)
	}
}

func run(f Flags, start Start) error {
	if Has(f.Opts, "procs1") {
		// A diagnostic for either library: with one P, a goroutine made
		// ready never wakes a second thread, so what this saves is the
		// cost of the wakeups between threads.
		runtime.GOMAXPROCS(1)
	}
	stopProfile, err := profile(f.Profile)
	if err != nil {
		return err
	}
	defer func() { stopProfile() }()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	base := liveHeap()
	cpu0, t0 := CPU(), time.Now()
	adds, rec := new(Counter), newRecorder(f.Events)
	sctx, scancel := context.WithTimeout(ctx, f.Timeout)
	keep, err := start(sctx, f, adds, rec)
	scancel()
	if err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	res := Result{Variant: f.Variant, N: f.N, SyncSeconds: time.Since(t0).Seconds(), SyncCPU: (CPU() - cpu0).Seconds()}
	printPhase(PhaseSyncEnd)
	res.PeakRSSSync = peakRSS()
	res.RetainedBytes = float64(int64(liveHeap())-int64(base)) / float64(max(f.N, 1))
	if f.WatchProf != "" {
		stopProfile()
		stopProfile = func() {}
	}
	if f.Idle > 0 {
		// The watch is open and nothing is written until "synced" below.
		cpu, t := CPU(), time.Now()
		time.Sleep(f.Idle) // the window itself, not a wait for a condition
		res.IdleCPU, res.IdleSeconds = (CPU() - cpu).Seconds(), time.Since(t).Seconds()
	}
	if f.WatchProf != "" {
		if stopProfile, err = profile(f.WatchProf); err != nil {
			return err
		}
	}
	printPhase(PhaseSynced)
	faults, switches := counts()
	cpu1, t1 := CPU(), time.Now()
	select {
	case <-rec.done:
	case <-time.After(f.Timeout):
		res.Note = fmt.Sprintf("watch: %d of %d events before the deadline", rec.n.Load(), f.Events)
	}
	res.WatchCPU, res.WatchSeconds = (CPU() - cpu1).Seconds(), time.Since(t1).Seconds()
	f1, s1 := counts()
	res.WatchFaults, res.WatchSwitches = f1-faults, s1-switches
	res.Events = int(min(rec.n.Load(), int64(len(rec.lat))))
	res.P50, res.P99, res.Max = quantiles(rec.lat[:res.Events])
	res.PeakRSS = peakRSS()
	runtime.KeepAlive(keep)
	if n, _ := note.Load().(string); n != "" && res.Note == "" {
		res.Note = n
	}
	out, err := json.Marshal(res)
	if err != nil {
		return err
	}
	fmt.Println(string(out))
	return nil
}

func printPhase(p string) { fmt.Printf("{\"phase\":%q}\n", p) }

// quantiles returns p50, p99 and max of nanosecond latencies, in ms.
func quantiles(lat []int64) (p50, p99, mx float64) {
	if len(lat) == 0 {
		return 0, 0, 0
	}
	s := slices.Clone(lat)
	slices.Sort(s)
	at := func(q float64) float64 { return float64(s[int(q*float64(len(s)-1))]) / 1e6 }
	return at(0.5), at(0.99), at(1)
}

// liveHeap is the heap reachable after two full collections. It returns
// no memory to the OS (debug.FreeOSMemory used to, for nothing HeapAlloc
// needs): the watch phase that follows then faulted its heap back in, a
// page fault per event or two for zerokube and four more for client-go,
// which a long-running informer does not pay.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// CPU is the process's user plus system CPU time so far.
func CPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// counts returns the process's minor page faults and context switches so
// far: what a wakeup-bound phase spends its system time on.
func counts() (faults, switches int64) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return ru.Minflt, ru.Nvcsw + ru.Nivcsw
}

// peakRSS is the process's high-water resident set (VmHWM), in bytes.
func peakRSS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Maxrss << 10 // kilobytes on Linux
}

// Has reports whether opts, words separated by commas or "+" (the driver
// splits its -variants at commas, so "stream+json" passes two), contain word.
func Has(opts, word string) bool {
	return slices.Contains(strings.FieldsFunc(opts, func(r rune) bool { return r == ',' || r == '+' }), word)
}

// ErrCount is returned when a sync delivered the wrong number of objects.
var ErrCount = errors.New("probe: wrong number of objects")

var note atomic.Value

// SetNote attaches a remark (such as the protocol a library chose) to the
// Result.
func SetNote(s string) { note.Store(s) }
