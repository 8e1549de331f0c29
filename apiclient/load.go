package apiclient

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
)

// Where a pod finds its service account.
const (
	serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"
)

// ErrNotInCluster is returned by InCluster outside a pod.
var ErrNotInCluster = errors.New("apiclient: not running in a cluster (KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set)")

// InCluster returns the Config of a pod's service account: the API server
// from KUBERNETES_SERVICE_HOST and _PORT, and the token (re-read as it
// rotates), CA and namespace from the service-account folder.
func InCluster() (*Config, error) { return inCluster(serviceAccountDir, os.Getenv) }

func inCluster(dir string, getenv func(string) string) (*Config, error) {
	host, port := getenv("KUBERNETES_SERVICE_HOST"), getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return nil, ErrNotInCluster
	}
	tokenFile := filepath.Join(dir, "token")
	if _, err := os.Stat(tokenFile); err != nil {
		return nil, fmt.Errorf("apiclient: in-cluster: service account token: %w", err)
	}
	cfg := &Config{
		Host:            "https://" + net.JoinHostPort(host, port),
		BearerTokenFile: tokenFile,
		TLS:             TLSConfig{CAFile: filepath.Join(dir, "ca.crt")},
		Source:          "in-cluster",
	}
	if _, err := os.Stat(cfg.TLS.CAFile); err != nil {
		return nil, fmt.Errorf("apiclient: in-cluster: service account CA: %w", err)
	}
	if ns, err := os.ReadFile(filepath.Join(dir, "namespace")); err == nil {
		cfg.Namespace = strings.TrimSpace(string(ns))
	}
	return cfg, nil
}

// Load finds a Config the way kubectl does: the explicit kubeconfig path
// when given (it must exist), else the files listed in KUBECONFIG (merged,
// first wins), else ~/.kube/config when it exists, else the in-cluster
// config. master, when not "", replaces the server address.
func Load(explicitPath, master string) (*Config, error) {
	return load(explicitPath, master, loadEnv{getenv: os.Getenv, home: os.UserHomeDir, saDir: serviceAccountDir})
}

// loadEnv is what Load reads from the process, injected for tests.
type loadEnv struct {
	getenv func(string) string
	home   func() (string, error)
	saDir  string
}

func load(explicitPath, master string, env loadEnv) (*Config, error) {
	cfg, err := loadChain(explicitPath, env)
	if errors.Is(err, ErrNotInCluster) && master != "" {
		cfg, err = &Config{Source: "master flag"}, nil
	}
	if err != nil {
		return nil, err
	}
	if master != "" {
		cfg.Host = master
	}
	return cfg, nil
}

func loadChain(explicitPath string, env loadEnv) (*Config, error) {
	if explicitPath != "" {
		return LoadKubeconfig(explicitPath, "")
	}
	if list := env.getenv("KUBECONFIG"); list != "" {
		return loadKubeconfigFiles(filepath.SplitList(list), "", false)
	}
	if home, err := env.home(); err == nil && home != "" {
		p := filepath.Join(home, ".kube", "config")
		if _, err := os.Stat(p); err == nil {
			return LoadKubeconfig(p, "")
		}
	}
	cfg, err := inCluster(env.saDir, env.getenv)
	if errors.Is(err, ErrNotInCluster) {
		return nil, fmt.Errorf("%w; and no kubeconfig was found (no explicit path, KUBECONFIG unset, no ~/.kube/config)", err)
	}
	return cfg, err
}
