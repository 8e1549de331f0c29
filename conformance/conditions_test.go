package conformance

import (
	"context"
	"crypto/rand"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/meta"
)

// conditionSchema is metav1.Condition's OpenAPI schema as controller-gen
// writes it into a CustomResourceDefinition: every member but
// observedGeneration required, reason not empty.
const conditionSchema = `{"type":"object","required":["lastTransitionTime","message","reason","status","type"],"properties":{` +
	`"lastTransitionTime":{"type":"string","format":"date-time"},` +
	`"message":{"type":"string","maxLength":32768},` +
	`"observedGeneration":{"type":"integer","format":"int64","minimum":0},` +
	`"reason":{"type":"string","maxLength":1024,"minLength":1,"pattern":"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$"},` +
	`"status":{"type":"string","enum":["True","False","Unknown"]},` +
	`"type":{"type":"string","maxLength":316}}}`

// gadget is a custom resource with conditions, as an agent declares it.
type gadget struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Status          struct {
		Conditions []meta.Condition `json:"conditions"`
	} `json:"status"`
}

// TestSetConditionOnACustomResourceWithTheConditionSchema: a custom
// resource whose status.conditions use metav1.Condition's schema, with a
// status subresource. SetCondition with an empty message is accepted and
// stored with every member. On kube-apiserver a condition written without
// message is refused (422), which is why SetCondition writes it as "";
// the fake checks no schema and accepts it.
func TestSetConditionOnACustomResourceWithTheConditionSchema(t *testing.T) {
	onBoth(t, func(t *testing.T, tg *target) {
		b := make([]byte, 4)
		_, _ = rand.Read(b)
		group := fmt.Sprintf("c%x.conformance.zerokube.dev", b)
		crdPath := "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets." + group
		tg.must(t, 201, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", obj(`{"apiVersion":"apiextensions.k8s.io/v1",`+
			`"kind":"CustomResourceDefinition","metadata":{"name":"gadgets.%s"},"spec":{"group":"%s",`+
			`"names":{"plural":"gadgets","singular":"gadget","kind":"Gadget"},"scope":"Namespaced",`+
			`"versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},"schema":{"openAPIV3Schema":{"type":"object",`+
			`"properties":{"spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true},`+
			`"status":{"type":"object","properties":{"conditions":{"type":"array","x-kubernetes-list-type":"map",`+
			`"x-kubernetes-list-map-keys":["type"],"items":%s}}}}}}}]}}`, group, group, conditionSchema))
		t.Cleanup(func() { tg.do(t, "DELETE", crdPath, "") })
		ns := tg.namespace(t)
		crPath := "/apis/" + group + "/v1/namespaces/" + ns + "/gadgets"
		require.True(t, eventually(t, tg, func() bool { return tg.do(t, "GET", crPath, "").code == 200 }), "gadgets served")
		tg.must(t, 201, "POST", crPath, obj(`{"apiVersion":"%s/v1","kind":"Gadget","metadata":{"name":"g1"},"spec":{"size":3}}`, group))

		// refused writes a condition lacking member (it is given the
		// resourceVersion, so that only the condition can be refused):
		// kube-apiserver answers 422 naming the member, the fake, which
		// checks no schema, stores it.
		refused := func(member, condition string) {
			t.Helper()
			cur := tg.must(t, 200, "GET", crPath+"/g1", "")
			r := tg.do(t, "PUT", crPath+"/g1/status", obj(`{"apiVersion":"%s/v1","kind":"Gadget","metadata":{"name":"g1","resourceVersion":%q},`+
				`"status":{"conditions":[%s]}}`, group, str(at(cur, "metadata.resourceVersion")), condition))
			if tg.fake == nil {
				require.Equal(t, 422, r.code, "a condition without %s: %s", member, r.raw)
				require.Contains(t, string(r.raw), member, "refused for its missing %s", member)
			} else {
				require.Equal(t, 200, r.code, "the fake checks no schema: %s", r.raw)
			}
		}
		// The write SetCondition made before it wrote every member.
		refused("message", `{"type":"Ready","status":"True","reason":"Up","lastTransitionTime":"2026-01-02T03:04:05Z"}`)
		// What apimachinery's SetStatusCondition writes for a condition read
		// without lastTransitionTime whose status holds: SetCondition stamps
		// it instead (issue 38 item 4).
		refused("lastTransitionTime", `{"type":"Ready","status":"True","reason":"Up","message":"","lastTransitionTime":null}`)

		client, err := apiclient.New(tg.cfg)
		require.NoError(t, err)
		t.Cleanup(client.CloseIdleConnections)
		ref := apiclient.Ref{GVR: meta.GVR{Group: group, Version: "v1", Resource: "gadgets"}, Namespace: ns}
		g, err := apiclient.SetCondition[gadget](context.Background(), client, ref, "g1",
			meta.Condition{Type: "Ready", Status: meta.ConditionFalse, Reason: "Starting"}, apiclient.ConditionOptions{})
		require.NoError(t, err, "SetCondition with an empty message")
		require.Len(t, g.Status.Conditions, 1)
		stored := tg.must(t, 200, "GET", crPath+"/g1", "")
		conds, _ := at(stored, "status.conditions").([]any)
		require.Len(t, conds, 1)
		c := conds[0].(map[string]any)
		require.Equal(t, "", c["message"])
		require.Equal(t, "Starting", c["reason"])
		require.Equal(t, "False", c["status"])
	})
}
