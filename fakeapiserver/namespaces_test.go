package fakeapiserver_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/meta"
)

var nsGVR = meta.GVR{Version: "v1", Resource: "namespaces"}

// summary renders an event as "TYPE Kind name" plus what a namespace's
// deletion changes.
func summary(e wireEvent) string {
	md, _ := e.Object["metadata"].(map[string]any)
	s := fmt.Sprintf("%s %s %s", e.Type, e.Object["kind"], md["name"])
	if md["deletionTimestamp"] != nil {
		s += " deleting"
	}
	if st, _ := e.Object["status"].(map[string]any); e.Object["kind"] == "Namespace" {
		s += fmt.Sprintf(" phase=%v conditions=%d", st["phase"], len(conditionsOf(e.Object)))
	}
	return s
}

func conditionsOf(ns map[string]any) []any {
	st, _ := ns["status"].(map[string]any)
	c, _ := st["conditions"].([]any)
	return c
}

// watchAll opens one watch per resource from rv, so that a test sees every
// event of a namespace's deletion in order within each resource.
func watchAll(t *testing.T, srv *fakeapiserver.Server, rv string, paths ...string) []*watchStream {
	var out []*watchStream
	for _, p := range paths {
		out = append(out, openWatch(t, srv.URL()+p+"?watch=1&resourceVersion="+rv, nil))
	}
	return out
}

func TestDeletingANamespaceEmptiesItThenRemovesIt(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	mustCreate(t, srv, nsGVR, `{"metadata":{"name":"team"}}`)
	p := pod("web", nil)
	p["metadata"].(map[string]any)["namespace"] = "team"
	mustCreate(t, srv, podsGVR, p)
	rv := mustCreate(t, srv, cmGVR, `{"metadata":{"name":"conf","namespace":"team"}}`)
	ws := watchAll(t, srv, rv, "/api/v1/namespaces", "/api/v1/pods", "/api/v1/configmaps")

	code, body := call(t, "DELETE", srv.URL()+"/api/v1/namespaces/team", "", "")
	require.Equal(t, 200, code, body)
	require.Equal(t, "Namespace", body["kind"], "the DELETE answers the namespace it marked")
	require.Equal(t, "Terminating", body["status"].(map[string]any)["phase"])
	require.Empty(t, conditionsOf(body), "the answer is the mark, before the controller ran")

	var got []string
	for i := range 3 {
		got = append(got, summary(ws[0].mustNext()))
		if i == 0 {
			got = append(got, summary(ws[1].mustNext()), summary(ws[1].mustNext()), summary(ws[2].mustNext()))
		}
	}
	require.Equal(t, []string{
		"MODIFIED Namespace team deleting phase=Terminating conditions=0",
		"MODIFIED Pod web deleting", // a pod's graceful deletion: marked, then removed
		"DELETED Pod web deleting",
		"DELETED ConfigMap conf",
		"MODIFIED Namespace team deleting phase=Terminating conditions=5",
		"DELETED Namespace team deleting phase=Terminating conditions=5", // the last stored state
	}, got)
	code, _ = get(t, srv.URL()+"/api/v1/namespaces/team")
	require.Equal(t, 404, code)
}

func TestContentHeldByAFinalizerKeepsTheNamespaceTerminating(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	mustCreate(t, srv, nsGVR, `{"metadata":{"name":"team"}}`)
	rv := mustCreate(t, srv, cmGVR, `{"metadata":{"name":"held","namespace":"team","finalizers":["example.com/hold"]}}`)
	ws := watchAll(t, srv, rv, "/api/v1/namespaces")
	require.NoError(t, srv.Delete(nsGVR, "", "team"))
	require.Equal(t, "MODIFIED Namespace team deleting phase=Terminating conditions=0", summary(ws[0].mustNext()))
	ev := ws[0].mustNext()
	require.Equal(t, "MODIFIED Namespace team deleting phase=Terminating conditions=5", summary(ev))
	var remaining []string
	for _, c := range conditionsOf(ev.Object) {
		c := c.(map[string]any)
		remaining = append(remaining, fmt.Sprintf("%s=%s %s: %s", c["type"], c["status"], c["reason"], c["message"]))
	}
	require.Equal(t, []string{
		"NamespaceDeletionDiscoveryFailure=False ResourcesDiscovered: All resources successfully discovered",
		"NamespaceDeletionGroupVersionParsingFailure=False ParsedGroupVersions: All legacy kube types successfully parsed",
		"NamespaceDeletionContentFailure=False ContentDeleted: All content successfully deleted, may be waiting on finalization",
		"NamespaceContentRemaining=True SomeResourcesRemain: Some resources are remaining: configmaps. has 1 resource instances",
		"NamespaceFinalizersRemaining=True SomeFinalizersRemain: Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances",
	}, remaining)
	md := ev.Object["metadata"].(map[string]any)
	require.Contains(t, fmt.Sprint(md["managedFields"]), "kube-controller-manager",
		"the conditions are the controller's status write")

	// Creates are refused while it terminates, the held object is kept.
	code, st := call(t, "POST", srv.URL()+"/api/v1/namespaces/team/configmaps", "application/json", `{"metadata":{"name":"new"}}`)
	require.Equal(t, 403, code)
	require.Equal(t, "Forbidden", st["reason"])
	_, err := srv.Create(podsGVR, `{"metadata":{"name":"p","namespace":"team"},"spec":{"containers":[{"name":"c"}]}}`)
	require.ErrorContains(t, err, "because it is being terminated", "the Go API writes as HTTP does")
	held, err := srv.Get(cmGVR, "team", "held")
	require.NoError(t, err)
	require.NotNil(t, held.DeletionTimestamp)

	// The last finalizer's removal lets the controller finish.
	_, err = srv.Patch(cmGVR, "team", "held", meta.MergePatch, []byte(`{"metadata":{"finalizers":null}}`))
	require.NoError(t, err)
	require.Equal(t, "MODIFIED Namespace team deleting phase=Terminating conditions=5", summary(ws[0].mustNext()),
		"the conditions say nothing remains")
	require.Equal(t, "DELETED Namespace team deleting phase=Terminating conditions=5", summary(ws[0].mustNext()))
}

func TestNamespaceDeleteRules(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet()})
	for _, ns := range []string{"default", "kube-system", "kube-public"} {
		code, st := call(t, "DELETE", srv.URL()+"/api/v1/namespaces/"+ns, "", "")
		require.Equal(t, 403, code, ns)
		require.Equal(t, fmt.Sprintf("namespaces %q is forbidden: this namespace may not be deleted", ns), st["message"])
	}
	// kube-node-lease is not immortal.
	code, _ := call(t, "DELETE", srv.URL()+"/api/v1/namespaces/kube-node-lease", "", "")
	require.Equal(t, 200, code)

	// A namespace's spec.finalizers change only through the finalize
	// subresource: an update keeps them, and the kubernetes finalizer is
	// added to any a client sets.
	r, err := srv.Create(nsGVR, `{"metadata":{"name":"x"},"spec":{"finalizers":["example.com/mine"]}}`)
	require.NoError(t, err)
	code, body := call(t, "PATCH", srv.URL()+"/api/v1/namespaces/x", "application/merge-patch+json",
		`{"metadata":{"labels":{"a":"b"}},"spec":{"finalizers":[]}}`)
	require.Equal(t, 200, code, body)
	require.Equal(t, []any{"example.com/mine", "kubernetes"}, body["spec"].(map[string]any)["finalizers"])
	require.NotEqual(t, r.ResourceVersion, rvOf(body), "the label was written")

	// Preconditions are checked before the mark.
	code, st := call(t, "DELETE", srv.URL()+"/api/v1/namespaces/x", "application/json",
		`{"preconditions":{"resourceVersion":"`+r.ResourceVersion+`"}}`)
	require.Equal(t, 409, code, st)
	require.Contains(t, st["message"], "Precondition failed: ResourceVersion in precondition: "+r.ResourceVersion)

	// A namespace with another spec finalizer stays Terminating once
	// emptied; a second DELETE changes nothing.
	code, body = call(t, "DELETE", srv.URL()+"/api/v1/namespaces/x", "", "")
	require.Equal(t, 200, code)
	code, again := call(t, "DELETE", srv.URL()+"/api/v1/namespaces/x", "", "")
	require.Equal(t, 200, code)
	got, err := srv.Get(nsGVR, "", "x")
	require.NoError(t, err)
	require.Equal(t, got.ResourceVersion, rvOf(again))
	require.NotEqual(t, rvOf(body), got.ResourceVersion, "the controller wrote the conditions and finalized")
	code, body = get(t, srv.URL()+"/api/v1/namespaces/x")
	require.Equal(t, 200, code)
	require.Equal(t, []any{"example.com/mine"}, body["spec"].(map[string]any)["finalizers"])
}
