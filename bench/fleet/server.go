package fleet

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/apiclient/kubeconfig"
	"github.com/zerokube/zerokube/conformance/kubetest"
	"github.com/zerokube/zerokube/fakeapiserver"
)

// Server is the API server a run's agents share, and what the driver
// reads of it.
type Server struct {
	Name       string // "fakeapiserver" or "kube-apiserver v1.37.2"
	Kubeconfig string // for the children
	Client     *apiclient.Client
	Real       bool // kube-apiserver with etcd
	// APIPID is the API server's process, EtcdPID etcd's (0: none).
	APIPID, EtcdPID int
	close           func()
}

// Close stops the server and removes its files.
func (s *Server) Close() { s.close() }

// StartFake runs fakeapiserver in a process of its own: cmd, which must
// end up calling ServeFake (the fleet command and the benchmark's test
// binary re-run themselves with RoleEnv set to "fake"), with TLS and the
// ShardedListAndWatch gate on, as kubetest starts kube-apiserver.
func StartFake(ctx context.Context, cmd func(kubeconfig string) (*exec.Cmd, error)) (*Server, error) {
	dir, err := os.MkdirTemp("", "zerokube-fleet-")
	if err != nil {
		return nil, fmt.Errorf("fleet: %w", err)
	}
	kc := filepath.Join(dir, "kubeconfig")
	c, err := cmd(kc)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	c.Stderr = os.Stderr
	stdin, err := c.StdinPipe() // the fake stops when it closes
	if err != nil {
		return nil, err
	}
	stdout, err := c.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := c.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("fleet: start fakeapiserver: %w", err)
	}
	stop := func() { stdin.Close(); _ = c.Wait(); os.RemoveAll(dir) }
	if err := AwaitURL(ctx, stdout, "fakeapiserver"); err != nil {
		stop()
		return nil, fmt.Errorf("fleet: %w", err)
	}
	return NewServer("fakeapiserver", kc, false, stop, c.Process.Pid, 0)
}

// ServeFake is the fake's process: it serves over TLS with shard
// selectors, writes a kubeconfig for itself, prints its URL and serves
// until stdin closes (its parent ended) or ctx is done.
func ServeFake(ctx context.Context, kubeconfig string, stdin io.Reader, stdout io.Writer) error {
	srv := fakeapiserver.New(fakeapiserver.Options{Addr: "127.0.0.1:0", TLS: true, ShardedListAndWatch: true})
	if err := srv.Start(ctx); err != nil {
		return fmt.Errorf("fleet: fakeapiserver: %w", err)
	}
	defer srv.Close()
	if err := srv.WriteKubeconfig(kubeconfig); err != nil {
		return fmt.Errorf("fleet: fakeapiserver: %w", err)
	}
	fmt.Fprintln(stdout, srv.URL())
	done := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, stdin); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
	return nil
}

// StartKube runs etcd and kube-apiserver from conformance/kube/build.sh's
// binaries (conformance/kubetest, with the ShardedListAndWatch gate on) and
// writes a kubeconfig for the children. kube-apiserver compacts etcd every
// 5 minutes, its own default: kubetest's 5 s would expire a snapshot's
// resourceVersion before the restart storm.
func StartKube(ctx context.Context) (*Server, error) {
	bins, err := kubetest.Find()
	if err != nil {
		return nil, err
	}
	srv, err := kubetest.Start(ctx, bins, kubetest.Options{CompactionInterval: 5 * time.Minute, ReadyTimeout: 5 * time.Minute})
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "zerokube-fleet-")
	if err != nil {
		srv.Close()
		return nil, err
	}
	stop := func() { srv.Close(); os.RemoveAll(dir) }
	kc := filepath.Join(dir, "kubeconfig")
	if err := WriteKubeconfig(kc, srv.URL(), srv.Token(), srv.CAData()); err != nil {
		stop()
		return nil, err
	}
	return NewServer("kube-apiserver "+kubetest.Version, kc, true, stop, srv.APIServerPID(), srv.EtcdPID())
}

// NewServer is the Server of a running API server whose kubeconfig is at
// path; stop stops it (and is called here when the client cannot be
// made). The client-go comparison (bench/clientgo) starts its servers its
// own way and describes them with it too.
func NewServer(name, path string, real bool, stop func(), apiPID, etcdPID int) (*Server, error) {
	cfg, err := kubeconfig.LoadFile(path, "")
	if err != nil {
		stop()
		return nil, err
	}
	cfg.QPS = -1
	cl, err := apiclient.New(cfg)
	if err != nil {
		stop()
		return nil, err
	}
	return &Server{Name: name, Kubeconfig: path, Client: cl, Real: real, close: stop, APIPID: apiPID, EtcdPID: etcdPID}, nil
}

// WriteKubeconfig writes a kubeconfig for url with a CA and a bearer
// token, as both client libraries read it.
func WriteKubeconfig(path, url, token string, ca []byte) error {
	caFile := path + ".ca.crt"
	if err := os.WriteFile(caFile, ca, 0o600); err != nil {
		return err
	}
	kc := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: bench
  cluster: {server: %q, certificate-authority: %q}
users:
- name: bench
  user: {token: %q}
contexts:
- name: bench
  context: {cluster: bench, user: bench}
current-context: bench
`, url, caFile, token)
	return os.WriteFile(path, []byte(kc), 0o600)
}

// AwaitURL waits for a server process that prints its URL as its first
// line of output (cmd/fakeapiserver, ServeFake) and then drains the rest:
// an error when the line is not a URL, when none comes within a minute,
// or when ctx ends first.
func AwaitURL(ctx context.Context, stdout io.Reader, name string) error {
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			line <- sc.Text()
		}
		close(line)
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case l, ok := <-line:
		if !ok || !strings.HasPrefix(l, "http") {
			return fmt.Errorf("%s printed %q, not its URL", name, l)
		}
		return nil
	case <-time.After(time.Minute):
		return fmt.Errorf("%s printed no URL within a minute", name)
	case <-ctx.Done():
		return ctx.Err()
	}
}
