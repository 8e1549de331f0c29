package fleet

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/zerokube/zerokube/apiclient/kubeconfig"
)

// Footprint is what one run of a minimal agent binary cost its own
// process. The agent prints "synced in ..." once synced and then "N pods
// on NODE" (bench/agent/zerokube, bench/clientgo/cmd/cgagent, and the floor,
// bench/agent/floor).
type Footprint struct {
	Binary     int64   `json:"binary_b"`
	ToSynced   float64 `json:"to_synced_s"`  // from exec to the "synced" line
	SyncCPU    float64 `json:"sync_cpu_s"`   // CPU until then
	RSSSynced  int64   `json:"rss_synced_b"` // VmRSS at the "synced" line
	PeakSynced int64   `json:"peak_synced_b"`
	RSSIdle    int64   `json:"rss_idle_b"`  // VmRSS at the idle window's end
	AnonIdle   int64   `json:"anon_idle_b"` // RssAnon then: RSSIdle less the binary's and other files' pages
	IdleCPU    float64 `json:"idle_cpu_s"`  // CPU over the idle window
	Idle       float64 `json:"idle_s"`      // the idle window
	Pods       int     `json:"pods"`        // the count the agent printed
}

// AgentFlags are the minimal agents' flags for the server of the
// kubeconfig at path: -server, and -token-file and -ca-file written into dir
// from the kubeconfig's token and CA. They are what a pod's service account
// gives an agent in a cluster; the agents read no kubeconfig, so that
// neither links a kubeconfig parser it would not use there.
func AgentFlags(path, dir string) ([]string, error) {
	cfg, err := kubeconfig.LoadFile(path, "")
	if err != nil {
		return nil, fmt.Errorf("fleet: agent flags: %w", err)
	}
	flags := []string{"-server", cfg.Host}
	token, ca := cfg.BearerTokenFile, cfg.TLS.CAFile
	if cfg.BearerToken != "" {
		token = filepath.Join(dir, "token")
		if err := os.WriteFile(token, []byte(cfg.BearerToken), 0o600); err != nil {
			return nil, fmt.Errorf("fleet: agent flags: %w", err)
		}
	}
	if len(cfg.TLS.CAData) > 0 {
		ca = filepath.Join(dir, "ca.crt")
		if err := os.WriteFile(ca, cfg.TLS.CAData, 0o600); err != nil {
			return nil, fmt.Errorf("fleet: agent flags: %w", err)
		}
	}
	if token != "" {
		flags = append(flags, "-token-file", token)
	}
	if ca != "" {
		flags = append(flags, "-ca-file", ca)
	}
	return flags, nil
}

// MeasureFootprint runs the agent bin with args, waits for it to sync and
// print its count, measures it over an idle window of idle (nothing is
// written meanwhile), then stops it with SIGTERM.
func MeasureFootprint(ctx context.Context, bin string, args []string, idle time.Duration) (f Footprint, err error) {
	st, err := os.Stat(bin)
	if err != nil {
		return f, fmt.Errorf("fleet: footprint: %w", err)
	}
	f.Binary = st.Size()
	cmd := exec.Command(bin, args...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return f, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return f, fmt.Errorf("fleet: footprint: %w", err)
	}
	pid := cmd.Process.Pid
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		werr := cmd.Wait()
		var ee *exec.ExitError
		if err == nil && werr != nil && !errors.As(werr, &ee) {
			err = werr
		}
	}()
	// The reader keeps the last count the agent printed; the first line
	// must say it synced.
	synced := make(chan error, 1)
	var last atomic.Int64
	last.Store(-1)
	go func() {
		sc := bufio.NewScanner(out)
		first := true
		for sc.Scan() {
			l := sc.Text()
			if first {
				first = false
				if !strings.HasPrefix(l, "synced") {
					synced <- fmt.Errorf("fleet: footprint: the agent printed %q before its synced line", l)
					continue
				}
				synced <- nil
				continue
			}
			if n, _, ok := strings.Cut(l, " pods on "); ok {
				if k, err := strconv.Atoi(n); err == nil {
					last.Store(int64(k))
				}
			}
		}
		if first {
			synced <- errors.New("fleet: footprint: the agent ended before it synced")
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case err := <-synced:
		if err != nil {
			return f, err
		}
	case <-time.After(5 * time.Minute):
		return f, errors.New("fleet: footprint: the agent did not sync within 5 minutes")
	case <-ctx.Done():
		return f, ctx.Err()
	}
	f.ToSynced = time.Since(start).Seconds()
	cpu, err := ProcCPU(pid)
	if err != nil {
		return f, err
	}
	f.SyncCPU = cpu.Seconds()
	m, err := ProcMem(pid)
	if err != nil {
		return f, err
	}
	f.RSSSynced, f.PeakSynced = m.RSS, m.Peak
	t := time.Now()
	select {
	case <-time.After(idle): // the window itself
	case <-ctx.Done():
		return f, ctx.Err()
	}
	cpu2, err := ProcCPU(pid)
	if err != nil {
		return f, err
	}
	f.Idle, f.IdleCPU = time.Since(t).Seconds(), (cpu2 - cpu).Seconds()
	if m, err = ProcMem(pid); err != nil {
		return f, err
	}
	f.RSSIdle, f.AnonIdle = m.RSS, m.Anon
	f.Pods = int(last.Load())
	return f, nil
}
