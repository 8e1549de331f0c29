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
// rotates), CA and namespace from the service-account folder. It is all an
// agent running in the cluster needs; package kubeconfig reads kubeconfig
// files (and falls back to InCluster), at the price of a YAML parser.
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
