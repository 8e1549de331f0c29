package fakeapiserver_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
)

// applyCM applies a ConfigMap named a with the given data lines as manager.
func applyCM(t *testing.T, srv *fakeapiserver.Server, manager, query, data string) (int, map[string]any) {
	t.Helper()
	return call(t, "PATCH", srv.URL()+"/api/v1/namespaces/default/configmaps/a?fieldManager="+manager+query,
		"application/apply-patch+yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n"+data)
}

// owners renders managedFields as "manager/operation: fieldsV1".
func owners(obj map[string]any) []string {
	var out []string
	for _, e := range obj["metadata"].(map[string]any)["managedFields"].([]any) {
		e := e.(map[string]any)
		out = append(out, fmt.Sprintf("%s/%s: %v", e["manager"], e["operation"], e["fieldsV1"]))
	}
	return out
}

func causes(st map[string]any) []string {
	var out []string
	for _, c := range st["details"].(map[string]any)["causes"].([]any) {
		c := c.(map[string]any)
		out = append(out, fmt.Sprintf("%s %s: %s", c["reason"], c["field"], c["message"]))
	}
	return out
}

func TestApplyConflictsNameEachFieldAndManager(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	code, _ := applyCM(t, srv, "a", "", "  k: v1\n  shared: s\n  mine: m\n")
	require.Equal(t, 201, code)
	code, _ = call(t, "PATCH", srv.URL()+"/api/v1/namespaces/default/configmaps/a?fieldManager=c",
		"application/merge-patch+json", `{"data":{"k":"v2"}}`)
	require.Equal(t, 200, code, "an update takes fields without conflict")

	code, st := applyCM(t, srv, "b", "", "  k: v3\n  mine: x\n  shared: t\n")
	require.Equal(t, 409, code)
	require.Equal(t, "Conflict", st["reason"])
	require.Equal(t, "Apply failed with 3 conflicts: conflicts with \"a\":\n- .data.mine\n- .data.shared\n"+
		"conflicts with \"c\" using v1:\n- .data.k", st["message"])
	require.Equal(t, []string{
		`FieldManagerConflict .data.mine: conflict with "a"`,
		`FieldManagerConflict .data.shared: conflict with "a"`,
		`FieldManagerConflict .data.k: conflict with "c" using v1`,
	}, causes(st))

	code, obj := applyCM(t, srv, "b", "", "  shared: s\n")
	require.Equal(t, 200, code, "the same value is no conflict")
	require.Equal(t, []string{
		"b/Apply: map[f:data:map[f:shared:map[]]]",
		"a/Apply: map[f:data:map[f:mine:map[] f:shared:map[]]]",
		"c/Update: map[f:data:map[f:k:map[]]]",
	}, owners(obj), "shared ownership; b's apply changed nothing, so its entry has no time and sorts first")

	code, obj = applyCM(t, srv, "b", "&force=true", "  k: v3\n  shared: t\n")
	require.Equal(t, 200, code)
	require.Equal(t, map[string]any{"k": "v3", "mine": "m", "shared": "t"}, obj["data"])
	require.Equal(t, []string{
		"a/Apply: map[f:data:map[f:mine:map[]]]",
		"b/Apply: map[f:data:map[f:k:map[] f:shared:map[]]]",
	}, owners(obj), "forced, b takes the fields from a and c; c has none left")
}

func TestApplyConflictPaths(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	u := srv.URL() + "/apis/apps/v1/namespaces/default/deployments/d?fieldManager="
	dep := func(replicas int, image string) string {
		return fmt.Sprintf("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  replicas: %d\n"+
			"  selector:\n    matchLabels:\n      app: d\n  template:\n    metadata:\n      labels:\n        app: d\n"+
			"    spec:\n      containers:\n      - name: c\n        image: %s\n", replicas, image)
	}
	code, _ := call(t, "PATCH", u+"a", "application/apply-patch+yaml", dep(1, "nginx:1"))
	require.Equal(t, 201, code)
	code, st := call(t, "PATCH", u+"b", "application/apply-patch+yaml", dep(2, "nginx:2"))
	require.Equal(t, 409, code)
	require.Equal(t, []string{
		`FieldManagerConflict .spec.replicas: conflict with "a"`,
		`FieldManagerConflict .spec.template.spec.containers[name="c"].image: conflict with "a"`,
	}, causes(st), "a node's own fields before those under its members")

	// A status write is a manager of its own, named with its subresource.
	code, _ = call(t, "PATCH", srv.URL()+"/apis/apps/v1/namespaces/default/deployments/d/status?fieldManager=s",
		"application/merge-patch+json", `{"status":{"replicas":1}}`)
	require.Equal(t, 200, code)
	code, st = call(t, "PATCH", srv.URL()+"/apis/apps/v1/namespaces/default/deployments/d/status?fieldManager=b",
		"application/apply-patch+yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nstatus:\n  replicas: 2\n")
	require.Equal(t, 409, code)
	require.Equal(t, `Apply failed with 1 conflict: conflict with "s" with subresource "status" using apps/v1: .status.replicas`,
		st["message"])
}
