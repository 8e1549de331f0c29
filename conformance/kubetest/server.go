package kubetest

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/zerokube/zerokube/apiclient"
)

// Options configures Start. The zero value means every default.
type Options struct {
	// CompactionInterval is kube-apiserver's --etcd-compaction-interval:
	// how often it compacts etcd's history (a compaction keeps the last
	// interval's revisions). Default 5 s, so 410 Expired can be provoked
	// within seconds; kube-apiserver's own default is 5 min.
	CompactionInterval time.Duration
	// ReadyTimeout bounds the wait for etcd's /health and
	// kube-apiserver's /readyz. Default 2 min (a cold start on a busy
	// 2-core machine takes 15-40 s).
	ReadyTimeout time.Duration
	// ExtraArgs are appended to kube-apiserver's flags.
	ExtraArgs []string
	// EtcdQuotaBytes is etcd's --quota-backend-bytes, when above zero.
	// etcd's default, 2 GiB, holds the conformance suite many times over;
	// a benchmark that loads 100,000 pods of 9 KB needs more room, since
	// etcd refuses every write (NOSPACE) once its file reaches the quota.
	EtcdQuotaBytes int64
}

// Server is a running etcd and kube-apiserver.
type Server struct {
	dir        string
	url        string
	etcdURL    string
	token      string
	caPEM      []byte
	etcd, kube *proc
}

// proc is a started process; done closes when it has exited.
type proc struct {
	cmd  *exec.Cmd
	done chan struct{}
}

// Start runs etcd and kube-apiserver from bins in a fresh temporary
// directory and returns once kube-apiserver is ready. On error everything it
// started is stopped.
func Start(ctx context.Context, bins Binaries, opts Options) (srv *Server, err error) {
	if opts.CompactionInterval <= 0 {
		opts.CompactionInterval = 5 * time.Second
	}
	if opts.ReadyTimeout <= 0 {
		opts.ReadyTimeout = 2 * time.Minute
	}
	dir, err := os.MkdirTemp("", "zerokube-kubetest-")
	if err != nil {
		return nil, fmt.Errorf("kubetest: %w", err)
	}
	s := &Server{dir: dir}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	f, err := writeFiles(dir)
	if err != nil {
		return nil, err
	}
	s.token, s.caPEM = f.token, f.caPEM
	ports, err := freePorts(3)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, opts.ReadyTimeout)
	defer cancel()
	if err := s.startEtcd(ctx, bins.Etcd, ports[0], ports[1], opts.EtcdQuotaBytes); err != nil {
		return nil, err
	}
	if err := s.startAPIServer(ctx, bins.APIServer, ports[2], f, opts); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Server) startEtcd(ctx context.Context, bin string, client, peer int, quota int64) error {
	s.etcdURL = "http://127.0.0.1:" + strconv.Itoa(client)
	peerURL := "http://127.0.0.1:" + strconv.Itoa(peer)
	args := []string{
		"--name=kubetest", "--data-dir=" + filepath.Join(s.dir, "etcd"),
		"--listen-client-urls=" + s.etcdURL, "--advertise-client-urls=" + s.etcdURL,
		"--listen-peer-urls=" + peerURL, "--initial-advertise-peer-urls=" + peerURL,
		"--initial-cluster=kubetest=" + peerURL, "--log-level=warn",
		"--unsafe-no-fsync", // a throwaway store: fsync only slows the tests
	}
	if quota > 0 {
		args = append(args, "--quota-backend-bytes="+strconv.FormatInt(quota, 10))
	}
	cmd, err := s.spawn(bin, "etcd.log", args...)
	if err != nil {
		return err
	}
	s.etcd = cmd
	return s.await(ctx, cmd, "etcd", http.DefaultClient, s.etcdURL+"/health", `"health":"true"`)
}

func (s *Server) startAPIServer(ctx context.Context, bin string, port int, f files, opts Options) error {
	s.url = "https://127.0.0.1:" + strconv.Itoa(port)
	args := []string{
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", "--secure-port=" + strconv.Itoa(port),
		"--etcd-servers=" + s.etcdURL,
		"--etcd-compaction-interval=" + opts.CompactionInterval.String(),
		"--tls-cert-file=" + f.cert, "--tls-private-key-file=" + f.key,
		"--token-auth-file=" + f.tokens, "--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file=" + f.saPub, "--service-account-signing-key-file=" + f.saKey,
		"--service-cluster-ip-range=10.96.0.0/24",
		// The "kubernetes" service's endpoints would be 127.0.0.1, which
		// kube-apiserver refuses; nothing here needs that service.
		"--endpoint-reconciler-type=none",
		// No controller-manager runs, so no namespace gets its "default"
		// service account; without this plugin a pod needs none.
		"--disable-admission-plugins=ServiceAccount",
		"--feature-gates=ShardedListAndWatch=true",
	}
	cmd, err := s.spawn(bin, "kube-apiserver.log", append(args, opts.ExtraArgs...)...)
	if err != nil {
		return err
	}
	s.kube = cmd
	return s.await(ctx, cmd, "kube-apiserver", s.httpClient(), s.url+"/readyz", "ok")
}

func (s *Server) spawn(bin, logName string, args ...string) (*proc, error) {
	log, err := os.Create(filepath.Join(s.dir, logName))
	if err != nil {
		return nil, fmt.Errorf("kubetest: %w", err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // never outlive the test binary
	if err := cmd.Start(); err != nil {
		_ = log.Close()
		return nil, fmt.Errorf("kubetest: start %s: %w", bin, err)
	}
	p := &proc{cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); _ = log.Close(); close(p.done) }()
	return p, nil
}

// await polls url until its body contains want, the process exits or ctx ends.
func (s *Server) await(ctx context.Context, p *proc, name string, c *http.Client, url, want string) error {
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	var last string
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		req.Header.Set("Authorization", "Bearer "+s.token)
		if resp, err := c.Do(req); err == nil {
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK && strings.Contains(string(b), want) {
				return nil
			}
			last = fmt.Sprintf("%d %s", resp.StatusCode, b)
		} else {
			last = err.Error()
		}
		select {
		case <-p.done:
			return fmt.Errorf("kubetest: %s exited before it was ready: %s\n%s", name, p.cmd.ProcessState, s.logTail(name+".log"))
		case <-ctx.Done():
			return fmt.Errorf("kubetest: %s not ready at %s (last answer: %s): %w\n%s",
				name, url, last, context.Cause(ctx), s.logTail(name+".log"))
		case <-tick.C:
		}
	}
}

func (s *Server) logTail(name string) string {
	b, _ := os.ReadFile(filepath.Join(s.dir, name))
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// URL is kube-apiserver's base URL, https://127.0.0.1:<port>.
func (s *Server) URL() string { return s.url }

// APIServerPID is kube-apiserver's process id, for a caller that measures
// the server's own CPU (bench/clientgo reads /proc/PID/stat).
func (s *Server) APIServerPID() int { return s.kube.cmd.Process.Pid }

// EtcdPID is etcd's process id, for the same purpose: what a client costs
// etcd, apart from kube-apiserver.
func (s *Server) EtcdPID() int { return s.etcd.cmd.Process.Pid }

// Token is the admin bearer token (group system:masters).
func (s *Server) Token() string { return s.token }

// CAData is the PEM certificate that signs the serving certificate.
func (s *Server) CAData() []byte { return s.caPEM }

// ClientConfig is an apiclient config for the admin token, with no client
// rate limit.
func (s *Server) ClientConfig() *apiclient.Config {
	return &apiclient.Config{Host: s.url, BearerToken: s.token, TLS: apiclient.TLSConfig{CAData: s.caPEM}, QPS: -1}
}

// HTTPClient trusts the server's certificate; requests still need the
// Authorization header (Token).
func (s *Server) httpClient() *http.Client {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(s.caPEM)
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}}
}

// HTTPClient returns a client that trusts the server's certificate.
func (s *Server) HTTPClient() *http.Client { return s.httpClient() }

// Close stops kube-apiserver, then etcd, and removes the directory.
func (s *Server) Close() {
	stop(s.kube)
	stop(s.etcd)
	_ = os.RemoveAll(s.dir)
}

func stop(p *proc) {
	if p == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	t := time.NewTimer(15 * time.Second)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

func freePorts(n int) ([]int, error) {
	var ports []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			_ = l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("kubetest: free port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
