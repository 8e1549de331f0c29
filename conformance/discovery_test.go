package conformance

import (
	"strings"
	"testing"
)

// kubectlScenarios: what kubectl and discovery clients read (issue #14
// items 6 and 9).
var kubectlScenarios = []scenario{
	{name: "discovery/resources", run: func(t *testing.T, tg *target, o *obs) {
		want := map[string]bool{"pods": true, "pods/status": true, "configmaps": true, "namespaces": true,
			"namespaces/status": true, "deployments": true, "deployments/status": true,
			"configmaps/status": true, "secrets/status": true} // the last two: listed by neither server
		for _, gv := range []string{"/api/v1", "/apis/apps/v1"} {
			l := tg.must(t, 200, "GET", gv, "")
			o.add("%s: %s %s groupVersion=%s", gv, str(at(l, "kind")), str(at(l, "apiVersion")), str(at(l, "groupVersion")))
			rs, _ := at(l, "resources").([]any)
			for _, r := range rs {
				if name := str(at(r, "name")); want[name] {
					o.add("  %s singular=%s namespaced=%s kind=%s verbs=%s short=%s categories=%s", name,
						str(at(r, "singularName")), str(at(r, "namespaced")), str(at(r, "kind")), str(at(r, "verbs")),
						str(at(r, "shortNames")), str(at(r, "categories")))
				}
			}
		}
		v := tg.must(t, 200, "GET", "/version", "")
		o.add("/version keys: %s", keys(v))
		for _, p := range []string{"/api", "/apis"} {
			o.add("%s: kind=%s", p, str(at(tg.must(t, 200, "GET", p, ""), "kind")))
		}
	}},
	{name: "discovery/health", run: func(t *testing.T, tg *target, o *obs) {
		for _, p := range []string{"/healthz", "/livez", "/readyz"} {
			r := tg.do(t, "GET", p, "", "Accept", "*/*")
			o.add("%s: %d %q %s", p, r.code, r.raw, strings.SplitN(r.header.Get("Content-Type"), ";", 2)[0])
		}
	}},
	{name: "kubectl/table-pods", run: func(t *testing.T, tg *target, o *obs) {
		ns := tg.namespace(t)
		tg.must(t, 201, "POST", "/api/v1/namespaces/"+ns+"/pods", podJSON("a"))
		table(t, tg, o, "/api/v1/namespaces/"+ns+"/pods")
		table(t, tg, o, "/api/v1/namespaces/"+ns+"/pods/a")
	}},
	{name: "kubectl/table-other-kinds", run: func(t *testing.T, tg *target, o *obs) {
		ns := tg.namespace(t)
		tg.must(t, 201, "POST", "/api/v1/namespaces/"+ns+"/configmaps", cmJSON("a"))
		table(t, tg, o, "/api/v1/namespaces/"+ns+"/configmaps")
		table(t, tg, o, "/api/v1/namespaces/"+ns)
	}},
}

// tableAccept is what kubectl get sends.
const tableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"

// table renders a Table answer: columns, then each row's cells (the Age
// column masked) and the kind of object the row carries.
func table(t *testing.T, tg *target, o *obs, path string) {
	tb := tg.must(t, 200, "GET", path, "", "Accept", tableAccept)
	what := path[strings.LastIndex(path, "/")+1:]
	if strings.HasPrefix(what, "conf-") {
		what = "<namespace>"
	}
	o.add("%s: %s %s", what, str(at(tb, "kind")), str(at(tb, "apiVersion")))
	cols, _ := at(tb, "columnDefinitions").([]any)
	age := -1
	for i, c := range cols {
		o.add("  column %s type=%s format=%s priority=%s", str(at(c, "name")), str(at(c, "type")),
			str(at(c, "format")), str(at(c, "priority")))
		if str(at(c, "name")) == "Age" {
			age = i
		}
	}
	rows, _ := at(tb, "rows").([]any)
	for _, r := range rows {
		cells, _ := at(r, "cells").([]any)
		if age >= 0 && age < len(cells) {
			cells[age] = "<age>"
		}
		if len(cells) > 0 && strings.HasPrefix(str(cells[0]), "conf-") {
			cells[0] = "<namespace>"
		}
		md, _ := at(r, "object.metadata").(map[string]any)
		o.add("  row %s object=%s %s metadata keys=%s", str(cells), str(at(r, "object.kind")), str(at(r, "object.apiVersion")),
			keys(md))
	}
	o.add("  list metadata keys=%s", keys(at(tb, "metadata")))
}
