//go:build !unix

package bench

import "time"

// ProcessCPU is not available on this system: it returns 0, and benchmarks
// report no CPU ratios.
func ProcessCPU() time.Duration { return 0 }
