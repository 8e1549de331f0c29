package shapes

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/zerokube/zerokube/bench/fleet"
)

// Sample is one shape's requests in one round: what they cost.
type Sample struct {
	Shape    string `json:"shape"`
	Round    int    `json:"round"`
	Objects  int    `json:"objects"`
	Requests int    `json:"requests"`
	// APIServer and Etcd are the servers' CPU seconds over the requests,
	// less their idle rate over the same wall time; Client is this
	// process's (decoding included).
	APIServer float64 `json:"apiserver_s"`
	Etcd      float64 `json:"etcd_s"`
	Client    float64 `json:"client_s"`
	Wall      float64 `json:"wall_s"`
	// PeakRSS is how far the API server's resident memory rose above
	// where it was when the shape began (VmHWM after ResetPeak), in MiB: 0
	// when not read.
	PeakRSS float64 `json:"apiserver_peak_rss_mib"`
	// Load is the machine's 1-minute load average when the round began.
	Load float64 `json:"load"`
}

// Procs are the processes whose CPU a sample reads (0: none).
type Procs struct{ APIServer, Etcd int }

// Runner runs rounds of shapes against one target.
type Runner struct {
	Target Target
	Procs  Procs
	Shapes []Shape
	// Idle is how long a round watches the idle servers for their rate
	// before its shapes; default 2 s.
	Idle time.Duration
	// Seed orders the shapes of each round (a shuffle of its own per round).
	Seed uint64
	Log  *slog.Logger
}

// Round runs every shape once, in an order of its own, and hands each
// sample to out. The caller holds the measure lock (Lock).
func (r Runner) Round(ctx context.Context, round int, out func(Sample) error) error {
	idle := r.Idle
	if idle <= 0 {
		idle = 2 * time.Second
	}
	load := loadAvg()
	// The first request of a kind builds what later ones reuse (decode
	// plans, the server's encoders): one node's worth of each, unmeasured.
	warm := r.Target
	warm.Nodes = warm.Nodes[:min(1, len(warm.Nodes))]
	for _, s := range r.Shapes {
		if s.PerNode {
			if _, _, err := Do(ctx, warm, s); err != nil {
				return err
			}
		}
	}
	rates, err := r.idleRates(ctx, idle)
	if err != nil {
		return err
	}
	order := append([]Shape(nil), r.Shapes...)
	rng := rand.New(rand.NewPCG(r.Seed, uint64(round)))
	rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	for _, s := range order {
		runtime.GC() // the last shape's garbage is not this one's
		base, err := r.resetPeak()
		if err != nil {
			return err
		}
		before, err := r.read()
		if err != nil {
			return err
		}
		start := time.Now()
		objects, requests, err := Do(ctx, r.Target, s)
		wall := time.Since(start)
		if err != nil {
			return err
		}
		after, err := r.read()
		if err != nil {
			return err
		}
		peak, err := r.peak(base)
		if err != nil {
			return err
		}
		smp := Sample{PeakRSS: peak, Shape: s.String(), Round: round, Objects: objects, Requests: requests,
			APIServer: (after[0] - before[0] - time.Duration(rates[0]*float64(wall))).Seconds(),
			Etcd:      (after[1] - before[1] - time.Duration(rates[1]*float64(wall))).Seconds(),
			Client:    (after[2] - before[2]).Seconds(), Wall: wall.Seconds(), Load: load}
		if r.Log != nil {
			r.Log.Info("shape", "round", round, "shape", smp.Shape, "objects", objects, "apiserver_us_per_obj",
				perObject(smp.APIServer, objects), "client_us_per_obj", perObject(smp.Client, objects), "wall", wall)
		}
		if err := out(smp); err != nil {
			return err
		}
	}
	return nil
}

func perObject(s float64, n int) int {
	if n == 0 {
		return 0
	}
	return int(s * 1e6 / float64(n))
}

// idleRates are the servers' CPU per second of wall time while nothing is
// asked of them.
func (r Runner) idleRates(ctx context.Context, d time.Duration) ([2]float64, error) {
	before, err := r.read()
	if err != nil {
		return [2]float64{}, err
	}
	start := time.Now()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return [2]float64{}, ctx.Err()
	case <-t.C:
	}
	after, err := r.read()
	if err != nil {
		return [2]float64{}, err
	}
	wall := float64(time.Since(start))
	return [2]float64{float64(after[0]-before[0]) / wall, float64(after[1]-before[1]) / wall}, nil
}

// resetPeak restarts the API server's peak RSS and returns its RSS now.
func (r Runner) resetPeak() (int64, error) {
	if r.Procs.APIServer == 0 {
		return 0, nil
	}
	if err := fleet.ResetPeak(r.Procs.APIServer); err != nil {
		return 0, err
	}
	m, err := fleet.ProcMem(r.Procs.APIServer)
	return m.RSS, err
}

// peak is how far the API server's peak RSS since resetPeak rose above
// base, in MiB.
func (r Runner) peak(base int64) (float64, error) {
	if r.Procs.APIServer == 0 {
		return 0, nil
	}
	m, err := fleet.ProcMem(r.Procs.APIServer)
	return float64(m.Peak-base) / (1 << 20), err
}

// read is the API server's, etcd's and this process's CPU so far.
func (r Runner) read() ([3]time.Duration, error) {
	var out [3]time.Duration
	for i, pid := range []int{r.Procs.APIServer, r.Procs.Etcd} {
		if pid == 0 {
			continue
		}
		d, err := CPU(pid)
		if err != nil {
			return out, err
		}
		out[i] = d
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return out, fmt.Errorf("shapes: getrusage: %w", err)
	}
	out[2] = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return out, nil
}

// CPU is the time process pid's threads have spent on a CPU, in
// nanoseconds: the first field of each /proc/PID/task/TID/schedstat,
// summed. /proc/PID/stat counts in 10 ms ticks, too coarse for a request
// that costs the server a few milliseconds. (A thread that exits takes its
// time with it; the Go runtime keeps its threads.)
func CPU(pid int) (time.Duration, error) {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return 0, fmt.Errorf("shapes: CPU of %d: %w", pid, err)
	}
	var sum time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile(filepath.Join(dir, t.Name(), "schedstat"))
		if err != nil {
			if os.IsNotExist(err) {
				continue // the thread exited since ReadDir
			}
			return 0, fmt.Errorf("shapes: CPU of %d: %w", pid, err)
		}
		f := bytes.Fields(b)
		if len(f) == 0 {
			return 0, fmt.Errorf("shapes: CPU of %d: empty %s/%s/schedstat", pid, dir, t.Name())
		}
		ns, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("shapes: CPU of %d: %s/%s/schedstat: %w", pid, dir, t.Name(), err)
		}
		sum += time.Duration(ns)
	}
	return sum, nil
}

// Lock takes an exclusive flock on path ("" takes none), as `flock FILE
// command` takes it: the machine-wide lock under which measurements run
// one at a time. It returns what releases it.
func Lock(path string) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return nil, fmt.Errorf("shapes: lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("shapes: lock %s: %w", path, err)
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}

// loadAvg is the 1-minute load average, 0 when unreadable.
func loadAvg() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}
