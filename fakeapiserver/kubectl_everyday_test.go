package fakeapiserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
)

// kubectl's everyday commands (issue 31 item 7).

const webDeployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n" +
	"  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n" +
	"    spec:\n      containers: [{name: web, image: nginx:1.27}]\n"

func applyManifest(t *testing.T, k *kubectl, manifest string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "m.yaml")
	require.NoError(t, os.WriteFile(f, []byte(manifest), 0o600))
	return k.run("apply", "-f", f)
}

func TestKubectlScale(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	k := newKubectl(t, srv)
	applyManifest(t, k, webDeployment)
	require.Contains(t, k.run("scale", "deployment/web", "--replicas=3"), "deployment.apps/web scaled")
	require.Equal(t, "3", k.run("get", "deployment", "web", "-o", "jsonpath={.spec.replicas}"))
	require.Contains(t, k.run("scale", "deployment/web", "--current-replicas=3", "--replicas=0"), "scaled")
	require.Contains(t, k.fails("scale", "deployment/web", "--current-replicas=5", "--replicas=1"), "Expected replicas to be 5, was 0")
	require.Contains(t, k.run("get", "--raw", "/apis/apps/v1/namespaces/default/deployments/web/scale"), `"selector":"app=web"`)
	applyManifest(t, k, strings.ReplaceAll(strings.ReplaceAll(webDeployment, "Deployment", "StatefulSet"), "name: web\nspec:", "name: db\nspec:"))
	require.Contains(t, k.run("scale", "statefulset/db", "--replicas=2"), "statefulset.apps/db scaled")
	require.Equal(t, "2", k.run("get", "sts", "db", "-o", "jsonpath={.spec.replicas}"))
}

func TestKubectlAuthCanI(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	k := newKubectl(t, srv)
	require.Equal(t, "yes\n", k.run("auth", "can-i", "create", "deployments"))
	require.Equal(t, "yes\n", k.run("auth", "can-i", "delete", "pods", "--all-namespaces"))
	require.Contains(t, k.run("auth", "can-i", "--list"), "*.*")

	limited := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet(), TLS: true, // kubectl sends no token over http
		Tokens: []fakeapiserver.Token{{Value: "reader", Resources: []string{"pods"}, Verbs: []string{"get", "list"}}}})
	k = newKubectl(t, limited)
	require.Equal(t, "yes\n", k.run("auth", "can-i", "list", "pods"))
	require.Equal(t, "no\n", k.fails("auth", "can-i", "delete", "pods"))
}

func TestKubectlRolloutStatusAndWaitWithTheStatusLoop(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet(), SimulateStatus: true})
	k := newKubectl(t, srv)
	applyManifest(t, k, webDeployment)
	require.Contains(t, k.run("rollout", "status", "deployment/web", "--timeout=20s"), `deployment "web" successfully rolled out`)
	require.Contains(t, k.run("scale", "deployment/web", "--replicas=3"), "scaled")
	require.Contains(t, k.run("rollout", "status", "deployment/web", "--timeout=20s"), `successfully rolled out`)
	require.Equal(t, "3/3", strings.Fields(strings.Split(k.run("get", "deployment", "web"), "\n")[1])[1])
	applyManifest(t, k, "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\nspec:\n  containers: [{name: c, image: nginx}]\n")
	require.Contains(t, k.run("wait", "--for=condition=Ready", "pod/x", "--timeout=20s"), "pod/x condition met")
	require.Equal(t, []string{"x", "1/1", "Running"}, strings.Fields(strings.Split(k.run("get", "pod", "x"), "\n")[1])[:3])
}

func TestWithoutTheStatusLoopNobodyWritesStatus(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	k := newKubectl(t, srv)
	applyManifest(t, k, webDeployment)
	out := k.fails("rollout", "status", "deployment/web", "--timeout=1s")
	require.Contains(t, out, "timed out waiting for the condition")
}

func TestKubectlGetShowsTheDefaultedColumns(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	k := newKubectl(t, srv)
	rows := func(out string) [][]string {
		var rs [][]string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			rs = append(rs, strings.Fields(l))
		}
		return rs
	}
	k.run("create", "secret", "generic", "s", "--from-literal=a=b")
	secrets := rows(k.run("get", "secret", "s"))
	require.Equal(t, []string{"NAME", "TYPE", "DATA", "AGE"}, secrets[0])
	require.Equal(t, []string{"s", "Opaque", "1"}, secrets[1][:3])

	k.run("create", "service", "clusterip", "web", "--tcp=80:8080")
	svc := rows(k.run("get", "service", "web"))
	require.Equal(t, []string{"NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"}, svc[0])
	require.Equal(t, "web", svc[1][0])
	require.Equal(t, "ClusterIP", svc[1][1])
	require.Regexp(t, `^10\.96\.\d+\.\d+$`, svc[1][2])
	require.Equal(t, []string{"<none>", "80/TCP"}, svc[1][3:5])
	require.Equal(t, "8080", k.run("get", "service", "web", "-o", "jsonpath={.spec.ports[0].targetPort}"))

	k.run("create", "job", "j", "--image=busybox")
	jobs := rows(k.run("get", "job", "j"))
	require.Equal(t, []string{"NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"}, jobs[0])
	require.Equal(t, []string{"j", "Running", "0/1"}, jobs[1][:3])

	applyManifest(t, k, webDeployment)
	require.Equal(t, `{"rollingUpdate":{"maxSurge":"25%","maxUnavailable":"25%"},"type":"RollingUpdate"} 600 10`,
		k.run("get", "deployment", "web", "-o", "jsonpath={.spec.strategy} {.spec.progressDeadlineSeconds} {.spec.revisionHistoryLimit}"))
	describe := k.run("describe", "deployment", "web")
	require.Contains(t, describe, "StrategyType:           RollingUpdate")
	require.Contains(t, describe, "RollingUpdateStrategy:  25% max unavailable, 25% max surge")
}

func TestKubectlServerSideDryRunStoresNothing(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	k := newKubectl(t, srv)
	require.Contains(t, applyManifestWith(t, k, webDeployment, "--dry-run=server"), "deployment.apps/web created (server dry run)")
	require.Contains(t, k.fails("get", "deployment", "web"), "not found")
	rv := srv.ResourceVersion()

	applyManifest(t, k, webDeployment)
	rv = srv.ResourceVersion()
	scaled := strings.Replace(webDeployment, "replicas: 1", "replicas: 4", 1)
	require.Contains(t, applyManifestWith(t, k, scaled, "--dry-run=server"), "deployment.apps/web configured (server dry run)")
	require.Equal(t, "1", k.run("get", "deployment", "web", "-o", "jsonpath={.spec.replicas}"))
	require.Equal(t, rv, srv.ResourceVersion(), "a dry run moves no resourceVersion")

	f := filepath.Join(t.TempDir(), "m.yaml")
	require.NoError(t, os.WriteFile(f, []byte(scaled), 0o600))
	diff, err := k.cmd(t.Context(), "diff", "-f", f).CombinedOutput()
	require.Error(t, err, "kubectl diff exits 1 when it finds a difference")
	require.Contains(t, string(diff), "-  replicas: 1\n+  replicas: 4")

	require.Contains(t, k.run("delete", "deployment", "web", "--dry-run=server"), `deployment.apps "web" deleted (server dry run)`)
	require.Equal(t, "web", k.run("get", "deployment", "web", "-o", "jsonpath={.metadata.name}"))
	require.Equal(t, rv, srv.ResourceVersion())
}

func applyManifestWith(t *testing.T, k *kubectl, manifest string, args ...string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "m.yaml")
	require.NoError(t, os.WriteFile(f, []byte(manifest), 0o600))
	return k.run(append([]string{"apply", "-f", f}, args...)...)
}

// kubectl explain reads the OpenAPI v3 schemas the fake makes from
// kubeproto's table: fields and types, no descriptions.
func TestKubectlExplain(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	k := newKubectl(t, srv)
	out := k.run("explain", "deployment.spec.template.spec.containers")
	require.Contains(t, out, "FIELD: containers <[]Container>")
	require.Regexp(t, `ports\s+<\[\]ContainerPort>`, out)
	out = k.run("explain", "service.spec.ports.targetPort")
	require.Contains(t, out, "FIELD: targetPort <") // <string>: kube-apiserver's answer makes it <IntOrString>
	out = k.run("explain", "pods")
	require.Regexp(t, `apiVersion\s+<string>`, out)
	require.Regexp(t, `spec\s+<PodSpec>`, out)
}
