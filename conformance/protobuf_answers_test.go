package conformance

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/internal/testutil"
	"github.com/zerokube/zerokube/kubeproto"
)

// protobufScenarios: what kube-apiserver answers in protobuf
// (application/vnd.kubernetes.protobuf) for built-in kinds, and that it is
// the same object as its JSON answer (issue 23 item 3). "same" means the
// protobuf answer, read with kubeproto into JSON, decodes as the JSON
// answer does into Go structs: structView leaves out what a struct cannot
// tell from absent (null, {} and members holding only those). The fake's
// JSON leaves out empty non-pointer structs ("status":{}) that
// kube-apiserver's Go types always write and its protobuf always holds.
var protobufScenarios = []scenario{
	{name: "protobuf/get-list-status", run: func(t *testing.T, tg *target, o *obs) {
		ns := tg.namespace(t)
		for _, c := range protobufObjects(ns) {
			tg.must(t, 201, "POST", c.path, c.body)
			o.add("get %s", pbSame(t, tg, c.path+"/"+c.name))
		}
		cms := "/api/v1/namespaces/" + ns + "/configmaps"
		tg.must(t, 201, "POST", cms, cmJSON("cm2"))
		o.add("list %s", pbSame(t, tg, cms+"?limit=1"))
		o.add("list %s", pbSame(t, tg, cms))
		o.add("empty list %s", pbSame(t, tg, "/api/v1/namespaces/"+ns+"/services?labelSelector=none%3Dhere"))
		o.add("missing %s", pbSame(t, tg, cms+"/nope"))
		o.add("bad limit %s", pbSame(t, tg, cms+"?limit=abc"))
	}},
	{name: "protobuf/write-bodies", run: func(t *testing.T, tg *target, o *obs) {
		ns := tg.namespace(t)
		p := "/api/v1/namespaces/" + ns + "/configmaps"
		body, err := kubeproto.AppendObjectProto(nil, []byte(
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"v"},"binaryData":{"b":"AAH/"}}`))
		require.NoError(t, err)
		r := tg.do(t, "POST", p, string(body), "Content-Type", kubeproto.ContentType, "Accept", kubeproto.ContentType)
		o.add("create: %s", pbDescribe(t, r))
		got := testutil.ProtoJSON(t, r.raw)
		o.add("created data=%s binaryData=%s", str(at(got, "data")), str(at(got, "binaryData")))
		got["data"] = map[string]any{"k": "v2"}
		body, err = kubeproto.AppendObjectProto(nil, jsonBytes(got))
		require.NoError(t, err)
		r = tg.do(t, "PUT", p+"/a", string(body), "Content-Type", kubeproto.ContentType, "Accept", kubeproto.ContentType)
		o.add("update: %s data=%s", pbDescribe(t, r), str(at(testutil.ProtoJSON(t, r.raw), "data")))
	}},
	{name: "protobuf/watch", run: func(t *testing.T, tg *target, o *obs) {
		ns := tg.namespace(t)
		p := "/api/v1/namespaces/" + ns + "/configmaps"
		tg.must(t, 201, "POST", p, cmJSON("a"))
		tg.must(t, 201, "POST", p, cmJSON("b"))
		q := "?watch=1&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan"
		js := tg.watch(t, p+q)
		pb := tg.watch(t, p+q, "Accept", kubeproto.ContentType+", application/json")
		o.add("content types: %s | %s", js.header.Get("Content-Type"), pb.header.Get("Content-Type"))
		fr := kubeproto.NewFrameReader(pb.body, 0)
		initialJS, initialPB := readUntilBookmark(t, js.must), readUntilBookmark(t, func(t *testing.T) event { return pbEvent(t, fr) })
		o.add("initial events: %s; same=%t", eventNames(initialPB), sameStructs(byName(initialJS), byName(initialPB)))
		tg.must(t, 200, "PATCH", p+"/a", `{"data":{"k":"v2"}}`, "Content-Type", "application/merge-patch+json")
		tg.must(t, 200, "DELETE", p+"/b", "")
		tg.must(t, 201, "POST", p, cmJSON("sentinel"))
		live := js.until(t, "sentinel")
		for _, want := range live {
			// A periodic bookmark comes when the server's timer says, on
			// each stream on its own: not part of what is compared.
			if want.Type == "BOOKMARK" {
				continue
			}
			got := pbEvent(t, fr)
			for got.Type == "BOOKMARK" {
				got = pbEvent(t, fr)
			}
			o.add("%s %s %s same=%t", got.Type, str(at(got.Object, "kind")), str(at(got.Object, "metadata.name")),
				got.Type == want.Type && sameStructs(want.Object, got.Object))
		}
	}},
	{name: "write/put-names-another-object", run: func(t *testing.T, tg *target, o *obs) { // issue 23 item 6
		ns := tg.namespace(t)
		p := "/api/v1/namespaces/" + ns + "/configmaps"
		tg.must(t, 201, "POST", p, cmJSON("a"))
		for _, c := range []struct{ url, body string }{
			{p + "/missing", `{"metadata":{"name":"other"}}`},
			{p + "/a", `{"metadata":{"name":"other"}}`},
			{p + "/missing", `{"metadata":{}}`},
			{p + "/missing", `{"metadata":{"name":"x","namespace":"kube-system"}}`},
		} {
			r := tg.do(t, "PUT", c.url, c.body)
			o.add("%s: %s", status(r), str(at(r.body, "message")))
		}
	}},
	{name: "protobuf/invalid-utf8-in-a-json-body", run: func(t *testing.T, tg *target, o *obs) {
		// A JSON body whose strings hold bytes that are not UTF-8: what is
		// stored, as its JSON and its protobuf answers show it. kubeproto's
		// JSON -> protobuf encoder must store what kube-apiserver does, or a
		// protobuf informer and a JSON one would see different objects.
		ns := tg.namespace(t)
		p := "/api/v1/namespaces/" + ns + "/configmaps"
		r := tg.do(t, "POST", p, "{\"metadata\":{\"name\":\"a\",\"annotations\":{\"note\":\"x\xff\xfey\"}},\"data\":{\"k\":\"\\ud800v\"}}")
		o.add("create: %s", status(r))
		js := tg.do(t, "GET", p+"/a", "")
		pb := tg.do(t, "GET", p+"/a", "", "Accept", kubeproto.ContentType)
		for _, a := range []struct {
			name string
			raw  []byte
		}{{"json", js.raw}, {"protobuf", pb.raw}} {
			o.add("%s: the bytes as sent=%t, each as U+FFFD=%t, as \\ufffd=%t", a.name, bytes.Contains(a.raw, []byte("x\xff\xfey")),
				bytes.Contains(a.raw, []byte("x\uFFFD\uFFFDy")), bytes.Contains(a.raw, []byte(`x\ufffd\ufffdy`)))
		}
		o.add("json annotation %q data %q", str(at(js.body, "metadata.annotations.note")), fmt.Sprint(at(js.body, "data")))
	}},
	{name: "protobuf/custom-resource", run: func(t *testing.T, tg *target, o *obs) {
		ns := tg.namespace(t)
		list := "/apis/conformance.zerokube.dev/v1/namespaces/" + ns + "/widgets"
		tg.customResource(t, list)
		tg.must(t, 201, "POST", list, `{"apiVersion":"conformance.zerokube.dev/v1","kind":"Widget","metadata":{"name":"w"}}`)
		r := tg.do(t, "GET", list+"/w", "", "Accept", kubeproto.ContentType+", application/json")
		o.add("protobuf or JSON: %d %s", r.code, r.header.Get("Content-Type"))
		r = tg.do(t, "GET", list+"/w", "", "Accept", kubeproto.ContentType)
		o.add("protobuf only: %s", pbDescribe(t, r))
		st := testutil.ProtoJSON(t, r.raw)
		o.add("message: %s", str(at(st, "message")))
	}},
}

// sameStructs compares two decoded JSON values as Go structs would hold
// them.
func sameStructs(a, b any) bool { return reflect.DeepEqual(structView(a), structView(b)) }

func structView(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range v {
			if e = structView(e); e != nil {
				out[k] = e
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case map[string]event:
		out := map[string]any{}
		for k, e := range v {
			out[k] = []any{e.Type, structView(e.Object)}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = structView(e)
		}
		return out
	}
	return v
}

type pbCase struct{ path, name, body string }

// protobufObjects are objects of the special forms: bytes, quantities,
// int-or-strings, inline volume sources, times, nested lists.
func protobufObjects(ns string) []pbCase {
	core, apps, batch := "/api/v1/namespaces/"+ns, "/apis/apps/v1/namespaces/"+ns, "/apis/batch/v1/namespaces/"+ns
	return []pbCase{
		{core + "/configmaps", "cm", `{"metadata":{"name":"cm","annotations":{"a":"<&>ü"}},"data":{"k":"v"},"binaryData":{"b":"AAH/"}}`},
		{core + "/secrets", "s", `{"metadata":{"name":"s"},"type":"Opaque","data":{"pw":"aHVudGVyMg=="}}`},
		{core + "/services", "svc", `{"metadata":{"name":"svc"},"spec":{"selector":{"app":"x"},"ports":[{"name":"http","port":80,"targetPort":"http"},{"name":"n","port":81,"targetPort":8081}]}}`},
		{core + "/pods", "p", `{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"nginx","resources":{"requests":{"cpu":"100m","memory":"64Mi"}},` +
			`"livenessProbe":{"httpGet":{"path":"/","port":8080},"periodSeconds":5}}],"volumes":[{"name":"v","emptyDir":{"sizeLimit":"1Gi"}}]}}`},
		{apps + "/deployments", "d", deploymentJSON("d")},
		{batch + "/jobs", "j", `{"metadata":{"name":"j"},"spec":{"backoffLimit":0,"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox","command":["true"]}]}}}}`},
	}
}

// pbSame GETs path as JSON and as protobuf and describes the protobuf
// answer, with whether it holds the same object.
func pbSame(t *testing.T, tg *target, path string) string {
	t.Helper()
	js := tg.do(t, "GET", path, "")
	pb := tg.do(t, "GET", path, "", "Accept", kubeproto.ContentType+", application/json")
	require.Equal(t, js.code, pb.code, "GET %s: JSON and protobuf answers differ in code", path)
	return fmt.Sprintf("%s same=%t", pbDescribe(t, pb), sameStructs(js.body, testutil.ProtoJSON(t, pb.raw)))
}

// pbDescribe renders a protobuf answer: code, content type, the envelope's
// apiVersion and kind, and a list's item count.
func pbDescribe(t *testing.T, r reply) string {
	t.Helper()
	env, err := kubeproto.DecodeEnvelope(r.raw)
	require.NoError(t, err, "%d %s: %q", r.code, r.header.Get("Content-Type"), r.raw)
	s := fmt.Sprintf("%d %s %s %s", r.code, r.header.Get("Content-Type"), env.APIVersion, env.Kind)
	if strings.HasSuffix(env.Kind, "List") {
		list := testutil.ProtoJSON(t, r.raw)
		items, _ := list["items"].([]any)
		md, _ := list["metadata"].(map[string]any)
		cont, _ := md["continue"].(string)
		s += fmt.Sprintf(" items=%d continue=%t remaining=%s", len(items), cont != "", remaining(md["remainingItemCount"]))
	}
	return s
}

// remaining renders a list's remainingItemCount, a JSON number or absent.
func remaining(v any) string {
	if v == nil {
		return "<none>"
	}
	return fmt.Sprint(v)
}

// pbEvent reads one protobuf watch event as a JSON client would see it.
func pbEvent(t *testing.T, fr *kubeproto.FrameReader) event {
	t.Helper()
	msg, err := fr.Next()
	require.NotErrorIs(t, err, io.EOF, "the protobuf watch ended early")
	require.NoError(t, err)
	ev, err := kubeproto.DecodeWatchEvent(msg)
	require.NoError(t, err)
	return event{Type: ev.Type, Object: testutil.ProtoJSON(t, ev.Object)}
}

// readUntilBookmark reads the initial events up to the initial-events-end
// bookmark, which it leaves out.
func readUntilBookmark(t *testing.T, next func(*testing.T) event) []event {
	t.Helper()
	var evs []event
	for {
		ev := next(t)
		if ev.Type == "BOOKMARK" {
			require.Equal(t, "true", annotation(at(ev.Object, "metadata").(map[string]any), "k8s.io/initial-events-end"))
			return evs
		}
		evs = append(evs, ev)
	}
}

func byName(evs []event) map[string]event {
	m := map[string]event{}
	for _, ev := range evs {
		m[str(at(ev.Object, "metadata.name"))] = ev
	}
	return m
}

func eventNames(evs []event) string {
	var s []string
	for _, ev := range evs {
		s = append(s, ev.Type+" "+str(at(ev.Object, "metadata.name")))
	}
	sort.Strings(s)
	return strings.Join(s, ", ")
}
