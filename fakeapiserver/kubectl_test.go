package fakeapiserver_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
)

// kubectl runs kubectl against srv, skipping the test when kubectl is not
// on PATH.
type kubectl struct {
	t          *testing.T
	kubeconfig string
	cacheDir   string
}

func newKubectl(t *testing.T, srv *fakeapiserver.Server) *kubectl {
	t.Helper()
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH; the kubectl compatibility tests need it")
	}
	dir := t.TempDir()
	k := &kubectl{t: t, kubeconfig: filepath.Join(dir, "kubeconfig"), cacheDir: filepath.Join(dir, "cache")}
	require.NoError(t, srv.WriteKubeconfig(k.kubeconfig))
	return k
}

func (k *kubectl) cmd(ctx context.Context, args ...string) *exec.Cmd {
	c := exec.CommandContext(ctx, "kubectl", append([]string{"--kubeconfig", k.kubeconfig, "--cache-dir", k.cacheDir}, args...)...)
	c.Env = append(os.Environ(), "HOME="+filepath.Dir(k.cacheDir))
	return c
}

func (k *kubectl) run(args ...string) string {
	k.t.Helper()
	out, err := k.cmd(context.Background(), args...).CombinedOutput()
	require.NoError(k.t, err, "kubectl %s:\n%s", strings.Join(args, " "), out)
	return string(out)
}

func TestKubectlWorksAgainstTheFake(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts fakeapiserver.Options
	}{
		{"plain http", fakeapiserver.Options{Logger: quiet()}},
		{"tls with token", fakeapiserver.Options{Logger: quiet(), TLS: true, Tokens: []fakeapiserver.Token{{Value: "s3cret"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakeapiservertest.Start(t, tc.opts)
			k := newKubectl(t, srv)
			manifest := filepath.Join(t.TempDir(), "pod.yaml")
			require.NoError(t, os.WriteFile(manifest, []byte(
				"apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  labels: {app: web}\nspec:\n  containers: [{name: c, image: nginx}]\n"), 0o600))
			require.Contains(t, k.run("create", "-f", manifest), "pod/web created")
			require.Contains(t, k.run("get", "pods", "-o", "json"), `"name": "web"`)
			require.Contains(t, k.run("label", "pod", "web", "tier=front"), "labeled")
			require.Contains(t, k.run("annotate", "pod", "web", "note=hi"), "annotated")
			require.Equal(t, "front hi", k.run("get", "pod", "web", "-o", "jsonpath={.metadata.labels.tier} {.metadata.annotations.note}"))
			require.Contains(t, k.run("get", "pods", "-l", "tier=front", "-o", "name"), "pod/web")
			require.NoError(t, os.WriteFile(manifest, []byte(
				"apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers: [{name: c, image: nginx:2}]\n"), 0o600))
			require.Contains(t, k.run("apply", "-f", manifest), "pod/web")
			require.Equal(t, "nginx:2", k.run("get", "pod", "web", "-o", "jsonpath={.spec.containers[0].image}"))
			require.Contains(t, k.run("get", "all", "-o", "name"), "pod/web")
			require.NoError(t, os.WriteFile(manifest, []byte(
				"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata: {k: v1}\n"), 0o600))
			require.Contains(t, k.run("apply", "--server-side", "-f", manifest), "configmap/ssa serverside-applied")
			require.NoError(t, os.WriteFile(manifest, []byte(
				"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata: {k: v2}\n"), 0o600))
			require.Contains(t, k.run("apply", "--server-side", "-f", manifest), "configmap/ssa serverside-applied")
			require.Equal(t, "v2", k.run("get", "configmap", "ssa", "-o", "jsonpath={.data.k}"))
			require.Contains(t, k.run("delete", "pod", "web"), `pod "web" deleted`)
		})
	}
}

func TestKubectlGetWatchSeesEvents(t *testing.T) {
	for _, tc := range []struct {
		name string
		tls  bool
		args []string
		want []string // the first field of each line: listed, added, deleted
	}{
		{"names", false, []string{"-o", "name"}, []string{"pod/before", "pod/after", "pod/after"}},
		{"names over tls", true, []string{"-o", "name"}, []string{"pod/before", "pod/after", "pod/after"}},
		{"table rows", false, nil, []string{"NAME", "before", "after", "after"}}, // one header only
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet(), TLS: tc.tls})
			k := newKubectl(t, srv)
			mustCreate(t, srv, podsGVR, pod("before", nil))
			ctx, cancel := context.WithTimeout(context.Background(), 2*shortWait)
			defer cancel()
			c := k.cmd(ctx, append([]string{"get", "pods", "-w"}, tc.args...)...)
			out, err := c.StdoutPipe()
			require.NoError(t, err)
			require.NoError(t, c.Start())
			defer func() { cancel(); _ = c.Wait() }()
			require.NoError(t, srv.AwaitWatchers(ctx, 1))
			mustCreate(t, srv, podsGVR, pod("after", nil))
			require.NoError(t, srv.Delete(podsGVR, "default", "after"))
			var got []string
			sc := bufio.NewScanner(out)
			for len(got) < len(tc.want) && sc.Scan() {
				got = append(got, strings.Fields(sc.Text())[0])
			}
			require.Equal(t, tc.want, got)
		})
	}
}

// fails runs kubectl expecting it to fail, and returns its output.
func (k *kubectl) fails(args ...string) string {
	k.t.Helper()
	out, err := k.cmd(context.Background(), args...).CombinedOutput()
	require.Error(k.t, err, "kubectl %s should fail:\n%s", strings.Join(args, " "), out)
	return string(out)
}

func TestKubectlGetPrintsTheServersColumns(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	k := newKubectl(t, srv)
	mustCreate(t, srv, podsGVR, pod("web", map[string]string{"app": "web"}))
	mustCreate(t, srv, cmGVR, map[string]any{"metadata": map[string]any{"name": "cfg", "namespace": "default"},
		"data": map[string]any{"a": "1", "b": "2"}})

	fields := func(out string) [][]string {
		var rows [][]string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			rows = append(rows, strings.Fields(l))
		}
		return rows
	}
	pods := fields(k.run("get", "pods"))
	require.Equal(t, []string{"NAME", "READY", "STATUS", "RESTARTS", "AGE"}, pods[0])
	require.Equal(t, []string{"web", "0/1"}, pods[1][:2])
	wide := k.run("get", "pods", "-o", "wide")
	require.Contains(t, wide, "NOMINATED NODE   READINESS GATES")
	require.Equal(t, []string{"NAME", "DATA", "AGE"}, fields(k.run("get", "configmaps"))[0])
	require.Equal(t, []string{"cfg", "2"}, fields(k.run("get", "configmap", "cfg"))[1][:2])
	require.Equal(t, []string{"NAME", "STATUS", "AGE"}, fields(k.run("get", "namespace", "default"))[0])
	require.Equal(t, "ok", k.run("get", "--raw", "/readyz"))
}
