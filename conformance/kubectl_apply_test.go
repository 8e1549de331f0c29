package conformance

import (
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestKubectlApplyDroppingAFinalizerAControllerRemoved (issue 38 item 4):
// a controller removes the finalizer it put in a manifest, and the
// manifest drops it too (finalizers: []). kubectl apply's three-way patch
// holds "finalizers": [] and "$deleteFromPrimitiveList/finalizers" for an
// object that has none; kube-apiserver skips the deletion and stores no
// finalizers. The fake used to re-add the finalizer for about every other
// object (map order): several objects make a pass by luck unlikely.
func TestKubectlApplyDroppingAFinalizerAControllerRemoved(t *testing.T) {
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH; this test runs kubectl apply against both servers")
	}
	onBoth(t, func(t *testing.T, tg *target) {
		ns := tg.namespace(t)
		kubectl := kubectlFor(t, tg, ns)
		manifest := func(finalizers string) string {
			var b strings.Builder
			for i := range 6 {
				fmt.Fprintf(&b, "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c%d\n  finalizers: %s\n", i, finalizers)
			}
			f := filepath.Join(t.TempDir(), "m.yaml")
			require.NoError(t, os.WriteFile(f, []byte(b.String()), 0o600))
			return f
		}
		require.Contains(t, kubectl("apply", "-f", manifest("[example.com/cleanup]")), "configmap/c5 created")
		for i := range 6 { // the controller is done with each
			kubectl("patch", "configmap", fmt.Sprint("c", i), "--type=json", "-p", `[{"op":"remove","path":"/metadata/finalizers"}]`)
		}
		require.Contains(t, kubectl("apply", "-f", manifest("[]")), "configmap/c5 configured")
		require.Equal(t, "c0=;c1=;c2=;c3=;c4=;c5=;",
			kubectl("get", "configmaps", "-o", `jsonpath={range .items[*]}{.metadata.name}={.metadata.finalizers};{end}`))
	})
}

// kubectlFor returns a function that runs kubectl against tg in namespace
// ns and returns its output, failing the test when kubectl fails.
func kubectlFor(t *testing.T, tg *target, ns string) func(args ...string) string {
	t.Helper()
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	cfg := "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: " + tg.url +
		"\n    certificate-authority-data: " + base64.StdEncoding.EncodeToString(tg.cfg.TLS.CAData) +
		"\nusers:\n- name: u\n  user:\n    token: " + fmt.Sprintf("%q", tg.token) +
		"\ncontexts:\n- name: c\n  context: {cluster: c, user: u, namespace: " + ns + "}\ncurrent-context: c\n"
	require.NoError(t, os.WriteFile(kubeconfig, []byte(cfg), 0o600))
	return func(args ...string) string {
		t.Helper()
		c := exec.CommandContext(t.Context(), "kubectl", append([]string{"--kubeconfig", kubeconfig, "--cache-dir", filepath.Join(dir, "cache")}, args...)...)
		c.Env = append(os.Environ(), "HOME="+dir)
		out, err := c.CombinedOutput()
		require.NoError(t, err, "kubectl %s on %s:\n%s", strings.Join(args, " "), tg.name, out)
		return string(out)
	}
}
