package fakeapiserver_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
)

// The defaults kube-apiserver applies that kubectl's columns and describe
// read (issue 31 item 7).
func TestDefaultsOfSecretsServicesAndWorkloads(t *testing.T) {
	srv := fakeapiservertest.Start(t)
	code, b := call(t, "POST", srv.URL()+"/api/v1/namespaces/default/secrets", "application/json", `{"metadata":{"name":"s"}}`)
	require.Equal(t, 201, code, b)
	require.Equal(t, "Opaque", b["type"])

	code, b = call(t, "POST", srv.URL()+"/api/v1/namespaces/default/services", "application/json",
		`{"metadata":{"name":"svc"},"spec":{"selector":{"app":"web"},"ports":[{"port":80}]}}`)
	require.Equal(t, 201, code, b)
	spec := b["spec"].(map[string]any)
	require.Equal(t, "ClusterIP", spec["type"])
	require.Equal(t, "None", spec["sessionAffinity"])
	require.Regexp(t, `^10\.96\.\d+\.\d+$`, spec["clusterIP"])
	require.Equal(t, []any{spec["clusterIP"]}, spec["clusterIPs"])
	require.Equal(t, []any{map[string]any{"port": float64(80), "protocol": "TCP", "targetPort": float64(80)}}, spec["ports"])

	code, b = call(t, "POST", srv.URL()+"/apis/apps/v1/namespaces/default/deployments", "application/json", deploymentJSON)
	require.Equal(t, 201, code, b)
	spec = b["spec"].(map[string]any)
	require.Equal(t, map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"maxSurge": "25%", "maxUnavailable": "25%"}}, spec["strategy"])
	require.Equal(t, float64(600), spec["progressDeadlineSeconds"])
	require.Equal(t, float64(10), spec["revisionHistoryLimit"])
	ps := spec["template"].(map[string]any)["spec"].(map[string]any)
	require.Equal(t, "Always", ps["restartPolicy"])
	require.NotContains(t, ps, "enableServiceLinks", "a pod's default, not a template's")
	c := ps["containers"].([]any)[0].(map[string]any)
	require.Equal(t, "IfNotPresent", c["imagePullPolicy"])
	require.Equal(t, "TCP", c["ports"].([]any)[0].(map[string]any)["protocol"])

	code, b = call(t, "POST", srv.URL()+"/apis/batch/v1/namespaces/default/jobs", "application/json",
		`{"metadata":{"name":"j"},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}}`)
	require.Equal(t, 201, code, b)
	spec = b["spec"].(map[string]any)
	require.Equal(t, float64(1), spec["completions"])
	require.Equal(t, float64(1), spec["parallelism"])
	require.Equal(t, float64(6), spec["backoffLimit"])
}
