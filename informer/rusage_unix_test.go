//go:build unix

package informer

import (
	"syscall"
	"time"
)

// usage is the process's CPU time and context switches (voluntary and
// not) so far: what a wake-up-bound path spends.
func usage() (cpu time.Duration, switches int64) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), ru.Nvcsw + ru.Nivcsw
}
