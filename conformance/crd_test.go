package conformance

import (
	"crypto/rand"
	"fmt"
	"testing"
	"time"
)

// crdScenarios: a CustomResourceDefinition's life as a client sees it.
var crdScenarios = []scenario{
	{name: "crd/lifecycle", run: func(t *testing.T, tg *target, o *obs) {
		b := make([]byte, 4)
		_, _ = rand.Read(b)
		group := fmt.Sprintf("l%x.conformance.zerokube.dev", b)
		crdPath := "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets." + group
		r := tg.do(t, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", obj(`{"apiVersion":"apiextensions.k8s.io/v1",`+
			`"kind":"CustomResourceDefinition","metadata":{"name":"gadgets.%s"},"spec":{"group":"%s",`+
			`"names":{"plural":"gadgets","singular":"gadget","kind":"Gadget","shortNames":["gdg"]},"scope":"Namespaced",`+
			`"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object",`+
			`"x-kubernetes-preserve-unknown-fields":true}}}]}}`, group, group))
		o.add("create: %d %s finalizers=%s generation=%s", r.code, str(at(r.body, "kind")),
			str(at(r.body, "metadata.finalizers")), str(at(r.body, "metadata.generation")))
		established := eventually(t, tg, func() bool {
			return str(at(tg.must(t, 200, "GET", crdPath, ""), "status.conditions")) != "<none>" &&
				conditionStatus(tg.must(t, 200, "GET", crdPath, ""), "Established") == "True"
		})
		crd := tg.must(t, 200, "GET", crdPath, "")
		o.add("established=%t NamesAccepted=%s acceptedNames=%s storedVersions=%s", established,
			conditionStatus(crd, "NamesAccepted"), str(at(crd, "status.acceptedNames")), str(at(crd, "status.storedVersions")))
		ns := tg.namespace(t)
		crPath := "/apis/" + group + "/v1/namespaces/" + ns + "/gadgets"
		served := eventually(t, tg, func() bool { return tg.do(t, "GET", crPath, "").code == 200 })
		c := tg.do(t, "POST", crPath, obj(`{"apiVersion":"%s/v1","kind":"Gadget","metadata":{"name":"g1"},"spec":{"size":3}}`, group))
		o.add("served=%t create a Gadget: %d generation=%s spec=%s", served, c.code, str(at(c.body, "metadata.generation")), str(at(c.body, "spec")))
		d := tg.do(t, "DELETE", crdPath, "")
		o.add("delete: %d %s deleting=%t", d.code, str(at(d.body, "kind")), at(d.body, "metadata.deletionTimestamp") != nil)
		gone := eventually(t, tg, func() bool { return tg.do(t, "GET", crdPath, "").code == 404 })
		o.add("definition gone=%t; its Gadget: %d", gone, tg.do(t, "GET", crPath+"/g1", "").code)
	}},
}

// conditionStatus is the status of the condition typ of an object.
func conditionStatus(v any, typ string) string {
	conds, _ := at(v, "status.conditions").([]any)
	for _, c := range conds {
		if str(at(c, "type")) == typ {
			return str(at(c, "status"))
		}
	}
	return "<none>"
}

// eventually asks cond until it holds, for up to 30 s: the real server's
// controllers act on a definition after the request that wrote it.
func eventually(t *testing.T, tg *target, cond func() bool) bool {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		<-tick.C
	}
	return true
}
