package apiclient

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/clock"
	"github.com/zerokube/zerokube/clock/clocktest"
	"github.com/zerokube/zerokube/meta"
)

// plugin writes a credential plugin script that counts its runs in a file
// next to it and prints the ExecCredential body (with $N, the run number).
func plugin(t *testing.T, status string) (dir, countFile string) {
	t.Helper()
	dir = t.TempDir()
	countFile = filepath.Join(dir, "runs")
	script := `#!/bin/sh
[ -n "$KUBERNETES_EXEC_INFO" ] || { echo "no exec info" >&2; exit 3; }
echo run >> "$COUNT_FILE"
N=$(wc -l < "$COUNT_FILE" | tr -d ' ')
cat <<EOF
{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":` + status + `}
EOF
`
	writeFile(t, dir, "bin/plugin.sh", script)
	require.NoError(t, os.Chmod(filepath.Join(dir, "bin/plugin.sh"), 0o700))
	return dir, countFile
}

func runs(t *testing.T, countFile string) int {
	b, err := os.ReadFile(countFile)
	require.NoError(t, err)
	return strings.Count(string(b), "run")
}

func TestExecPluginTokenIsCachedAndRenewedAfter401(t *testing.T) {
	dir, count := plugin(t, `{"token":"tok-$N"}`)
	var reject atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if reject.Swap(false) {
			w.WriteHeader(401)
			return
		}
		_, _ = w.Write([]byte(`{"metadata":{"name":"` + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") + `"}}`))
	}))
	t.Cleanup(srv.Close)
	c, err := NewWithOptions(&Config{Host: srv.URL, QPS: -1, Exec: &ExecConfig{
		Command: filepath.Join(dir, "bin/plugin.sh"), APIVersion: ExecV1, Env: []ExecEnvVar{{"COUNT_FILE", count}},
	}}, Options{Retry: RetryOptions{MaxAttempts: 1}})
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	ref := Ref{GVR: meta.GVR{Version: "v1", Resource: "pods"}}
	get := func() (string, error) {
		p, err := Get[meta.Raw](context.Background(), c, ref, "x")
		if err != nil {
			return "", err
		}
		return p.Name, nil
	}
	for range 3 {
		name, err := get()
		require.NoError(t, err)
		require.Equal(t, "tok-1", name)
	}
	require.Equal(t, 1, runs(t, count), "one run serves every request while the token is valid")
	reject.Store(true)
	name, err := get()
	require.NoError(t, err, "a 401 runs the plugin again and the request is sent once more")
	require.Equal(t, "tok-2", name)
	require.Equal(t, 2, runs(t, count))
	name, err = get()
	require.NoError(t, err)
	require.Equal(t, "tok-2", name, "the new token is kept")
	require.Equal(t, 2, runs(t, count))
}

func TestExecPluginRenewsBeforeExpiry(t *testing.T) {
	clk := clocktest.New()
	dir, count := plugin(t, `{"token":"tok-$N","expirationTimestamp":"2030-01-01T00:00:00Z"}`)
	p, err := newExecPlugin(ExecConfig{Command: filepath.Join(dir, "bin/plugin.sh"), APIVersion: ExecV1,
		Env: []ExecEnvVar{{"COUNT_FILE", count}}}, clk)
	require.NoError(t, err)
	expiry := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	clk.Advance(expiry.Add(-time.Hour).Sub(clk.Now()))
	c, err := p.get(context.Background())
	require.NoError(t, err)
	require.Equal(t, "tok-1", c.token)
	require.Equal(t, expiry, c.expiry.UTC())
	c, _ = p.get(context.Background())
	require.Equal(t, "tok-1", c.token)
	clk.Advance(time.Hour - 10*time.Second)
	c, err = p.get(context.Background())
	require.NoError(t, err)
	require.Equal(t, "tok-2", c.token, "renewed inside the refresh margin")
}

func TestExecPluginErrors(t *testing.T) {
	for _, tc := range []struct {
		name, status, want string
	}{
		{"no credential", `{}`, "no token and no client certificate"},
		{"no status", `null`, "no token and no client certificate"},
		{"cert without key", `{"clientCertificateData":"x"}`, "only one of"},
		{"bad cert", `{"clientCertificateData":"x","clientKeyData":"y"}`, "client certificate"},
		{"not json", `{`, "not an ExecCredential"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, count := plugin(t, tc.status)
			p, err := newExecPlugin(ExecConfig{Command: filepath.Join(dir, "bin/plugin.sh"), APIVersion: ExecV1,
				Env: []ExecEnvVar{{"COUNT_FILE", count}}}, clock.Real{})
			require.NoError(t, err)
			_, err = p.get(context.Background())
			require.ErrorContains(t, err, tc.want)
			require.ErrorContains(t, err, "plugin.sh")
		})
	}
	p, err := newExecPlugin(ExecConfig{Command: "zerokube-no-such-plugin", APIVersion: ExecV1, InstallHint: "brew install it"}, clock.Real{})
	require.NoError(t, err)
	_, err = p.get(context.Background())
	require.ErrorContains(t, err, "brew install it")
	p, err = newExecPlugin(ExecConfig{Command: "/bin/sh", Args: []string{"-c", "echo broken >&2; exit 2"}, APIVersion: ExecV1}, clock.Real{})
	require.NoError(t, err)
	_, err = p.get(context.Background())
	require.ErrorContains(t, err, `exit status 2 (stderr: "broken")`)
	_, err = newExecPlugin(ExecConfig{Command: "x", APIVersion: "v9"}, clock.Real{})
	require.ErrorContains(t, err, "not supported")
}
