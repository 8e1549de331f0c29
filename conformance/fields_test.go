package conformance

import (
	"testing"
)

// fieldScenarios: what the server adds to an object (issue #14 items 7, 8).
var fieldScenarios = []scenario{
	{name: "fields/managed-fields", run: func(t *testing.T, tg *target, o *obs) {
		ns := tg.namespace(t)
		p := "/api/v1/namespaces/" + ns + "/configmaps"
		ua := []string{"User-Agent", "myagent/v1.2 (linux/amd64) kubernetes/abc"}
		managed(o, "create", tg.must(t, 201, "POST", p, cmJSON("a"), ua...))
		managed(o, "patch by other", tg.must(t, 200, "PATCH", p+"/a?fieldManager=other", `{"data":{"k2":"v"}}`,
			"Content-Type", "application/merge-patch+json"))
		managed(o, "apply", tg.must(t, 200, "PATCH", p+"/a?fieldManager=applier",
			"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k3: v\n", "Content-Type", "application/apply-patch+yaml"))
		m := tg.must(t, 201, "POST", "/api/v1/namespaces/"+ns+"/pods", podJSON("p"), ua...)
		o.add("pod fieldsV1: %s", str(at(m, "metadata.managedFields.0.fieldsV1")))
	}},
	{name: "fields/pod-defaults-and-status", run: func(t *testing.T, tg *target, o *obs) {
		ns := tg.namespace(t)
		p := "/api/v1/namespaces/" + ns + "/pods"
		c := tg.must(t, 201, "POST", p, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"},`+
			`"spec":{"containers":[{"name":"c","image":"nginx"}]},"status":{"phase":"Running","podIP":"10.0.0.1"}}`)
		o.add("created spec: %s", str(at(c, "spec")))
		o.add("created status: %s", str(at(c, "status")))
		c["spec"].(map[string]any)["activeDeadlineSeconds"] = 60.0
		c["status"] = map[string]any{"phase": "Running", "podIP": "10.0.0.2"}
		s := tg.must(t, 200, "PUT", p+"/a/status", string(jsonBytes(c)))
		o.add("after PUT /status: activeDeadlineSeconds=%s phase=%s podIP=%s", str(at(s, "spec.activeDeadlineSeconds")),
			str(at(s, "status.phase")), str(at(s, "status.podIP")))
		s["status"] = map[string]any{"phase": "Failed"}
		s["metadata"].(map[string]any)["labels"] = map[string]any{"x": "y"}
		u := tg.must(t, 200, "PUT", p+"/a", string(jsonBytes(s)))
		o.add("after PUT: label=%s phase=%s", str(at(u, "metadata.labels.x")), str(at(u, "status.phase")))
	}},
}

// managed renders an object's managedFields, time left out.
func managed(o *obs, what string, m map[string]any) {
	entries, _ := at(m, "metadata.managedFields").([]any)
	o.add("%s: %d entries", what, len(entries))
	for _, e := range entries {
		hasTime := at(e, "time") != nil
		o.add("  manager=%s operation=%s apiVersion=%s fieldsType=%s time=%t fieldsV1=%s", str(at(e, "manager")),
			str(at(e, "operation")), str(at(e, "apiVersion")), str(at(e, "fieldsType")), hasTime, str(at(e, "fieldsV1")))
	}
}
