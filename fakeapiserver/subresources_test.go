package fakeapiserver_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
)

const deploymentJSON = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":2,` +
	`"selector":{"matchLabels":{"app":"web"},"matchExpressions":[{"key":"tier","operator":"In","values":["b","a"]}]},` +
	`"template":{"metadata":{"labels":{"app":"web","tier":"a"}},"spec":{"containers":[{"name":"web","image":"nginx:1.27","ports":[{"containerPort":80}]}]}}}}`

func TestScaleSubresourceReadsAndWritesReplicas(t *testing.T) {
	srv := fakeapiservertest.Start(t)
	u := srv.URL() + "/apis/apps/v1/namespaces/default/deployments"
	code, d := call(t, "POST", u, "application/json", deploymentJSON)
	require.Equal(t, 201, code, d)
	code, sc := get(t, u+"/web/scale")
	require.Equal(t, 200, code, sc)
	require.Equal(t, "Scale", sc["kind"])
	require.Equal(t, "autoscaling/v1", sc["apiVersion"])
	require.Equal(t, float64(2), sc["spec"].(map[string]any)["replicas"])
	require.Equal(t, "app=web,tier in (a,b)", sc["status"].(map[string]any)["selector"])
	require.Equal(t, rvOf(d), rvOf(sc), "the Scale is at its object's resourceVersion")

	code, sc = call(t, "PATCH", u+"/web/scale", "application/merge-patch+json", `{"spec":{"replicas":5}}`)
	require.Equal(t, 200, code, sc)
	require.Equal(t, float64(5), sc["spec"].(map[string]any)["replicas"])
	code, sc = call(t, "PUT", u+"/web/scale", "application/json", `{"kind":"Scale","apiVersion":"autoscaling/v1","metadata":{"name":"web"},"spec":{"replicas":3}}`)
	require.Equal(t, 200, code, sc)
	code, d = get(t, u+"/web")
	require.Equal(t, 200, code)
	require.Equal(t, float64(3), d["spec"].(map[string]any)["replicas"])
	require.Equal(t, float64(3), d["metadata"].(map[string]any)["generation"], "each scale is a spec change")

	code, st := call(t, "PUT", u+"/web/scale", "application/json", `{"metadata":{"name":"web","resourceVersion":"1"},"spec":{"replicas":1}}`)
	require.Equal(t, 409, code, "a stale Scale is a conflict: %v", st)
	code, st = call(t, "PATCH", u+"/web/scale", "application/merge-patch+json", `{"spec":{"replicas":-1}}`)
	require.Equal(t, 422, code, st)
	code, st = get(t, srv.URL()+"/api/v1/namespaces/default/configmaps/x/scale")
	require.Equal(t, 404, code, "config maps have no scale: %v", st)
}

func TestScaleIsInDiscovery(t *testing.T) {
	srv := fakeapiservertest.Start(t)
	_, doc := get(t, srv.URL()+"/apis/apps/v1")
	var found []string
	for _, r := range doc["resources"].([]any) {
		r := r.(map[string]any)
		if r["kind"] == "Scale" {
			require.Equal(t, "autoscaling", r["group"])
			require.Equal(t, "v1", r["version"])
			found = append(found, r["name"].(string))
		}
	}
	require.ElementsMatch(t, []string{"deployments/scale", "replicasets/scale", "statefulsets/scale"}, found)
}

func TestAccessReviewsAnswerAsTheFakesAuthorizer(t *testing.T) {
	ssar := `{"kind":"SelfSubjectAccessReview","apiVersion":"authorization.k8s.io/v1","spec":{"resourceAttributes":{"verb":"delete","resource":"pods","namespace":"default"}}}`
	srv := fakeapiservertest.Start(t)
	u := srv.URL() + "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
	code, b := call(t, "POST", u, "application/json", ssar)
	require.Equal(t, 201, code, b)
	require.Equal(t, true, b["status"].(map[string]any)["allowed"], "no tokens: everything is allowed")
	code, b = get(t, u)
	require.Equal(t, 405, code, "reviews are only created: %v", b)
	code, b = call(t, "POST", srv.URL()+"/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", "application/json",
		`{"kind":"SelfSubjectRulesReview","apiVersion":"authorization.k8s.io/v1","spec":{"namespace":"default"}}`)
	require.Equal(t, 201, code, b)
	rules := b["status"].(map[string]any)["resourceRules"].([]any)
	require.Equal(t, []any{"*"}, rules[0].(map[string]any)["verbs"])
}

func TestStatusLoopRunsPodsAndRollsOutDeployments(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet(), SimulateStatus: true})
	u := srv.URL() + "/apis/apps/v1/namespaces/default/deployments"
	code, d := call(t, "POST", u, "application/json", deploymentJSON)
	require.Equal(t, 201, code, d)
	w := openWatch(t, srv.URL()+"/apis/apps/v1/namespaces/default/deployments?watch=1&resourceVersion="+rvOf(d), nil)
	ev := w.mustNext()
	require.Equal(t, "MODIFIED", ev.Type)
	st := ev.Object["status"].(map[string]any)
	require.Equal(t, float64(1), st["observedGeneration"])
	for _, k := range []string{"replicas", "updatedReplicas", "readyReplicas", "availableReplicas"} {
		require.Equal(t, float64(2), st[k], k)
	}
	conds := st["conditions"].([]any)
	require.Equal(t, "Available", conds[0].(map[string]any)["type"])
	require.Equal(t, "NewReplicaSetAvailable", conds[1].(map[string]any)["reason"])

	prv := mustCreate(t, srv, podsGVR, pod("p", nil))
	pw := openWatch(t, srv.URL()+"/api/v1/namespaces/default/pods?watch=1&resourceVersion="+prv, nil)
	ev = pw.mustNext()
	require.Equal(t, "MODIFIED", ev.Type, "the kubelet's write")
	ps := ev.Object["status"].(map[string]any)
	require.Equal(t, "Running", ps["phase"])
	require.Contains(t, ps["conditions"], map[string]any{"type": "Ready", "status": "True",
		"lastTransitionTime": ps["conditions"].([]any)[2].(map[string]any)["lastTransitionTime"]})
	cs := ps["containerStatuses"].([]any)[0].(map[string]any)
	require.Equal(t, true, cs["ready"])
}

// The loop starts a pod once; what a client writes afterwards stays.
func TestStatusLoopLeavesAStartedPodsStatusToClients(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet(), SimulateStatus: true})
	prv := mustCreate(t, srv, podsGVR, pod("p", nil))
	w := openWatch(t, srv.URL()+"/api/v1/namespaces/default/pods?watch=1&resourceVersion="+prv, nil)
	require.Equal(t, "Running", w.mustNext().Object["status"].(map[string]any)["phase"])
	_, err := srv.PatchStatus(podsGVR, "default", "p", "application/merge-patch+json", []byte(`{"status":{"phase":"Failed"}}`))
	require.NoError(t, err)
	require.Equal(t, "Failed", w.mustNext().Object["status"].(map[string]any)["phase"])
	mustCreate(t, srv, podsGVR, pod("sentinel", nil))
	ev := w.mustNext()
	require.Equal(t, "sentinel", nameOf(ev), "no write of p between its Failed and the sentinel")
}
