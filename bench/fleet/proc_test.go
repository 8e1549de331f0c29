package fleet

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestParseStat(t *testing.T) {
	// Fields 14 and 15 (utime, stime) after a command name that holds
	// spaces and parentheses: 250 and 70 ticks.
	line := "4242 (my (odd) cmd) S 1 4242 4242 0 -1 4194560 2000 0 0 0 250 70 0 0 20 0 12 0 100 1000000 500 18446744073709551615\n"
	d, err := parseStat([]byte(line))
	require.NoError(t, err)
	require.Equal(t, 3200*time.Millisecond, d)

	_, err = parseStat([]byte("4242 no parenthesis 1 2 3"))
	require.Error(t, err)
	_, err = parseStat([]byte("4242 (short) S 1 2"))
	require.ErrorContains(t, err, "fields after the name")
}

func TestParseStatus(t *testing.T) {
	status := "Name:\tagent\nVmPeak:\t  900000 kB\nVmHWM:\t   20480 kB\nVmRSS:\t   10240 kB\nRssAnon:\t 4096 kB\n"
	m, err := parseStatus([]byte(status))
	require.NoError(t, err)
	require.Equal(t, Mem{RSS: 10 << 20, Peak: 20 << 20, Anon: 4 << 20}, m)

	_, err = parseStatus([]byte("Name:\tkthread\n"))
	require.ErrorContains(t, err, "missing")
	_, err = parseStatus([]byte("VmHWM:\t 1 MB\nVmRSS:\t 1 kB\n"))
	require.ErrorContains(t, err, "unexpected line")
}

// The process's own counters: its CPU grows with work done, and a reset
// peak is no lower than the RSS.
func TestProcSelf(t *testing.T) {
	pid := os.Getpid()
	a, err := ProcCPU(pid)
	require.NoError(t, err)
	for deadline := time.Now().Add(10 * time.Second); ; {
		b, err := ProcCPU(pid)
		require.NoError(t, err)
		if b > a {
			break
		}
		require.True(t, time.Now().Before(deadline), "10 s of spinning moved no CPU counter")
	}
	require.NoError(t, ResetPeak(pid))
	m, err := ProcMem(pid)
	require.NoError(t, err)
	require.Positive(t, m.RSS)
	require.GreaterOrEqual(t, m.Peak, m.RSS)
}
