package conformance

import (
	"regexp"
	"testing"
)

func podJSON(name string) string {
	return obj(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":%q,"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`, name)
}

func cmJSON(name string) string {
	return obj(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"labels":{"app":"web"}},"data":{"k":"v"}}`, name)
}

var (
	uuid      = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	namespace = regexp.MustCompile(`conf-[0-9a-f]{8}`)
)

// message is a Status message with uids and the scenario's namespace masked.
func message(r reply) string {
	m := uuid.ReplaceAllString(str(at(r.body, "message")), "<uid>")
	return "message: " + namespace.ReplaceAllString(m, "<namespace>")
}

// statusScenarios: the Status a client gets for each kind of failure.
var statusScenarios = []scenario{
	{name: "status/not-found", run: func(t *testing.T, tg *target, o *obs) {
		ns := tg.namespace(t)
		r := tg.do(t, "GET", "/api/v1/namespaces/"+ns+"/pods/nope", "")
		o.add("%s", status(r))
		o.add("%s", message(r))
	}},
	{name: "status/already-exists", run: func(t *testing.T, tg *target, o *obs) {
		ns := tg.namespace(t)
		tg.must(t, 201, "POST", "/api/v1/namespaces/"+ns+"/pods", podJSON("a"))
		r := tg.do(t, "POST", "/api/v1/namespaces/"+ns+"/pods", podJSON("a"))
		o.add("%s", status(r))
		o.add("%s", message(r))
	}},
	{name: "status/conflict", run: func(t *testing.T, tg *target, o *obs) {
		ns := tg.namespace(t)
		c := tg.must(t, 201, "POST", "/api/v1/namespaces/"+ns+"/configmaps", cmJSON("a"))
		stale := str(at(c, "metadata.resourceVersion"))
		tg.must(t, 200, "PUT", "/api/v1/namespaces/"+ns+"/configmaps/a",
			obj(`{"metadata":{"name":"a","resourceVersion":%q},"data":{"k":"v2"}}`, stale))
		r := tg.do(t, "PUT", "/api/v1/namespaces/"+ns+"/configmaps/a",
			obj(`{"metadata":{"name":"a","resourceVersion":%q},"data":{"k":"v3"}}`, stale))
		o.add("%s", status(r))
		o.add("%s", message(r))
	}},
	{name: "status/uid-precondition", run: func(t *testing.T, tg *target, o *obs) {
		ns := tg.namespace(t)
		tg.must(t, 201, "POST", "/api/v1/namespaces/"+ns+"/pods", podJSON("a"))
		r := tg.do(t, "DELETE", "/api/v1/namespaces/"+ns+"/pods/a",
			`{"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"uid":"00000000-0000-0000-0000-000000000000"}}`)
		o.add("delete: %s", status(r))
		o.add("%s", message(r))
		r = tg.do(t, "PUT", "/api/v1/namespaces/"+ns+"/pods/a",
			`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","uid":"00000000-0000-0000-0000-000000000000"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`)
		o.add("update: %s", status(r))
		o.add("%s", message(r))
	}},
	{name: "status/list-parameters", run: func(t *testing.T, tg *target, o *obs) {
		ns := tg.namespace(t)
		for _, q := range []string{
			"resourceVersionMatch=NotOlderThan",
			"resourceVersionMatch=NotOlderThan&resourceVersion=1&continue=abc",
			"resourceVersionMatch=Exact&resourceVersion=0",
			"resourceVersionMatch=Sometimes&resourceVersion=1",
			"sendInitialEvents=true",
			"watch=1&sendInitialEvents=true",
			"watch=1&resourceVersionMatch=NotOlderThan",
			"watch=1&sendInitialEvents=true&resourceVersionMatch=Exact&resourceVersion=1",
			"continue=abc&resourceVersion=5",
			"continue=abc",
			"resourceVersion=abc",
			"labelSelector=a%20in%20(",
			"fieldSelector=spec.nope%3Dx",
			"limit=abc",
		} {
			r := tg.do(t, "GET", "/api/v1/namespaces/"+ns+"/pods?"+q, "")
			o.add("%s: %s", q, status(r))
		}
	}},
}
