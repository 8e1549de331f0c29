package workload_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Generate fans pod encoding out to goroutines; none may outlive it.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
