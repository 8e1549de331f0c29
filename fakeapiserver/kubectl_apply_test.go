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

// Issue 31 item 6: kubectl apply of a Deployment whose second container
// was removed sends a strategic merge patch with "$patch: delete"; the fake
// stored the directive as a container and dropped web's ports.
func TestKubectlApplyRemovingAContainerKeepsTheOthersWhole(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	k := newKubectl(t, srv)
	manifest := filepath.Join(t.TempDir(), "deploy.yaml")
	const head = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector: {matchLabels: {app: web}}\n" +
		"  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n" +
		"      - {name: web, image: nginx:1.27, ports: [{containerPort: 80}]}\n"
	require.NoError(t, os.WriteFile(manifest, []byte(head+"      - {name: side, image: busybox}\n"), 0o600))
	require.Contains(t, k.run("apply", "-f", manifest), "deployment.apps/web created")
	require.NoError(t, os.WriteFile(manifest, []byte(head), 0o600))
	require.Contains(t, k.run("apply", "-f", manifest), "deployment.apps/web configured")
	require.Equal(t, `[{"image":"nginx:1.27","imagePullPolicy":"IfNotPresent","name":"web","ports":[{"containerPort":80,"protocol":"TCP"}],`+
		`"resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}]`,
		k.run("get", "deployment", "web", "-o", "jsonpath={.spec.template.spec.containers}"))
}

// kubectl apply switching a Deployment to Recreate sends "$retainKeys",
// which clears the rollingUpdate numbers the server defaulted.
func TestKubectlApplyChangingTheStrategyRetainsOnlyItsKeys(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	k := newKubectl(t, srv)
	require.Contains(t, applyManifest(t, k, webDeployment), "created")
	require.Equal(t, "RollingUpdate 25%", k.run("get", "deployment", "web", "-o", "jsonpath={.spec.strategy.type} {.spec.strategy.rollingUpdate.maxSurge}"))
	recreate := strings.Replace(webDeployment, "  replicas: 1\n", "  replicas: 1\n  strategy: {type: Recreate}\n", 1)
	require.Contains(t, applyManifest(t, k, recreate), "configured")
	require.Equal(t, `{"type":"Recreate"}`, k.run("get", "deployment", "web", "-o", "jsonpath={.spec.strategy}"))
}

// Removing a port and an env var sends "$patch: delete" keyed by
// containerPort and by name, beside "$setElementOrder" lists.
func TestKubectlApplyRemovingAPortAndAnEnvVar(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	k := newKubectl(t, srv)
	const head = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector: {matchLabels: {app: web}}\n" +
		"  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.27\n"
	require.Contains(t, applyManifest(t, k, head+
		"        ports: [{containerPort: 80, name: http}, {containerPort: 8080, name: admin}]\n"+
		"        env: [{name: A, value: '1'}, {name: B, value: '2'}]\n"), "created")
	require.Contains(t, applyManifest(t, k, head+
		"        ports: [{containerPort: 80, name: http}]\n        env: [{name: B, value: '3'}]\n"), "configured")
	require.Equal(t, `[{"containerPort":80,"name":"http","protocol":"TCP"}] [{"name":"B","value":"3"}]`,
		k.run("get", "deployment", "web", "-o", "jsonpath={.spec.template.spec.containers[0].ports} {.spec.template.spec.containers[0].env}"))
	require.Contains(t, applyManifest(t, k, head+
		"        ports: [{containerPort: 80, name: http}]\n        env: [{name: B, value: '3'}]\n"), "unchanged")
}
