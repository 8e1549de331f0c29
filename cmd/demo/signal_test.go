package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSignalsStopTheProcessCleanly runs the demo as a real process (this
// test binary re-executed as main, see TestMain) and interrupts it as a
// terminal or a supervisor would.
func TestSignalsStopTheProcessCleanly(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), asMainEnv+"=1", argsEnv+"="+strings.Join([]string{"--churn=false", "--lang=en"}, "\n"))
			var stdout, stderr syncBuffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			require.NoError(t, cmd.Start())
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			waited := false
			t.Cleanup(func() {
				if !waited {
					_ = cmd.Process.Kill()
					<-exited
				}
			})
			waitFor(t, &stderr, regexp.MustCompile(`demo: synced 3 v1/pods`))
			waitFor(t, &stdout, regexp.MustCompile(`(?s)(Add:  default/example-\S+\n.*){3}`))
			require.NoError(t, cmd.Process.Signal(sig))
			select {
			case err := <-exited:
				waited = true
				require.NoError(t, err, "exit code 0 expected; stderr:\n%s", stderr.String())
			case <-time.After(waitTimeout):
				t.Fatalf("no exit within %v after %v; stderr:\n%s", waitTimeout, sig, stderr.String())
			}
			require.Contains(t, stderr.String(), "demo: stopping (interrupted)")
			require.Contains(t, stderr.String(), "demo: stopped the fake API server")
			require.Len(t, regexp.MustCompile(`(?m)^\d{4}-\S+ \S+ Add:  default/example-\S+$`).FindAllString(stdout.String(), -1), 3)
		})
	}
}
