package main

import (
	"context"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/zerokube/zerokube/internal/testutil"
)

// asMainEnv makes the test binary run the demo's main instead of the tests,
// so a test can start the real program as a process and send it signals.
// The demo's arguments come from argsEnv, separated by newlines.
const (
	asMainEnv = "ZEROKUBE_DEMO_AS_MAIN"
	argsEnv   = "ZEROKUBE_DEMO_ARGS"
)

func TestMain(m *testing.M) {
	if os.Getenv(asMainEnv) == "1" {
		os.Args = []string{"demo"}
		if a := os.Getenv(argsEnv); a != "" {
			os.Args = append(os.Args, strings.Split(a, "\n")...)
		}
		main()
		return
	}
	goleak.VerifyTestMain(m)
}

// articleRE is the article's output line, exactly: the timestamp, the
// verb, a colon, TWO spaces (Println between "Add: " and the key) and the key.
var articleRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} (Add|Update|Delete):  \S+$`)

// waitTimeout bounds every wait for output; generous for loaded CI machines.
const waitTimeout = 20 * time.Second

// syncBuffer is the demo's stdout or stderr as the test reads it while the
// demo's goroutines write it.
type syncBuffer struct{ testutil.SyncBuffer }

func (s *syncBuffer) lines() []string {
	return strings.Split(strings.TrimRight(s.String(), "\n"), "\n")
}

// waitFor polls buf until re matches it or the deadline passes, and
// returns the first match's submatches.
func waitFor(t testing.TB, buf *syncBuffer, re *regexp.Regexp) []string {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for time.Now().Before(deadline) {
		if m := re.FindStringSubmatch(buf.String()); m != nil {
			return m
		}
		<-tick.C
	}
	t.Fatalf("no match for %q within %v; output so far:\n%s", re, waitTimeout, buf.String())
	return nil
}

// running is a demo started in-process.
type running struct {
	stdout, stderr *syncBuffer
	cancel         context.CancelFunc
	done           chan int // receives the exit code
}

// startDemo runs the demo with args until the test ends (or stop is called).
func startDemo(t testing.TB, args ...string) *running {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{stdout: &syncBuffer{}, stderr: &syncBuffer{}, cancel: cancel, done: make(chan int, 1)}
	if !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--lang") }) {
		// The tests read the English words whatever the developer's LANG.
		args = append([]string{"--lang=en"}, args...)
	}
	go func() { r.done <- run(ctx, args, r.stdout, r.stderr) }()
	t.Cleanup(func() { r.stop(t) })
	return r
}

// stop interrupts the demo and returns its exit code (once; later calls
// return -1).
func (r *running) stop(t testing.TB) int {
	t.Helper()
	r.cancel()
	select {
	case code, ok := <-r.done:
		if !ok {
			return -1
		}
		close(r.done)
		return code
	case <-time.After(waitTimeout):
		t.Fatalf("demo did not stop within %v; stderr:\n%s", waitTimeout, r.stderr.String())
		return -1
	}
}

// serverURL waits for the banner and returns the embedded server's URL.
func (r *running) serverURL(t testing.TB) string {
	t.Helper()
	return waitFor(t, r.stderr, regexp.MustCompile(`fake API server at (\S+)`))[1]
}
