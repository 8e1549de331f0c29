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
	{name: "discovery/aggregated", run: func(t *testing.T, tg *target, o *obs) {
		want := map[string]bool{"pods": true, "configmaps": true, "namespaces": true, "deployments": true, "leases": true}
		for _, p := range []string{"/api", "/apis"} {
			r := tg.do(t, "GET", p, "", "Accept", aggregatedAccept)
			h := r.header
			o.add("%s: %d Content-Type=%s Vary=%s Cache-Control=%s Etag=%t kind=%s apiVersion=%s metadata=%s", p, r.code,
				h.Get("Content-Type"), h.Get("Vary"), h.Get("Cache-Control"), h.Get("Etag") != "",
				str(at(r.body, "kind")), str(at(r.body, "apiVersion")), str(at(r.body, "metadata")))
			groups, _ := at(r.body, "items").([]any)
			for _, g := range groups {
				group := str(at(g, "metadata.name"))
				if group == "apps" || p == "/api" {
					o.add("  group %s metadata=%s", group, str(at(g, "metadata")))
				}
				versions, _ := at(g, "versions").([]any)
				for _, v := range versions {
					resources, _ := at(v, "resources").([]any)
					for _, res := range resources {
						if want[str(at(res, "resource"))] {
							aggregatedResource(o, group, v, res)
						}
					}
				}
			}
		}
		for _, accept := range []string{"application/json", strings.ReplaceAll(aggregatedAccept, "v=v2;", "v=v2beta1;")} {
			r := tg.do(t, "GET", "/apis", "", "Accept", accept)
			o.add("/apis as %s: kind=%s Content-Type=%s", accept, str(at(r.body, "kind")), r.header.Get("Content-Type"))
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

// aggregatedAccept is what client-go's discovery client sends for /api and
// /apis (without the v2beta1 that 1.37 no longer serves).
const aggregatedAccept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"

// aggregatedResource renders one resource of an aggregated document, with
// its status subresource (the only one the fake serves) if it has one.
func aggregatedResource(o *obs, group string, v, res any) {
	status := "<none>"
	subs, _ := at(res, "subresources").([]any)
	for _, s := range subs {
		if str(at(s, "subresource")) == "status" {
			status = str(s)
		}
	}
	o.add("  %s/%s %s: freshness=%s responseKind=%s scope=%s singular=%s verbs=%s short=%s categories=%s status=%s",
		group, str(at(v, "version")), str(at(res, "resource")), str(at(v, "freshness")), str(at(res, "responseKind")),
		str(at(res, "scope")), str(at(res, "singularResource")), str(at(res, "verbs")), str(at(res, "shortNames")),
		str(at(res, "categories")), status)
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
