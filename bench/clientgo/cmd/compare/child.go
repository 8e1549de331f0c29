package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/zerokube/zerokube/bench/clientgo/internal/probe"
)

// serverPhases is the server's CPU during one child's phases, each less
// the server's idle rate over the same window (measured just before the
// child started).
type serverPhases struct {
	Idle  idleRate  `json:"server_idle"`
	Sync  serverCPU `json:"server_sync"`  // from the child's start to its "sync-end" line
	Watch serverCPU `json:"server_watch"` // from its "synced" line to its result
}

// runChild runs variant v ("name" or "name:opts") against srv with n pods:
// it measures the server's idle CPU, starts the child, samples the server's
// CPU when the child's sync ends ("sync-end" line) and when its watch
// phase starts ("synced"), writes c.events updates, and reads the child's
// Result, sampling the server once more.
func runChild(ctx context.Context, c config, srv *server, ld *loader, v string, n, rep int, rate float64) (probe.Result, serverPhases, error) {
	var ph serverPhases
	name, opts, _ := strings.Cut(v, ":")
	bin := "zkchild"
	if strings.HasPrefix(name, "cg-") {
		bin = "cgchild"
	}
	var err error
	if ph.Idle, err = measureIdle(srv, c.serverIdle); err != nil {
		return probe.Result{}, ph, err
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(c.bin, bin),
		"-variant", name, "-opts", opts, "-kubeconfig", srv.Kubeconfig,
		"-n", strconv.Itoa(n), "-events", strconv.Itoa(c.events), "-cpuprofile", profilePath(c, v, n, rep, rate), "-watch-cpuprofile", watchProfilePath(c, v, n, rep, rate),
		"-idle", c.idle.String())
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return probe.Result{}, ph, err
	}
	s0, err := sample(srv)
	if err != nil {
		return probe.Result{}, ph, err
	}
	if err := cmd.Start(); err != nil {
		return probe.Result{}, ph, err
	}
	defer func() { _ = cmd.Wait() }() // after a failure: the context kills it
	sc := bufio.NewScanner(stdout)
	fail := func(err error) (probe.Result, serverPhases, error) { cancel(); return probe.Result{}, ph, err }
	s1, err := awaitPhase(sc, srv, probe.PhaseSyncEnd)
	if err != nil {
		return fail(fmt.Errorf("compare: %s n=%d: %w", v, n, err))
	}
	s2, err := awaitPhase(sc, srv, probe.PhaseSynced)
	if err != nil {
		return fail(fmt.Errorf("compare: %s n=%d: %w", v, n, err))
	}
	if err := writeUpdates(ctx, srv, ld, c.events, rate, rep); err != nil {
		return fail(err)
	}
	if !sc.Scan() {
		return fail(fmt.Errorf("compare: %s n=%d printed no result", v, n))
	}
	s3, err := sample(srv)
	if err != nil {
		return fail(err)
	}
	ph.Sync, ph.Watch = between(s0, s1, ph.Idle), between(s2, s3, ph.Idle)
	var res probe.Result
	if err := json.Unmarshal(sc.Bytes(), &res); err != nil {
		return res, ph, fmt.Errorf("compare: %s: %w", v, err)
	}
	return res, ph, cmd.Wait()
}

// awaitPhase reads the child's next line, which must announce phase, and
// samples the server's CPU as soon as it has.
func awaitPhase(sc *bufio.Scanner, srv *server, phase string) (serverSample, error) {
	if !sc.Scan() {
		return serverSample{}, fmt.Errorf("ended before its %q line", phase)
	}
	if !strings.Contains(sc.Text(), `"`+phase+`"`) {
		return serverSample{}, fmt.Errorf("printed %q where its %q line belongs (did it fail to sync?)", sc.Text(), phase)
	}
	return sample(srv)
}
