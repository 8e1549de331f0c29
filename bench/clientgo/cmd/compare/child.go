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

// serverCPU is what the API server spent on one child: from its start to
// its "synced" line, and from there to its result; and its rate just
// before, with no child (its own loops, and what the last child's writes
// left it to do), recorded beside them rather than subtracted: measured,
// it varies too much from one window to the next to subtract.
type serverCPU struct{ sync, watch, idle float64 }

// runChild runs variant v ("name" or "name:opts") against srv with n pods:
// it waits for the child's "synced" line, writes c.events updates, and
// reads the child's Result, and measures the server's CPU over both phases.
func runChild(ctx context.Context, c config, srv *server, ld *loader, v string, n, rep int, rate float64) (probe.Result, serverCPU, error) {
	var sc serverCPU
	res, err := runChildMeasured(ctx, c, srv, ld, v, n, rep, rate, &sc)
	return res, sc, err
}

func runChildMeasured(ctx context.Context, c config, srv *server, ld *loader, v string, n, rep int, rate float64, scpu *serverCPU) (probe.Result, error) {
	idle, err := srv.idleRate(ctx)
	if err != nil {
		return probe.Result{}, err
	}
	cpu0, err := srv.cpu()
	if err != nil {
		return probe.Result{}, err
	}
	name, opts, _ := strings.Cut(v, ":")
	bin := "zkchild"
	if strings.HasPrefix(name, "cg-") {
		bin = "cgchild"
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(c.bin, bin),
		"-variant", name, "-opts", opts, "-kubeconfig", srv.kubeconfig,
		"-n", strconv.Itoa(n), "-events", strconv.Itoa(c.events), "-cpuprofile", profilePath(c, v, n, rep, rate), "-watch-cpuprofile", watchProfilePath(c, v, n, rep, rate),
		"-idle", c.idle.String())
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return probe.Result{}, err
	}
	if err := cmd.Start(); err != nil {
		return probe.Result{}, err
	}
	defer func() { _ = cmd.Wait() }() // after a failure: the context kills it
	sc := bufio.NewScanner(stdout)
	if !sc.Scan() || !strings.Contains(sc.Text(), `"synced"`) {
		cancel()
		return probe.Result{}, fmt.Errorf("compare: %s n=%d did not sync (%q)", v, n, sc.Text())
	}
	cpu1, err := srv.cpu()
	if err != nil {
		cancel()
		return probe.Result{}, err
	}
	scpu.sync, scpu.idle = cpu1-cpu0, idle
	if err := writeUpdates(ctx, srv, ld, c.events, rate, rep); err != nil {
		cancel()
		return probe.Result{}, err
	}
	if !sc.Scan() {
		cancel()
		return probe.Result{}, fmt.Errorf("compare: %s n=%d printed no result", v, n)
	}
	cpu2, err := srv.cpu()
	if err != nil {
		cancel()
		return probe.Result{}, err
	}
	scpu.watch = cpu2 - cpu1
	var res probe.Result
	if err := json.Unmarshal(sc.Bytes(), &res); err != nil {
		return res, fmt.Errorf("compare: %s: %w", v, err)
	}
	return res, cmd.Wait()
}
