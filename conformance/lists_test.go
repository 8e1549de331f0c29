package conformance

import (
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// makeConfigMaps creates n configmaps c0, c1, … and returns the last RV.
func makeConfigMaps(t *testing.T, tg *target, ns string, n int) string {
	var rv string
	for i := range n {
		c := tg.must(t, 201, "POST", "/api/v1/namespaces/"+ns+"/configmaps", cmJSON("c"+strconv.Itoa(i)))
		rv = str(at(c, "metadata.resourceVersion"))
	}
	return rv
}

func names(list map[string]any) string {
	items, _ := at(list, "items").([]any)
	ns := make([]string, len(items))
	for i, it := range items {
		ns[i] = str(at(it, "metadata.name"))
	}
	return strings.Join(ns, ",")
}

// listScenarios: LIST pages, tokens and their expiry.
var listScenarios = []scenario{
	{name: "list/pages", run: func(t *testing.T, tg *target, o *obs) {
		ns := tg.namespace(t)
		last := rvNum(makeConfigMaps(t, tg, ns, 5))
		p := "/api/v1/namespaces/" + ns + "/configmaps?limit=2"
		var first string
		for q := p; ; {
			l := tg.must(t, 200, "GET", q, "")
			rv := str(at(l, "metadata.resourceVersion"))
			if first == "" {
				first = rv
				o.add("list rv >= last write: %t", rvNum(rv) >= last)
			}
			cont := str(at(l, "metadata.continue"))
			o.add("page %s: %s %s same rv=%t remaining=%s continue=%t items carry kind=%t", names(l), str(at(l, "kind")),
				str(at(l, "apiVersion")), rv == first, str(at(l, "metadata.remainingItemCount")), cont != "<none>",
				at(l, "items.0.kind") != nil)
			if cont == "<none>" {
				break
			}
			q = p + "&continue=" + url.QueryEscape(cont)
		}
		sel := tg.must(t, 200, "GET", p+"&labelSelector=app%3Dweb", "")
		o.add("with a selector: %s remaining=%s continue=%t", names(sel), str(at(sel, "metadata.remainingItemCount")),
			at(sel, "metadata.continue") != nil)
		tg.must(t, 200, "GET", "/api/v1/namespaces/"+ns+"/configmaps", "") // a consistent read brings the cache up to date
		zero := tg.must(t, 200, "GET", p+"&resourceVersion=0", "")
		o.add("rv=0 limit=2: %s continue=%t", names(zero), at(zero, "metadata.continue") != nil)
		empty := tg.do(t, "GET", "/api/v1/namespaces/"+ns+"/secrets", "")
		o.add("empty list has items []: %t", strings.Contains(string(empty.raw), `"items":[]`))
	}},
	{name: "list/continue-expired", run: func(t *testing.T, tg *target, o *obs) {
		ns := tg.namespace(t)
		makeConfigMaps(t, tg, ns, 3)
		l := tg.must(t, 200, "GET", "/api/v1/namespaces/"+ns+"/configmaps?limit=1", "")
		q := "/api/v1/namespaces/" + ns + "/configmaps?limit=1&continue=" + url.QueryEscape(str(at(l, "metadata.continue")))
		var r reply
		tg.expire(t, ns, func() bool { r = tg.do(t, "GET", q, ""); return r.code == 410 })
		o.add("%s", status(r))
		o.add("fresh continue token: %t", str(at(r.body, "metadata.continue")) != "<none>")
	}},
	{name: "list/future-resource-version", run: func(t *testing.T, tg *target, o *obs) {
		ns := tg.namespace(t)
		rv := rvNum(makeConfigMaps(t, tg, ns, 1))
		r := tg.do(t, "GET", "/api/v1/namespaces/"+ns+"/configmaps?resourceVersionMatch=NotOlderThan&resourceVersion="+
			strconv.FormatUint(rv+1_000_000, 10), "")
		o.add("%s", status(r))
		o.add("Retry-After: %s", r.header.Get("Retry-After"))
	}},
}
