package metricstest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/zerokube/zerokube/internal/testutil"
)

// Timeout bounds every wait on Prometheus: its start, and a query's
// first answer (a few scrapes).
const Timeout = 60 * time.Second

// Binary returns the path of the Prometheus tool name ("promtool" or
// "prometheus"). When it is not on PATH it skips t, or fails t under CI.
func Binary(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	msg := fmt.Sprintf("no %s on PATH: install Debian's prometheus package (apt-get install prometheus); .ci/run does", name)
	if os.Getenv("CI") != "" {
		t.Fatal(msg + ", so under CI this test must not skip")
	}
	t.Skip(msg)
	return ""
}

// CheckMetrics runs `promtool check metrics` on a text exposition and
// fails t with promtool's findings (parse errors and lint problems).
func CheckMetrics(t testing.TB, exposition []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, Binary(t, "promtool"), "check", "metrics")
	cmd.Stdin = bytes.NewReader(exposition)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool check metrics: %v\n%s\non this exposition:\n%s", err, out, exposition)
	}
}

// Server is a Prometheus server run by [Start] for one test.
type Server struct {
	URL string // its HTTP API, e.g. http://127.0.0.1:34567
	out *testutil.SyncBuffer
}

// Start runs a Prometheus server on 127.0.0.1, with its data in a
// temporary directory, that scrapes http://target/metrics every 250ms
// (job "zerokube"). It returns once the server is ready; t's cleanup
// stops it.
func Start(t testing.TB, target string) *Server {
	t.Helper()
	bin := Binary(t, "prometheus")
	dir := t.TempDir()
	config := filepath.Join(dir, "prometheus.yml")
	err := os.WriteFile(config, fmt.Appendf(nil, `global:
  scrape_interval: 250ms
  scrape_timeout: 250ms
scrape_configs:
  - job_name: zerokube
    static_configs:
      - targets: [%q]
`, target), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	var lastErr error
	for range 3 { // the free port found may be taken before Prometheus binds it
		s, err := start(t, bin, config, dir)
		if err == nil {
			return s
		}
		lastErr = err
	}
	t.Fatalf("prometheus did not start: %v", lastErr)
	return nil
}

// start runs one attempt: prometheus on a port free a moment ago.
func start(t testing.TB, bin, config, dir string) (*Server, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	out := &testutil.SyncBuffer{}
	cmd := exec.Command(bin, "--config.file="+config, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() {
		_ = cmd.Process.Kill()
		<-exited
	}
	s := &Server{URL: "http://" + addr, out: out}
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	for ctx.Err() == nil {
		select {
		case err := <-exited:
			exited <- err // for stop
			stop()
			return nil, fmt.Errorf("prometheus exited: %v\n%s", err, out)
		default:
		}
		if s.get(ctx, "/-/ready") == nil {
			t.Cleanup(stop)
			return s, nil
		}
		wait(ctx, 50*time.Millisecond)
	}
	stop()
	return nil, fmt.Errorf("prometheus at %s not ready within %v\n%s", addr, Timeout, out)
}

// Sample is one series of an instant query's answer.
type Sample struct {
	Labels map[string]string
	Value  float64
}

// Query evaluates promql until its answer holds at least one sample for
// which accept returns true (nil accepts any), and returns that answer.
// Scrapes and rule evaluation take a few intervals; t fails after
// [Timeout] with the last answer and the server's log.
func (s *Server) Query(t testing.TB, promql string, accept func(Sample) bool) []Sample {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	var last any = "no answer"
	for ctx.Err() == nil {
		samples, err := s.query(ctx, promql)
		if err != nil {
			last = err
		} else {
			last = samples
			for _, x := range samples {
				if accept == nil || accept(x) {
					return samples
				}
			}
		}
		wait(ctx, 100*time.Millisecond)
	}
	t.Fatalf("prometheus query %q: no accepted sample within %v; last answer: %v\nprometheus log:\n%s", promql, Timeout, last, s.out)
	return nil
}

func (s *Server) query(ctx context.Context, promql string) ([]Sample, error) {
	var body struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []struct {
				Metric map[string]string `json:"metric"`
				Value  [2]any            `json:"value"` // [unix time, "value"]
			} `json:"result"`
		} `json:"data"`
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/api/v1/query?query="+url.QueryEscape(promql), nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, fmt.Errorf("decode the answer (HTTP %d): %w", resp.StatusCode, err)
	}
	if body.Status != "success" {
		return nil, fmt.Errorf("%s: %s", body.Status, body.Error)
	}
	samples := make([]Sample, 0, len(body.Data.Result))
	for _, r := range body.Data.Result {
		v, _ := r.Value[1].(string)
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, fmt.Errorf("sample %v: value %q: %w", r.Metric, v, err)
		}
		samples = append(samples, Sample{Labels: r.Metric, Value: f})
	}
	return samples, nil
}

// get fetches path and wants 200.
func (s *Server) get(ctx context.Context, path string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+path, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return errors.New(resp.Status)
	}
	return nil
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// wait pauses between two polls of an outside process, or until ctx ends.
func wait(ctx context.Context, d time.Duration) {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
	case <-timer.C:
	}
}
