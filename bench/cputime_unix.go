//go:build unix

package bench

import (
	"syscall"
	"time"
)

// ProcessCPU returns the CPU time (user and system) the process has used so
// far. On a shared machine a benchmark that waits for the CPU loses wall
// time but not CPU time, so ratios of CPU times are steadier than ratios of
// wall times; the benchmarks report both.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
