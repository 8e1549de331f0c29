package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// The API server's own CPU, read from /proc/PID/stat (utime and stime, in
// clock ticks): what the server spends serving one child's informer, its
// sync and its watch, beside the child's own. The write load of the watch
// phase is the driver's and the same for every variant, so watch-phase
// server CPU compares variants, not absolute costs.

// clockTicks is USER_HZ, 100 on every Linux the comparison runs on (the
// kernel's ABI fixes it for /proc).
const clockTicks = 100

// processCPU returns the CPU seconds process pid has used so far.
func processCPU(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) is in parentheses and may hold spaces:
	// fields are counted after its closing one.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("compare: /proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("compare: /proc/%d/stat: %d fields", pid, len(f))
	}
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	ut, err1 := strconv.ParseUint(f[11], 10, 64)
	st, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("compare: /proc/%d/stat: utime %q stime %q", pid, f[11], f[12])
	}
	return float64(ut+st) / clockTicks, nil
}

// idleWindow is how long idleRate watches the server without a client.
const idleWindow = 2 * time.Second

// idleRate measures the server's CPU per second over idleWindow with no
// child running, the baseline a child's phases are measured above.
func (s *server) idleRate(ctx context.Context) (float64, error) {
	a, err := s.cpu()
	if err != nil {
		return 0, err
	}
	t := time.Now()
	select {
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-time.After(idleWindow):
	}
	b, err := s.cpu()
	if err != nil {
		return 0, err
	}
	return (b - a) / time.Since(t).Seconds(), nil
}
