package fakeapiserver_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
)

const gadgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: example.com
  names: {plural: gadgets, singular: gadget, kind: Gadget, shortNames: [gdg]}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`

func TestKubectlInstallsUsesAndRemovesACustomResourceDefinition(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	k := newKubectl(t, srv)
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
		return p
	}
	require.Contains(t, k.run("apply", "-f", write("crd.yaml", gadgetCRD)), "customresourcedefinition.apiextensions.k8s.io/gadgets.example.com created")
	require.Equal(t, "True True", k.run("get", "crd", "gadgets.example.com", "-o",
		`jsonpath={.status.conditions[?(@.type=="Established")].status} {.status.conditions[?(@.type=="NamesAccepted")].status}`))
	require.Contains(t, k.run("apply", "-f", write("g.yaml", "apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g1, namespace: default}\nspec: {size: 3}\n")),
		"gadget.example.com/g1 created")
	require.Equal(t, "gadget.example.com/g1\n", k.run("get", "gdg", "-o", "name"))
	require.Contains(t, k.run("api-resources", "--api-group=example.com", "--no-headers"), "gdg")

	require.Contains(t, k.run("delete", "crd", "gadgets.example.com"), "deleted")
	_, err := k.cmd(t.Context(), "get", "gadgets").CombinedOutput()
	require.Error(t, err, "no longer served")
	code, _ := get(t, srv.URL()+"/apis/example.com/v1/namespaces/default/gadgets/g1")
	require.Equal(t, 404, code)
	_, apis := getAccept(t, srv.URL()+"/apis", aggregated)
	require.NotContains(t, string(jsonOf(t, apis)), "example.com", "nor listed by discovery")

	// Created again, it starts empty: its objects went with it.
	k.run("apply", "-f", filepath.Join(dir, "crd.yaml"))
	require.Equal(t, "", k.run("get", "gdg", "-o", "name"))
}

func TestACustomResourceDefinitionIsValidated(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	for _, body := range []string{
		`{"metadata":{"name":"wrong.example.com"},"spec":{"group":"example.com","names":{"plural":"gadgets","kind":"Gadget"},"scope":"Namespaced","versions":[{"name":"v1","served":true,"storage":true}]}}`,
		`{"metadata":{"name":"gadgets.example"},"spec":{"group":"example","names":{"plural":"gadgets","kind":"Gadget"},"scope":"Namespaced","versions":[{"name":"v1","served":true,"storage":true}]}}`,
		`{"metadata":{"name":"gadgets.example.com"},"spec":{"group":"example.com","names":{"plural":"gadgets","kind":"Gadget"},"scope":"Everywhere","versions":[{"name":"v1","served":true,"storage":true}]}}`,
		`{"metadata":{"name":"gadgets.example.com"},"spec":{"group":"example.com","names":{"plural":"gadgets","kind":"Gadget"},"scope":"Namespaced","versions":[{"name":"v1","served":true}]}}`,
	} {
		code, st := call(t, "POST", srv.URL()+"/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", body)
		require.Equal(t, 422, code, "%s: %v", body, st)
	}
	code, _ := get(t, srv.URL()+"/apis/example.com/v1/gadgets")
	require.Equal(t, 404, code, "nothing was installed")
}

func jsonOf(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

func TestADefinitionHeldByAnotherFinalizerStaysUntilItGoes(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	crds := srv.URL() + "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
	code, st := call(t, "POST", crds, "application/json", `{"metadata":{"name":"gadgets.example.com","finalizers":["example.com/hold"]},`+
		`"spec":{"group":"example.com","names":{"plural":"gadgets","kind":"Gadget"},"scope":"Cluster","versions":[{"name":"v1","served":true,"storage":true}]}}`)
	require.Equal(t, 201, code, st)
	code, _ = call(t, "POST", srv.URL()+"/apis/example.com/v1/gadgets", "application/json", `{"metadata":{"name":"g"}}`)
	require.Equal(t, 201, code)

	code, d := call(t, "DELETE", crds+"/gadgets.example.com", "", "")
	require.Equal(t, 200, code)
	require.NotNil(t, d["metadata"].(map[string]any)["deletionTimestamp"], "the reply is the definition, marked deleting")
	code, _ = get(t, srv.URL()+"/apis/example.com/v1/gadgets")
	require.Equal(t, 404, code, "its objects and kind went at once")
	code, held := get(t, crds+"/gadgets.example.com")
	require.Equal(t, 200, code)
	require.Equal(t, []any{"example.com/hold"}, held["metadata"].(map[string]any)["finalizers"])

	code, _ = call(t, "PATCH", crds+"/gadgets.example.com", "application/merge-patch+json", `{"metadata":{"finalizers":null}}`)
	require.Equal(t, 200, code)
	code, _ = get(t, crds+"/gadgets.example.com")
	require.Equal(t, 404, code, "gone with its last finalizer")
}
