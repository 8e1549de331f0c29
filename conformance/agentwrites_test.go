package conformance

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/meta"
)

// The writes an agent makes (apiclient.UpdateMetadata, SetCondition,
// Apply) against both servers: the same calls, the same results.

type agentCM struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Data            map[string]string `json:"data,omitempty"`
}

type agentPod struct {
	meta.ObjectMeta `json:"metadata"`
	Status          struct {
		Phase      string           `json:"phase,omitempty"`
		Conditions []meta.Condition `json:"conditions,omitempty"`
	} `json:"status"`
}

func agentClient(t *testing.T, tg *target) *apiclient.Client {
	t.Helper()
	c, err := apiclient.NewWithOptions(tg.cfg, apiclient.Options{Logger: quiet()})
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	return c
}

func TestAgentWritesOnBothServers(t *testing.T) {
	onBoth(t, func(t *testing.T, tg *target) {
		ctx := t.Context()
		c := agentClient(t, tg)
		ns := tg.namespace(t)
		cms := apiclient.Ref{GVR: meta.GVR{Version: "v1", Resource: "configmaps"}, Namespace: ns}
		pods := apiclient.Ref{GVR: meta.GVR{Version: "v1", Resource: "pods"}, Namespace: ns}

		tg.must(t, 201, "POST", cms.Path(), cmJSON("a"))
		cm, err := apiclient.UpdateMetadata[agentCM](ctx, c, cms, "a", apiclient.MetadataChange{
			SetLabels: map[string]string{"tier": "db"}, RemoveLabels: []string{"app"},
			SetAnnotations: map[string]string{"note": "x"}})
		require.NoError(t, err)
		require.Equal(t, map[string]string{"tier": "db"}, cm.Labels)
		require.Equal(t, map[string]string{"note": "x"}, cm.Annotations)
		require.Equal(t, map[string]string{"k": "v"}, cm.Data)

		tg.must(t, 201, "POST", pods.Path(), podJSON("p"))
		cond := meta.Condition{Type: "example.com/Ready", Status: meta.ConditionTrue, Reason: "Up", Message: "ok"}
		p, err := apiclient.SetCondition[agentPod](ctx, c, pods, "p", cond, apiclient.ConditionOptions{})
		require.NoError(t, err)
		require.Equal(t, "Pending", p.Status.Phase)
		require.Len(t, p.Status.Conditions, 1)
		got := p.Status.Conditions[0]
		require.False(t, got.LastTransitionTime.IsZero())
		got.LastTransitionTime = cond.LastTransitionTime
		require.Equal(t, cond, got)
		again, err := apiclient.SetCondition[agentPod](ctx, c, pods, "p", cond, apiclient.ConditionOptions{})
		require.NoError(t, err)
		require.Equal(t, p.ResourceVersion, again.ResourceVersion, "an unchanged condition is not written")

		apply := func(manager string, force bool, data map[string]string) (*agentCM, error) {
			obj := &agentCM{TypeMeta: meta.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
				ObjectMeta: meta.ObjectMeta{Name: "applied"}, Data: data}
			return apiclient.Apply(ctx, c, cms, obj, apiclient.ApplyOptions{FieldManager: manager, Force: force})
		}
		out, err := apply("agent", false, map[string]string{"k": "v", "mine": "1"})
		require.NoError(t, err)
		require.Equal(t, map[string]string{"k": "v", "mine": "1"}, out.Data)
		_, err = apply("other", false, map[string]string{"k": "w"})
		require.True(t, meta.IsFieldManagerConflict(err), "%v", err)
		out, err = apply("other", true, map[string]string{"k": "w"})
		require.NoError(t, err)
		require.Equal(t, map[string]string{"k": "w", "mine": "1"}, out.Data)
		out, err = apply("agent", false, nil)
		require.NoError(t, err)
		require.Equal(t, map[string]string{"k": "w"}, out.Data)
	})
}

func init() {
	writeScenarios = append(writeScenarios, scenario{name: "writes/by-name-without-namespace", run: func(t *testing.T, tg *target, o *obs) {
		// Issue 38 item 3: the write an agent of every namespace made
		// through its informer's Ref: no namespace in the path. Both
		// servers answer a 404 NotFound that reads like a deleted object;
		// apiclient refuses it first when the Ref knows the resource is
		// namespaced (discovery's Ref), with an error that is no NotFound.
		ns := tg.namespace(t)
		tg.must(t, 201, "POST", "/api/v1/namespaces/"+ns+"/configmaps", cmJSON("a"))
		for _, m := range []string{"PATCH", "GET", "PUT", "DELETE"} {
			r := tg.do(t, m, "/api/v1/configmaps/a", `{"metadata":{"name":"a","labels":{"seen":"yes"}}}`,
				"Content-Type", "application/merge-patch+json")
			o.add("%s without namespace: %d %s %s, naming %s", m, r.code, str(at(r.body, "reason")), str(at(r.body, "message")),
				str(at(r.body, "details.name")))
		}
		r := tg.do(t, "POST", "/api/v1/configmaps", cmJSON("b"))
		o.add("POST without namespace: %d %s", r.code, str(at(r.body, "reason")))
		c := agentClient(t, tg)
		ref := apiclient.Ref{GVR: meta.GVR{Version: "v1", Resource: "configmaps"}, Scope: apiclient.ScopeNamespaced}
		_, err := apiclient.UpdateMetadata[agentCM](t.Context(), c, ref, "a",
			apiclient.MetadataChange{SetLabels: map[string]string{"seen": "yes"}})
		o.add("UpdateMetadata: no namespace=%t not found=%t", errors.Is(err, apiclient.ErrNoNamespace), meta.IsNotFound(err))
		cm, err := apiclient.UpdateMetadata[agentCM](t.Context(), c, ref.Namespaced(ns), "a",
			apiclient.MetadataChange{SetLabels: map[string]string{"seen": "yes"}})
		require.NoError(t, err)
		o.add("in its namespace: seen=%s", cm.Labels["seen"])
	}})
	documented["writes/by-name-without-namespace"] = []string{ // observed on kube-apiserver v1.37.2
		"PATCH without namespace: 404 NotFound the server could not find the requested resource, naming <none>",
		"GET without namespace: 404 NotFound the server could not find the requested resource, naming <none>",
		"PUT without namespace: 404 NotFound the server could not find the requested resource, naming <none>",
		"DELETE without namespace: 404 NotFound the server could not find the requested resource, naming <none>",
		"POST without namespace: 405 MethodNotAllowed",
		"UpdateMetadata: no namespace=true not found=false",
		"in its namespace: seen=yes",
	}
}
