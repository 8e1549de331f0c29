//go:build unix

package docs

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/meta"
)

// agentWait bounds each wait for the README's agent: it is built and run
// as a process on a shared, loaded machine.
const agentWait = 60 * time.Second

// TestReadmeAgentRuns builds the README's agent example and runs it as the
// kubelet would, against the fake API server: it must do what the README
// says it does. It prints the pods, answers /healthz, labels the pods
// while it holds the Lease, and on SIGTERM (not only Ctrl-C) releases the
// Lease and saves the snapshot docs/agents.md says is saved at a clean
// stop. Regression: the example stopped only on os.Interrupt, so a
// kubelet's SIGTERM killed it holding its Lease and without a snapshot.
func TestReadmeAgentRuns(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH")
	}
	bin := buildReadmeExample(t, goTool)

	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: slog.New(slog.DiscardHandler)})
	pods := meta.GVR{Version: "v1", Resource: "pods"}
	for _, name := range []string{"a", "b"} {
		_, err := srv.Create(pods, map[string]any{"metadata": map[string]any{"name": name, "namespace": "default"},
			"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}}})
		require.NoError(t, err)
	}
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	require.NoError(t, srv.WriteKubeconfig(kubeconfig))
	snapshots := filepath.Join(dir, "snapshots")
	port := freePort(t)

	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "POD_IP=127.0.0.1", "PORT="+port, "SNAPSHOT_DIR="+snapshots)
	out := &lines{}
	cmd.Stdout, cmd.Stderr = out, out
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-exited
		}
	})

	out.await(t, regexp.MustCompile(`(?m)^Add: default/a Pending$`))
	out.await(t, regexp.MustCompile(`(?m)^Add: default/b Pending$`))
	res, err := http.Get("http://127.0.0.1:" + port + "/healthz")
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode, "/healthz of a synced agent")

	host, err := os.Hostname()
	require.NoError(t, err)
	leases := meta.GVR{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}
	awaitTrue(t, "the Lease held and both pods labelled seen-by="+host, func() bool {
		lease, err := srv.Get(leases, "default", "pod-agent")
		if err != nil || !strings.Contains(string(lease.Bytes()), `"holderIdentity":"`+host+`"`) {
			return false
		}
		for _, name := range []string{"a", "b"} {
			p, err := srv.Get(pods, "default", name)
			if err != nil || p.Labels["seen-by"] != host {
				return false
			}
		}
		return true
	})
	// A pod the agent learns of by its watch, after its last periodic
	// snapshot could have been taken: only the snapshot at stop has it.
	_, err = srv.Create(pods, map[string]any{"metadata": map[string]any{"name": "late", "namespace": "default"},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}}})
	require.NoError(t, err)
	out.await(t, regexp.MustCompile(`(?m)^Add: default/late Pending$`))

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-exited:
		require.NoError(t, err, "exit status 0 after SIGTERM; output:\n%s", out)
	case <-time.After(agentWait):
		t.Fatalf("the agent did not stop within %v of SIGTERM; output:\n%s", agentWait, out)
	}
	lease, err := srv.Get(leases, "default", "pod-agent")
	require.NoError(t, err)
	require.NotContains(t, string(lease.Bytes()), `"holderIdentity":"`+host+`"`, "SIGTERM released the Lease")
	files, err := os.ReadDir(snapshots)
	require.NoError(t, err, "no snapshot directory")
	saved := false
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(snapshots, f.Name()))
		require.NoError(t, err)
		saved = saved || bytes.Contains(b, []byte(`"late"`))
	}
	require.True(t, saved, "no snapshot written at the stop holds the pod added last (files: %v)", files)
}

// buildReadmeExample builds the README's Go block as a main package inside
// the module (in a _directory, which ./... ignores), against the code as it
// is now, offline, and returns the binary.
func buildReadmeExample(t *testing.T, goTool string) string {
	t.Helper()
	src := goBlock(t, read(t, "README.md"))
	require.Contains(t, src, "package main")
	dir, err := os.MkdirTemp(".", "_readme-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644))
	bin := filepath.Join(t.TempDir(), "agent")
	for _, args := range [][]string{{"vet", "./" + filepath.ToSlash(dir)}, {"build", "-o", bin, "./" + filepath.ToSlash(dir)}} {
		cmd := exec.Command(goTool, args...)
		cmd.Env = append(os.Environ(), "GOPROXY=off", "GOWORK=off", "GOFLAGS=-mod=readonly")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "go %s of the README's example:\n%s", args[0], out)
	}
	return bin
}

// freePort returns a loopback port nothing listens on now.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// awaitTrue polls cond until it holds or agentWait passes.
func awaitTrue(t *testing.T, what string, cond func() bool) {
	awaitSaid(t, func() string { return what }, cond)
}

// awaitSaid is awaitTrue whose failure says what as it is then.
func awaitSaid(t *testing.T, what func() string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), agentWait)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("not within %v: %s", agentWait, what())
		case <-tick.C:
		}
	}
}

// lines is a process's output as a test reads it while it runs.
type lines struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// await waits until re matches the output.
func (l *lines) await(t *testing.T, re *regexp.Regexp) {
	t.Helper()
	awaitSaid(t, func() string { return "output matching " + re.String() + "; output so far:\n" + l.String() },
		func() bool { return re.MatchString(l.String()) })
}
