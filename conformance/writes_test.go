package conformance

import (
	"testing"
)

// writeScenarios: what a write answers and which events it causes (issue #14
// items 1-4, 7 and 8).
var writeScenarios = []scenario{
	{name: "write/no-op-update", run: func(t *testing.T, tg *target, o *obs) {
		p, c, w := createWatched(t, tg, o, "configmaps", cmJSON("a"))
		u := tg.must(t, 200, "PUT", p+"/a", string(jsonBytes(c)))
		o.add("put unchanged: %s", o.rv(at(u, "metadata.resourceVersion")))
		u = tg.must(t, 200, "PATCH", p+"/a", `{"data":{"k":"v"}}`, "Content-Type", "application/merge-patch+json")
		o.add("merge patch unchanged: %s", o.rv(at(u, "metadata.resourceVersion")))
		u = tg.must(t, 200, "PATCH", p+"/a", `{"metadata":{"labels":{"x":"y"}}}`, "Content-Type", "application/merge-patch+json")
		o.add("merge patch label: %s", o.rv(at(u, "metadata.resourceVersion")))
		o.add("first event: %s", describe(o, w.must(t)))
	}},
	{name: "write/generation", run: func(t *testing.T, tg *target, o *obs) {
		ns := tg.namespace(t)
		gen := func(what string, m map[string]any) {
			o.add("%s: generation %s", what, str(at(m, "metadata.generation")))
		}
		pods, cms := "/api/v1/namespaces/"+ns+"/pods", "/api/v1/namespaces/"+ns+"/configmaps"
		deps := "/apis/apps/v1/namespaces/" + ns + "/deployments"
		merge := []string{"Content-Type", "application/merge-patch+json"}
		gen("pod created", tg.must(t, 201, "POST", pods, podJSON("a")))
		gen("pod labelled", tg.must(t, 200, "PATCH", pods+"/a", `{"metadata":{"labels":{"x":"y"}}}`, merge...))
		gen("pod image changed", tg.must(t, 200, "PATCH", pods+"/a", `{"spec":{"containers":[{"name":"c","image":"nginx:2"}]}}`,
			"Content-Type", "application/strategic-merge-patch+json"))
		gen("configmap created", tg.must(t, 201, "POST", cms, cmJSON("a")))
		gen("configmap changed", tg.must(t, 200, "PATCH", cms+"/a", `{"data":{"k":"v2"}}`, merge...))
		gen("deployment created", tg.must(t, 201, "POST", deps, deploymentJSON("d")))
		gen("deployment labelled", tg.must(t, 200, "PATCH", deps+"/d", `{"metadata":{"labels":{"x":"y"}}}`, merge...))
		gen("deployment scaled", tg.must(t, 200, "PATCH", deps+"/d", `{"spec":{"replicas":3}}`, merge...))
	}},
	{name: "write/pod-graceful-delete", run: func(t *testing.T, tg *target, o *obs) {
		p, c, w := createWatched(t, tg, o, "pods", podJSON("a"))
		o.add("generation %s", str(at(c, "metadata.generation")))
		r := tg.do(t, "DELETE", p+"/a", "")
		o.add("delete: %d %s %s", r.code, str(at(r.body, "kind")), deletion(o, r.body))
		tg.must(t, 201, "POST", p, podJSON("sentinel"))
		for _, ev := range w.until(t, "sentinel") {
			o.add("event %s %s", ev.Type, deletion(o, ev.Object))
		}
	}},
	{name: "write/configmap-delete", run: func(t *testing.T, tg *target, o *obs) {
		p, c, w := createWatched(t, tg, o, "configmaps", cmJSON("a"))
		r := tg.do(t, "DELETE", p+"/a", "")
		o.add("delete: %d %s status=%s details{name=%s kind=%s group=%s uid same=%t}", r.code, str(at(r.body, "kind")),
			str(at(r.body, "status")), str(at(r.body, "details.name")), str(at(r.body, "details.kind")),
			str(at(r.body, "details.group")), at(r.body, "details.uid") == at(c, "metadata.uid"))
		o.add("event %s", describe(o, w.must(t)))
	}},
	{name: "write/finalizer", run: func(t *testing.T, tg *target, o *obs) {
		p, _, w := createWatched(t, tg, o, "configmaps", `{"metadata":{"name":"a","finalizers":["example.com/hold"]},"data":{"k":"v"}}`)
		r := tg.do(t, "DELETE", p+"/a", "")
		o.add("delete: %d %s %s", r.code, str(at(r.body, "kind")), deletion(o, r.body))
		r = tg.do(t, "PATCH", p+"/a", `{"metadata":{"finalizers":null}}`, "Content-Type", "application/merge-patch+json")
		o.add("remove finalizer: %d %s", r.code, deletion(o, r.body))
		tg.must(t, 201, "POST", p, cmJSON("sentinel"))
		for _, ev := range w.until(t, "sentinel") {
			o.add("event %s %s", ev.Type, deletion(o, ev.Object))
		}
		o.add("get after: %s", status(tg.do(t, "GET", p+"/a", "")))
	}},
}

// deletion renders the parts of an object a deletion changes.
func deletion(o *obs, m map[string]any) string {
	ts := "deletionTimestamp=<none>"
	if at(m, "metadata.deletionTimestamp") != nil {
		ts = "deletionTimestamp=set"
	}
	return o.rv(at(m, "metadata.resourceVersion")) + " " + ts +
		" grace=" + str(at(m, "metadata.deletionGracePeriodSeconds")) +
		" generation=" + str(at(m, "metadata.generation")) +
		" finalizers=" + str(at(m, "metadata.finalizers"))
}

func deploymentJSON(name string) string {
	return obj(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":%q},"spec":{"replicas":1,`+
		`"selector":{"matchLabels":{"app":%q}},"template":{"metadata":{"labels":{"app":%q}},`+
		`"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`, name, name, name)
}

// createWatched creates an object of a core resource in a new namespace,
// notes its RV and opens a watch from there. It returns the collection path.
func createWatched(t *testing.T, tg *target, o *obs, resource, body string) (string, map[string]any, *stream) {
	p := "/api/v1/namespaces/" + tg.namespace(t) + "/" + resource
	c := tg.must(t, 201, "POST", p, body)
	rv := str(at(c, "metadata.resourceVersion"))
	o.add("create %s", o.rv(rv))
	return p, c, tg.watch(t, p+"?watch=1&resourceVersion="+rv)
}
