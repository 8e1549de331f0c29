package probe

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// profile starts a CPU profile into path ("" does nothing) and returns
// the function that ends it.
func profile(path string) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("probe: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("probe: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
