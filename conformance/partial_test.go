package conformance

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zerokube/zerokube/internal/testutil"
	"github.com/zerokube/zerokube/kubeproto"
)

// partialScenarios: what kube-apiserver answers a client that asks for
// objects' metadata only (issue 32 item 1), the Accept headers
// apiclient sends for a metadata-only informer (as client-go's metadata
// client does): a meta.k8s.io/v1 PartialObjectMetadataList for a LIST, a
// PartialObjectMetadata per watch event, in JSON or protobuf as the first
// clause says.
var partialScenarios = []scenario{
	{name: "partial/list-get-watch", run: func(t *testing.T, tg *target, o *obs) {
		ns := tg.namespace(t)
		p := "/api/v1/namespaces/" + ns + "/configmaps"
		tg.must(t, 201, "POST", p, cmJSON("a"))
		tg.must(t, 201, "POST", p, cmJSON("b"))
		const params = ";as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
		js := tg.do(t, "GET", p+"?limit=1", "", "Accept", "application/json"+params+",application/json")
		o.add("json list: %d %s %s/%s items=%s continue=%t remaining=%s", js.code, js.header.Get("Content-Type"),
			str(at(js.body, "apiVersion")), str(at(js.body, "kind")), partialItems(js.body),
			str(at(js.body, "metadata.continue")) != "", str(at(js.body, "metadata.remainingItemCount")))
		pb := tg.do(t, "GET", p, "", "Accept", kubeproto.ContentType+params+",application/json"+params+",application/json")
		o.add("protobuf list: %s", pbDescribe(t, pb))
		o.add("protobuf list as JSON: items=%s", partialItems(testutil.ProtoJSON(t, pb.raw)))
		get := tg.do(t, "GET", p+"/a", "", "Accept", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1")
		o.add("get: %d %s/%s data=%t", get.code, str(at(get.body, "apiVersion")), str(at(get.body, "kind")), at(get.body, "data") != nil)
		wrong := tg.do(t, "GET", p, "", "Accept", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1")
		o.add("a list asked for as PartialObjectMetadata: %d %s", wrong.code, str(at(wrong.body, "reason")))
		w := tg.watch(t, p+"?watch=1&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan",
			"Accept", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json")
		o.add("watch: %d %s", w.code, w.header.Get("Content-Type"))
		for {
			ev := w.must(t)
			ann, _ := at(ev.Object, "metadata.annotations").(map[string]any)
			o.add("event %s %s/%s %s data=%t end=%s", ev.Type, str(at(ev.Object, "apiVersion")), str(at(ev.Object, "kind")),
				str(at(ev.Object, "metadata.name")), at(ev.Object, "data") != nil, str(ann["k8s.io/initial-events-end"]))
			if ev.Type == "BOOKMARK" {
				break
			}
		}
	}},
	{name: "partial/watch-error", run: func(t *testing.T, tg *target, o *obs) {
		// Issue 38 item 4: a metadata-only watch that fails after 200
		// carries the failure's Status in its ERROR event, not the Status
		// turned into a PartialObjectMetadata (k8s.io/apiserver's
		// transformObject passes a Status through).
		// StatefulSets, which the real server keeps out of its watch cache
		// (main_test.go), so that the watch reaches etcd.
		ns := tg.namespace(t)
		p := "/apis/apps/v1/namespaces/" + ns + "/statefulsets"
		const sts = `{"metadata":{"name":%q},"spec":{"selector":{"matchLabels":{"app":"s"}},` +
			`"template":{"metadata":{"labels":{"app":"s"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}}}`
		rv := str(at(tg.must(t, 201, "POST", p, obj(sts, "s1")), "metadata.resourceVersion"))
		tg.must(t, 201, "POST", p, obj(sts, "s2")) // an event after rv, so that reading one never waits
		const params = ";as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
		for _, accept := range []string{"application/json" + params + ",application/json",
			kubeproto.ContentType + params + ",application/json" + params + ",application/json"} {
			var ev event
			tg.expire(t, ns, func() bool {
				w := tg.watch(t, p+"?watch=1&resourceVersion="+rv, "Accept", accept)
				defer w.close()
				if strings.HasPrefix(w.header.Get("Content-Type"), kubeproto.ContentType) {
					ev = pbEvent(t, kubeproto.NewFrameReader(w.body, 0))
				} else {
					ev = w.must(t)
				}
				return ev.Type == "ERROR"
			})
			mt, _, _ := strings.Cut(accept, ";")
			o.add("%s: %s %s/%s %s %s %s", mt, ev.Type, str(at(ev.Object, "apiVersion")), str(at(ev.Object, "kind")),
				str(at(ev.Object, "status")), str(at(ev.Object, "code")), str(at(ev.Object, "reason")))
		}
	}},
}

func init() {
	// Beside documented_test.go's table, as strategic_test.go does.
	documented["partial/watch-error"] = []string{ // observed on kube-apiserver v1.37.2
		`application/json: ERROR v1/Status Failure 410 Expired`,
		`application/vnd.kubernetes.protobuf: ERROR v1/Status Failure 410 Expired`,
	}
}

// partialItems renders a PartialObjectMetadataList's items: kind and name,
// and whether anything beyond metadata came.
func partialItems(list map[string]any) string {
	items, _ := at(list, "items").([]any)
	var out []string
	for _, it := range items {
		m, _ := it.(map[string]any)
		extra := []string{}
		for k := range m {
			if k != "kind" && k != "apiVersion" && k != "metadata" {
				extra = append(extra, k)
			}
		}
		out = append(out, fmt.Sprintf("%s/%s:%s%v", str(m["apiVersion"]), str(m["kind"]), str(at(m, "metadata.name")), extra))
	}
	return strings.Join(out, ",")
}
