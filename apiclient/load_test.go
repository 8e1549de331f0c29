package apiclient

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// writeFile writes content under dir and returns its path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o700))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	return p
}

func mapEnv(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestInCluster(t *testing.T) {
	sa := t.TempDir()
	env := mapEnv(map[string]string{"KUBERNETES_SERVICE_HOST": "10.96.0.1", "KUBERNETES_SERVICE_PORT": "443"})
	_, err := inCluster(sa, env)
	require.ErrorContains(t, err, "token")
	writeFile(t, sa, "token", "tok")
	_, err = inCluster(sa, env)
	require.ErrorContains(t, err, "CA")
	writeFile(t, sa, "ca.crt", "ca")
	writeFile(t, sa, "namespace", "apps\n")
	cfg, err := inCluster(sa, env)
	require.NoError(t, err)
	require.Equal(t, "https://10.96.0.1:443", cfg.Host)
	require.Equal(t, filepath.Join(sa, "token"), cfg.BearerTokenFile)
	require.Equal(t, filepath.Join(sa, "ca.crt"), cfg.TLS.CAFile)
	require.Equal(t, "apps", cfg.Namespace)
	_, err = inCluster(sa, mapEnv(nil))
	require.ErrorIs(t, err, ErrNotInCluster)
}
