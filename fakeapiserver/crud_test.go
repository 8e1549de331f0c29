package fakeapiserver_test

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/meta"
)

func TestCreateSetsServerFieldsAndGetReturnsTypedObject(t *testing.T) {
	srv := fakeapiservertest.Start(t)
	code, body := call(t, "POST", srv.URL()+"/api/v1/namespaces/default/pods", "application/json",
		`{"apiVersion":"v1","kind":"Pod","metadata":{"generateName":"web-"},"spec":{"containers":[{"name":"c"}]}}`)
	require.Equal(t, 201, code, body)
	md := body["metadata"].(map[string]any)
	name := md["name"].(string)
	require.Regexp(t, `^web-[a-z0-9]{5}$`, name)
	require.NotEmpty(t, md["uid"])
	require.NotEmpty(t, md["creationTimestamp"])
	require.Equal(t, float64(1), md["generation"])
	require.Equal(t, "default", md["namespace"])

	code, got := get(t, srv.URL()+"/api/v1/namespaces/default/pods/"+name)
	require.Equal(t, 200, code)
	require.Equal(t, "Pod", got["kind"])
	require.Equal(t, "v1", got["apiVersion"])
	require.Equal(t, rvOf(body), rvOf(got))
}

func TestWriteErrorsAreStatusesWithRealCodes(t *testing.T) {
	srv := fakeapiservertest.Start(t)
	u := srv.URL() + "/api/v1/namespaces/default/configmaps"
	cm := `{"metadata":{"name":"a"},"data":{"k":"v"}}`
	code, _ := call(t, "POST", u, "application/json", cm)
	require.Equal(t, 201, code)
	for _, tc := range []struct {
		name, method, url, body string
		code                    int
		reason                  string
	}{
		{"duplicate create", "POST", u, cm, 409, "AlreadyExists"},
		{"missing object", "GET", u + "/nope", "", 404, "NotFound"},
		{"stale update", "PUT", u + "/a", `{"metadata":{"name":"a","resourceVersion":"1"}}`, 409, "Conflict"},
		{"no name", "POST", u, `{"metadata":{}}`, 422, "Invalid"},
		{"missing namespace", "POST", srv.URL() + "/api/v1/namespaces/nope/configmaps", cm, 404, "NotFound"},
		{"unknown resource", "GET", srv.URL() + "/api/v1/widgets", "", 404, "NotFound"},
		{"not json", "POST", u, `{`, 400, "BadRequest"},
		{"dry run of another kind than All", "POST", u + "?dryRun=Some", `{"metadata":{"name":"dry"}}`, 422, "Invalid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, st := call(t, tc.method, tc.url, "application/json", tc.body)
			require.Equal(t, tc.code, code, st)
			require.Equal(t, "Status", st["kind"])
			require.Equal(t, "Failure", st["status"])
			require.Equal(t, tc.reason, st["reason"])
			require.Equal(t, float64(tc.code), st["code"])
		})
	}
}

// Issue 23: a PUT whose body names another object was a 404 when the URL's
// object did not exist; kube-apiserver checks the name first: 400, no details.
func TestPutNamingAnotherObjectIsABadRequestEvenWhenTheURLsObjectIsMissing(t *testing.T) {
	srv := fakeapiservertest.Start(t)
	u := srv.URL() + "/api/v1/namespaces/default/configmaps"
	code, _ := call(t, "POST", u, "application/json", `{"metadata":{"name":"a"}}`)
	require.Equal(t, 201, code)
	for _, tc := range []struct{ url, body, message string }{
		{u + "/nothere", `{"metadata":{"name":"other"}}`, "the name of the object (other) does not match the name on the URL (nothere)"},
		{u + "/a", `{"metadata":{"name":"other"}}`, "the name of the object (other) does not match the name on the URL (a)"},
		{u + "/nothere", `{"metadata":{}}`, "the name of the object (nothere based on URL) was undeterminable: name must be provided"},
		{u + "/nothere", `{"metadata":{"name":"x","namespace":"kube-system"}}`, "the namespace of the provided object does not match the namespace sent on the request"},
	} {
		code, st := call(t, "PUT", tc.url, "application/json", tc.body)
		require.Equal(t, 400, code, st)
		require.Equal(t, "BadRequest", st["reason"])
		require.Equal(t, tc.message, st["message"])
		require.NotContains(t, st, "details")
	}
}

func TestUpdateBumpsGenerationOnlyForSpecChanges(t *testing.T) {
	srv := fakeapiservertest.Start(t)
	mustCreate(t, srv, podsGVR, pod("p", nil))
	u := srv.URL() + "/api/v1/namespaces/default/pods/p"
	code, b := call(t, "PATCH", u, "application/strategic-merge-patch+json", `{"metadata":{"labels":{"a":"b"}}}`)
	require.Equal(t, 200, code, b)
	require.Equal(t, float64(1), b["metadata"].(map[string]any)["generation"])
	require.Equal(t, "b", b["metadata"].(map[string]any)["labels"].(map[string]any)["a"])
	code, b = call(t, "PATCH", u, "application/merge-patch+json", `{"spec":{"restartPolicy":"Never"}}`)
	require.Equal(t, 200, code, b)
	require.Equal(t, float64(2), b["metadata"].(map[string]any)["generation"])
	code, b = call(t, "PATCH", u, "application/json-patch+json",
		`[{"op":"add","path":"/metadata/annotations","value":{"x":"y"}},{"op":"test","path":"/spec/restartPolicy","value":"Never"}]`)
	require.Equal(t, 200, code, b)
	require.Equal(t, "y", b["metadata"].(map[string]any)["annotations"].(map[string]any)["x"])
	code, b = call(t, "PATCH", u, "application/apply-patch+yaml", "metadata:\n  labels:\n    applied: \"yes\"\n")
	require.Equal(t, 200, code, b)
	require.Equal(t, "yes", b["metadata"].(map[string]any)["labels"].(map[string]any)["applied"])
	require.Equal(t, "b", b["metadata"].(map[string]any)["labels"].(map[string]any)["a"], "apply merges")
	code, b = call(t, "PATCH", srv.URL()+"/api/v1/namespaces/default/pods/new", "application/apply-patch+yaml",
		"apiVersion: v1\nkind: Pod\nmetadata:\n  name: new\nspec:\n  containers: [{name: c, image: x}]\n")
	require.Equal(t, 201, code, b, "apply creates what is missing")
	code, b = call(t, "PATCH", u, "application/x-unknown", `{}`)
	require.Equal(t, 415, code, b)
	code, b = call(t, "PATCH", u, "application/strategic-merge-patch+json", `{"metadata":{"$bogus":"x"}}`)
	require.Equal(t, 400, code, b, "an unknown directive is refused, never stored")
	require.Contains(t, b["message"], "$bogus")
}

func TestDeleteAnswersLikeKubeAPIServer(t *testing.T) {
	srv := fakeapiservertest.Start(t)
	mustCreate(t, srv, podsGVR, pod("p", nil))
	mustCreate(t, srv, cmGVR, map[string]any{"metadata": map[string]any{"name": "c", "namespace": "default"}})
	code, b := call(t, "DELETE", srv.URL()+"/api/v1/namespaces/default/pods/p", "", "")
	require.Equal(t, 200, code)
	require.Equal(t, "Pod", b["kind"], "pods answer with the object")
	require.NotEmpty(t, b["metadata"].(map[string]any)["deletionTimestamp"])
	code, b = call(t, "DELETE", srv.URL()+"/api/v1/namespaces/default/configmaps/c", "", "")
	require.Equal(t, 200, code)
	require.Equal(t, "Status", b["kind"])
	require.Equal(t, "Success", b["status"])
	require.Equal(t, "c", b["details"].(map[string]any)["name"])
	require.Equal(t, "configmaps", b["details"].(map[string]any)["kind"])
	require.NotEmpty(t, b["details"].(map[string]any)["uid"])
}

func TestFinalizersKeepAnObjectUntilRemoved(t *testing.T) {
	srv := fakeapiservertest.Start(t)
	mustCreate(t, srv, cmGVR, map[string]any{"metadata": map[string]any{"name": "c", "namespace": "default", "finalizers": []string{"x/y"}}})
	u := srv.URL() + "/api/v1/namespaces/default/configmaps/c"
	code, b := call(t, "DELETE", u, "", "")
	require.Equal(t, 200, code)
	require.NotEmpty(t, b["metadata"].(map[string]any)["deletionTimestamp"])
	code, _ = get(t, u)
	require.Equal(t, 200, code, "still there while the finalizer is")
	code, _ = call(t, "PATCH", u, "application/merge-patch+json", `{"metadata":{"finalizers":null}}`)
	require.Equal(t, 200, code)
	code, _ = get(t, u)
	require.Equal(t, 404, code)
}

func TestDeletePreconditionsConflict(t *testing.T) {
	srv := fakeapiservertest.Start(t)
	mustCreate(t, srv, cmGVR, map[string]any{"metadata": map[string]any{"name": "c", "namespace": "default"}})
	code, b := call(t, "DELETE", srv.URL()+"/api/v1/namespaces/default/configmaps/c", "application/json",
		`{"preconditions":{"uid":"wrong"}}`)
	require.Equal(t, 409, code, b)
	require.Equal(t, "Conflict", b["reason"])
}

func TestDeleteCollectionBySelector(t *testing.T) {
	srv := fakeapiservertest.Start(t)
	for i := range 4 {
		mustCreate(t, srv, podsGVR, pod("p"+strconv.Itoa(i), map[string]string{"even": strconv.FormatBool(i%2 == 0)}))
	}
	code, b := call(t, "DELETE", srv.URL()+"/api/v1/namespaces/default/pods?labelSelector=even%3Dtrue", "", "")
	require.Equal(t, 200, code, b)
	require.Len(t, b["items"], 2)
	objs, _, err := srv.List(podsGVR, "default")
	require.NoError(t, err)
	require.Len(t, objs, 2)
}

// TestStatusOnlyThroughTheStatusSubresource: a create's status becomes
// Pending, the main resource keeps the status, /status writes only it.
func TestStatusOnlyThroughTheStatusSubresource(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	raw, err := srv.Create(podsGVR, `{"metadata":{"name":"a","namespace":"default"},"spec":{"containers":[{"name":"c","image":"x:1"}]},"status":{"phase":"Running"}}`)
	require.NoError(t, err)
	require.Contains(t, string(raw.Bytes()), `"status":{"phase":"Pending","qosClass":"BestEffort"}`)
	raw, err = srv.Patch(podsGVR, "default", "a", meta.MergePatch, []byte(`{"status":{"phase":"Failed"}}`))
	require.NoError(t, err)
	require.Contains(t, string(raw.Bytes()), `"phase":"Pending"`, "status sent to the main resource is ignored")
	raw, err = srv.PatchStatus(podsGVR, "default", "a", meta.MergePatch, []byte(`{"spec":{"nodeName":"n"},"status":{"phase":"Running"}}`))
	require.NoError(t, err)
	require.Contains(t, string(raw.Bytes()), `"phase":"Running"`)
	require.NotContains(t, string(raw.Bytes()), `"nodeName"`, "spec sent to /status is ignored")
	require.Contains(t, string(raw.Bytes()), `"manager":"kubelet","operation":"Update","subresource":"status"`,
		"the status writer owns the status")
}
