package conformance

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/meta"
)

// watchScenarios: the event sequences a watcher sees.
var watchScenarios = []scenario{
	{name: "watch/events", run: func(t *testing.T, tg *target, o *obs) {
		ns := tg.namespace(t)
		p := "/api/v1/namespaces/" + ns + "/configmaps"
		makeConfigMaps(t, tg, ns, 1)
		l := tg.must(t, 200, "GET", p, "")
		w := tg.watch(t, p+"?watch=1&allowWatchBookmarks=true&resourceVersion="+str(at(l, "metadata.resourceVersion")))
		o.add("watch: %d %s chunked=%t", w.code, w.header.Get("Content-Type"), w.header.Get("Content-Length") == "")
		c := tg.must(t, 201, "POST", p, cmJSON("b"))
		o.add("create %s", o.rv(at(c, "metadata.resourceVersion")))
		u := tg.must(t, 200, "PATCH", p+"/b", `{"metadata":{"labels":{"x":"y"}}}`, "Content-Type", "application/merge-patch+json")
		o.add("patch %s", o.rv(at(u, "metadata.resourceVersion")))
		tg.must(t, 200, "DELETE", p+"/b", "")
		for range 3 {
			ev := w.must(t)
			o.add("event %s apiVersion=%s", describe(o, ev), str(at(ev.Object, "apiVersion")))
		}
	}},
	{name: "watch/from-zero-with-bookmarks", run: func(t *testing.T, tg *target, o *obs) {
		ns := tg.namespace(t)
		p := "/api/v1/namespaces/" + ns + "/pods"
		for _, n := range []string{"b", "a"} {
			tg.must(t, 201, "POST", p, podJSON(n))
		}
		tg.must(t, 200, "GET", p, "") // a consistent read brings the cache up to date
		w := tg.watch(t, p+"?watch=1&allowWatchBookmarks=true&resourceVersion=0")
		names, maxRV, after := initial(t, w)
		o.add("initial ADDED: %s", names)
		bookmark(o, after, maxRV)
	}},
	{name: "watch/streaming-list", run: func(t *testing.T, tg *target, o *obs) {
		ns := tg.namespace(t)
		p := "/api/v1/namespaces/" + ns + "/pods"
		for _, n := range []string{"c", "a", "b"} {
			tg.must(t, 201, "POST", p, podJSON(n))
		}
		w := tg.watch(t, p+"?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true")
		o.add("watch: %d", w.code)
		names, maxRV, after := initial(t, w)
		o.add("initial ADDED: %s", names)
		bookmark(o, after, maxRV)
		tg.must(t, 201, "POST", p, podJSON("d"))
		ev := w.must(t)
		o.add("then %s %s after the bookmark=%t", ev.Type, str(at(ev.Object, "metadata.name")),
			rvNum(at(ev.Object, "metadata.resourceVersion")) > rvNum(at(after.Object, "metadata.resourceVersion")))
	}},
	{name: "watch/bookmark-shells", run: func(t *testing.T, tg *target, o *obs) {
		// A bookmark's object is the kind's empty Go value with only its
		// resourceVersion (and the initial-events-end annotation) set, so
		// what it carries besides metadata differs by kind. An empty
		// streaming list makes the bookmark the first event.
		ns := tg.namespace(t)
		for _, p := range []string{"/api/v1/namespaces/" + ns + "/pods", "/api/v1/namespaces/" + ns + "/configmaps",
			"/api/v1/namespaces/" + ns + "/secrets", "/api/v1/namespaces/" + ns + "/services",
			"/api/v1/namespaces/" + ns + "/events", "/apis/apps/v1/namespaces/" + ns + "/deployments",
			"/apis/apps/v1/namespaces/" + ns + "/replicasets", "/apis/coordination.k8s.io/v1/namespaces/" + ns + "/leases",
			"/api/v1/nodes", "/api/v1/namespaces"} {
			w := tg.watch(t, p+"?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"+
				"&fieldSelector=metadata.name%3Dnone-such")
			ev := w.must(t)
			md, _ := at(ev.Object, "metadata").(map[string]any)
			delete(ev.Object, "metadata")
			o.add("%s %s metadata keys=%s: %s", ev.Type, str(at(ev.Object, "kind")), keys(md), str(ev.Object))
			w.close()
		}
	}},
	{name: "watch/bookmark-custom-resource", run: func(t *testing.T, tg *target, o *obs) {
		// A custom resource's bookmark: the cacher's empty object is
		// unstructured, so kind, apiVersion and metadata are all it has.
		ns := tg.namespace(t)
		p := "/apis/conformance.zerokube.dev/v1/namespaces/" + ns + "/widgets"
		tg.customResource(t, p)
		tg.must(t, 201, "POST", p, `{"apiVersion":"conformance.zerokube.dev/v1","kind":"Widget","metadata":{"name":"a"},"spec":{"x":1}}`)
		w := tg.watch(t, p+"?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true")
		names, maxRV, after := initial(t, w)
		o.add("initial ADDED: %s", names)
		bookmark(o, after, maxRV)
	}},
	{name: "watch/selector-transitions", run: func(t *testing.T, tg *target, o *obs) {
		ns := tg.namespace(t)
		p := "/api/v1/namespaces/" + ns + "/configmaps"
		c := tg.must(t, 201, "POST", p, cmJSON("a"))
		w := tg.watch(t, p+"?watch=1&labelSelector=app%3Dweb&resourceVersion="+str(at(c, "metadata.resourceVersion")))
		for _, app := range []string{"other", "still-other", "web"} {
			u := tg.must(t, 200, "PATCH", p+"/a", `{"metadata":{"labels":{"app":"`+app+`"}}}`,
				"Content-Type", "application/merge-patch+json")
			o.add("app=%s %s", app, o.rv(at(u, "metadata.resourceVersion")))
		}
		for range 2 {
			ev := w.must(t)
			o.add("event %s app=%s", describe(o, ev), str(at(ev.Object, "metadata.labels.app")))
		}
	}},
	{name: "watch/replay-from-an-old-rv", run: func(t *testing.T, tg *target, o *obs) {
		// A watch from before the objects existed replays what happened
		// since, event by event, while the server still holds that history.
		// (How long it holds it is where the servers differ: the fake until
		// Compact, kube-apiserver as long as its watch cache keeps the
		// events, at least 75 s, so a 410 on a watch cannot be provoked
		// here in bounded time.)
		// The watch starts at the resourceVersion of the empty namespace's
		// list, not at 1: how far back the history reaches depends on how
		// long the shared server has run (the suite's earlier tests take a
		// minute or more), not on what this scenario observes.
		ns := tg.namespace(t)
		p := "/api/v1/namespaces/" + ns + "/configmaps"
		before := str(at(tg.must(t, 200, "GET", p, ""), "metadata.resourceVersion"))
		makeConfigMaps(t, tg, ns, 2)
		tg.must(t, 200, "PATCH", p+"/c0", `{"data":{"k":"v2"}}`, "Content-Type", "application/merge-patch+json")
		tg.must(t, 200, "DELETE", p+"/c1", "")
		tg.must(t, 201, "POST", p, cmJSON("sentinel"))
		w := tg.watch(t, p+"?watch=1&resourceVersion="+before)
		for _, ev := range w.until(t, "sentinel") {
			o.add("event %s data=%s", describe(o, ev), str(at(ev.Object, "data")))
		}
	}},
	{name: "watch/timeout", run: func(t *testing.T, tg *target, o *obs) {
		ns := tg.namespace(t)
		w := tg.watch(t, "/api/v1/namespaces/"+ns+"/configmaps?watch=1&timeoutSeconds=1")
		_, more := w.next(t)
		o.add("watch %d ends cleanly with no event: %t", w.code, !more)
	}},
	{name: "watch/gzip", run: func(t *testing.T, tg *target, o *obs) {
		ns := tg.namespace(t)
		p := "/api/v1/namespaces/" + ns + "/configmaps"
		gz := []string{"Accept-Encoding", "gzip"}
		small := tg.do(t, "GET", p, "", gz...)
		o.add("small list: Content-Encoding=%q", small.header.Get("Content-Encoding"))
		big := strings.Repeat("x", 8000)
		for i := range 20 {
			tg.must(t, 201, "POST", p, fmt.Sprintf(`{"metadata":{"name":"big%d"},"data":{"k":%q}}`, i, big))
		}
		large := tg.do(t, "GET", p, "", gz...)
		o.add("160 KB list: %d Content-Encoding=%q Vary=%q items=%d", large.code,
			large.header.Get("Content-Encoding"), large.header.Values("Vary"), len(inflatedItems(t, large)))
		qualified := tg.do(t, "GET", p, "", "Accept-Encoding", "gzip;q=1.0")
		o.add("160 KB list, Accept-Encoding gzip;q=1.0: Content-Encoding=%q", qualified.header.Get("Content-Encoding"))
		tg.must(t, 201, "POST", p, fmt.Sprintf(`{"metadata":{"name":"huge"},"data":{"k":%q}}`, strings.Repeat("y", 140<<10)))
		one := tg.do(t, "GET", p+"/huge", "", gz...)
		o.add("GET of a 140 KiB object: %d Content-Encoding=%q", one.code, one.header.Get("Content-Encoding"))
		w := tg.watch(t, p+"?watch=1&resourceVersion=0&timeoutSeconds=1", gz...)
		o.add("watch from 0: Content-Encoding=%q", w.header.Get("Content-Encoding"))
		sl := tg.watch(t, p+"?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true", gz...)
		o.add("streaming list: Content-Encoding=%q Vary=%q", sl.header.Get("Content-Encoding"), sl.header.Values("Vary"))
	}},
}

// customResource makes the namespaced kind Widget of
// conformance.zerokube.dev/v1 (resource widgets) served, and waits until
// listPath (a list of widgets) answers: the fake registers it, the real
// server gets a CustomResourceDefinition, made once per server and kept
// for the scenarios that run after.
func (tg *target) customResource(t *testing.T, listPath string) {
	t.Helper()
	if tg.fake != nil {
		require.NoError(t, tg.fake.Register(fakeapiserver.Resource{
			GVR:  meta.GVR{Group: "conformance.zerokube.dev", Version: "v1", Resource: "widgets"},
			Kind: "Widget", Namespaced: true}))
		return
	}
	crd := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",` +
		`"metadata":{"name":"widgets.conformance.zerokube.dev"},"spec":{"group":"conformance.zerokube.dev",` +
		`"names":{"plural":"widgets","singular":"widget","kind":"Widget"},"scope":"Namespaced",` +
		`"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object",` +
		`"x-kubernetes-preserve-unknown-fields":true}}}]}}`
	r := tg.do(t, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
	require.Contains(t, []int{201, 409}, r.code, "creating the CRD: %s", r.raw)
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for tg.do(t, "GET", listPath, "").code != 200 {
		require.True(t, time.Now().Before(deadline), "kube-apiserver: %s not served 30 s after its CRD", listPath)
		<-tick.C
	}
}

// inflatedItems decodes a list reply, inflating it when it came gzipped,
// and returns its items.
func inflatedItems(t *testing.T, r reply) []any {
	t.Helper()
	raw := r.raw
	if r.header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		require.NoError(t, err)
		raw, err = io.ReadAll(zr)
		require.NoError(t, err)
	}
	var l struct {
		Items []any `json:"items"`
	}
	require.NoError(t, json.Unmarshal(raw, &l))
	return l.Items
}

// bookmark renders the event that ends the initial events.
func bookmark(o *obs, ev event, maxItemRV uint64) {
	md, _ := at(ev.Object, "metadata").(map[string]any)
	o.add("then %s %s metadata keys=%s initial-events-end=%s rv >= items=%t", ev.Type, str(at(ev.Object, "kind")), keys(md),
		annotation(md, "k8s.io/initial-events-end"), rvNum(at(md, "resourceVersion")) >= maxItemRV)
	delete(ev.Object, "metadata")
	o.add("bookmark object without metadata: %s", str(ev.Object))
}

func annotation(md map[string]any, key string) string {
	a, _ := md["annotations"].(map[string]any)
	return str(a[key])
}
