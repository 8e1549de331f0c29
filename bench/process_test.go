package bench_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/internal/workload"
	"github.com/zerokube/zerokube/meta"
)

// BenchmarkSyncProcess is BenchmarkSyncLoopback with fakeapiserver in a
// process of its own (cmd/fakeapiserver), as a real API server is: the sync
// still crosses loopback HTTP, but the process CPU time it reports
// (cpu-x-floor) is the client's alone, while SyncLoopback's includes the
// in-process server's encoding and writes. Wall time (x-floor) still shares
// the machine's CPUs with the server process.
func BenchmarkSyncProcess(b *testing.B) {
	const n = 5000
	base := startServerProcess(b)
	f := podFixture(b, n, workload.ArticlePodSize)
	loadOverHTTP(b, base, f.items)
	pages := fetchPages(b, base)
	src := syncSource{n: n, itemBytes: f.itemBytes}
	for _, p := range pages {
		src.bytes += int64(len(p))
	}
	fl := floor(b, pages)
	c, err := apiclient.New(&apiclient.Config{Host: base, QPS: -1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.CloseIdleConnections)
	for _, streaming := range []bool{false, true} {
		name := fmt.Sprintf("pods=%d/list", n)
		if streaming {
			name = fmt.Sprintf("pods=%d/streaming", n)
		}
		b.Run(name+"/type=raw", func(b *testing.B) {
			syncBench[meta.Raw](b, src, c, fl, informer.Options[*meta.Raw]{Sync: informer.SyncOptions{StreamingList: streaming}})
		})
		b.Run(name+"/type=slim", func(b *testing.B) {
			syncBench[workload.SlimPod](b, src, c, fl, informer.Options[*workload.SlimPod]{Sync: informer.SyncOptions{StreamingList: streaming}})
		})
	}
}

// startServerProcess builds cmd/fakeapiserver, starts it on a free loopback
// port and returns its URL (the first line it prints). The process is
// killed when the benchmark ends.
func startServerProcess(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "fakeapiserver")
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if out, err := exec.Command(goTool, "build", "-o", bin, "github.com/zerokube/zerokube/cmd/fakeapiserver").CombinedOutput(); err != nil {
		b.Fatalf("bench: building fakeapiserver: %v\n%s", err, out)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "-addr", "127.0.0.1:0")
	first := &firstLine{done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = first, io.Discard
	if err := cmd.Start(); err != nil {
		cancel()
		b.Fatal(err)
	}
	b.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	select {
	case <-first.done:
	case <-time.After(time.Minute):
		b.Fatal("bench: fakeapiserver printed no URL within a minute")
	}
	return strings.TrimSpace(first.line)
}

// firstLine is a process's stdout that keeps its first line and discards
// the rest; done is closed once the line is complete. exec's copying
// goroutine is the only writer, and Wait waits for it.
type firstLine struct {
	buf  bytes.Buffer
	got  bool
	line string
	done chan struct{}
}

func (w *firstLine) Write(p []byte) (int, error) {
	if !w.got {
		w.buf.Write(p)
		if line, _, ok := strings.Cut(w.buf.String(), "\n"); ok {
			w.got, w.line = true, line
			close(w.done)
		}
	}
	return len(p), nil
}

// loadOverHTTP creates the namespaces and the pods items through the
// server's API, on every CPU.
func loadOverHTTP(b *testing.B, base string, items [][]byte) {
	b.Helper()
	post := func(path string, body []byte) error {
		resp, err := http.Post(base+path, "application/json", bytes.NewReader(body))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			msg, _ := io.ReadAll(resp.Body)
			return fmt.Errorf("POST %s: %s: %s", path, resp.Status, msg)
		}
		_, err = io.Copy(io.Discard, resp.Body)
		return err
	}
	for _, ns := range (workload.Config{}).NamespaceNames() {
		if err := post("/api/v1/namespaces", fmt.Appendf(nil, `{"metadata":{"name":%q}}`, ns)); err != nil {
			b.Fatal(err)
		}
	}
	// Twice the CPUs: each worker waits on a round trip.
	inParallel(b, 2*runtime.GOMAXPROCS(0), len(items), func(i int) error {
		r, err := meta.NewRaw(items[i])
		if err != nil {
			return err
		}
		return post("/api/v1/namespaces/"+r.Namespace+"/pods", items[i])
	})
}
