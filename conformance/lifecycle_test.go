package conformance

import (
	"maps"
	"sort"
	"strings"
	"testing"
)

// lifecycleScenarios: a namespace's deletion up to what kube-apiserver shows
// without kube-controller-manager (the namespace stays Terminating there;
// the fake, which plays the controller, goes on to empty and remove it, as
// its unit tests check), and server-side apply: conflicts, force, and the
// fields an applier stops applying.
var lifecycleScenarios = []scenario{
	{name: "lifecycle/namespace-delete", run: func(t *testing.T, tg *target, o *obs) {
		ns := tg.namespace(t)
		p := "/api/v1/namespaces/" + ns
		// Content a finalizer holds keeps the namespace Terminating on the
		// fake too, where the controller would otherwise remove it at once.
		tg.must(t, 201, "POST", p+"/configmaps", `{"metadata":{"name":"held","finalizers":["example.com/hold"]}}`)
		c := tg.must(t, 200, "GET", p, "")
		o.add("created: %s", namespaceState(o, c))
		w := tg.watch(t, "/api/v1/namespaces?watch=1&fieldSelector=metadata.name%3D"+ns+
			"&resourceVersion="+str(at(c, "metadata.resourceVersion")))
		r := tg.do(t, "DELETE", p, `{"preconditions":{"uid":"00000000-0000-0000-0000-000000000000"}}`)
		o.add("delete, wrong uid: %s", namespace.ReplaceAllString(status(r), "<namespace>"))
		o.add("message: %s", namespace.ReplaceAllString(uuid.ReplaceAllString(str(at(r.body, "message")), "<uid>"), "<namespace>"))
		r = tg.do(t, "DELETE", p, "")
		o.add("delete: %d %s", r.code, namespaceState(o, r.body))
		o.add("managedFields unchanged: %t", str(at(r.body, "metadata.managedFields")) == str(at(c, "metadata.managedFields")))
		ev := w.must(t)
		o.add("event %s %s", ev.Type, namespaceState(o, ev.Object))
		for _, body := range []string{cmJSON("a"), `{"metadata":{"generateName":"gen-"}}`} {
			r = tg.do(t, "POST", p+"/configmaps", body)
			o.add("create inside: %s", namespace.ReplaceAllString(status(r), "<namespace>"))
			o.add("message: %s", namespace.ReplaceAllString(str(at(r.body, "message")), "<namespace>"))
		}
		r = tg.do(t, "PATCH", p+"/configmaps/held", `{"metadata":{"finalizers":null}}`, "Content-Type", "application/merge-patch+json")
		o.add("release held content: %d", r.code)
		r = tg.do(t, "DELETE", "/api/v1/namespaces/default", "")
		o.add("delete default: %s", status(r))
		o.add("message: %s", str(at(r.body, "message")))
	}},
	{name: "lifecycle/apply-conflict", run: func(t *testing.T, tg *target, o *obs) {
		p := "/api/v1/namespaces/" + tg.namespace(t) + "/configmaps/a"
		apply := func(manager, data string, query ...string) reply {
			return tg.do(t, "PATCH", p+"?fieldManager="+manager+strings.Join(query, ""),
				"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n"+data, "Content-Type", "application/apply-patch+yaml")
		}
		r := apply("a", "  k: v1\n  shared: s\n")
		o.add("a creates: %d", r.code)
		r = apply("b", "  k: v2\n")
		o.add("b sets k: %s", conflictStatus(r))
		o.add("message: %s", str(at(r.body, "message")))
		r = apply("b", "  shared: s\n")
		o.add("b sets shared to its value: %d", r.code)
		managed(o, "shared", r.body)
		r = tg.do(t, "PATCH", p+"?fieldManager=c", `{"data":{"k":"v3"}}`, "Content-Type", "application/merge-patch+json")
		o.add("c updates k: %d", r.code)
		r = apply("a", "  k: v1\n  shared: s\n")
		o.add("a applies again: %s", conflictStatus(r))
		o.add("message: %s", str(at(r.body, "message")))
		r = apply("b", "  k: v4\n  shared: t\n")
		o.add("b sets both: %s", conflictStatus(r))
		o.add("message: %s", str(at(r.body, "message")))
	}},
	{name: "lifecycle/apply-force", run: func(t *testing.T, tg *target, o *obs) {
		ns := tg.namespace(t)
		p := "/api/v1/namespaces/" + ns + "/pods/a"
		pod := func(image string) string {
			return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\nspec:\n  containers:\n  - name: c\n    image: " + image + "\n"
		}
		yaml := []string{"Content-Type", "application/apply-patch+yaml"}
		tg.must(t, 201, "PATCH", p+"?fieldManager=a", pod("nginx:1"), yaml...)
		r := tg.do(t, "PATCH", p+"?fieldManager=b", pod("nginx:2"), yaml...)
		o.add("b sets image: %s", conflictStatus(r))
		o.add("message: %s", str(at(r.body, "message")))
		r = tg.do(t, "PATCH", p+"?fieldManager=b&force=true", pod("nginx:2"), yaml...)
		o.add("b forces image: %d image=%s", r.code, str(at(r.body, "spec.containers.0.image")))
		for _, e := range at(r.body, "metadata.managedFields").([]any) {
			o.add("  manager=%s operation=%s fieldsV1=%s", str(at(e, "manager")), str(at(e, "operation")),
				str(at(e, "fieldsV1.f:spec")))
		}
		r = tg.do(t, "PATCH", p+"?fieldManager=a", pod("nginx:1"), yaml...)
		o.add("a applies its image again: %s", conflictStatus(r))
		o.add("message: %s", str(at(r.body, "message")))
	}},
	{name: "lifecycle/apply-prune", run: func(t *testing.T, tg *target, o *obs) {
		p := "/api/v1/namespaces/" + tg.namespace(t) + "/configmaps/a"
		apply := func(manager, labels, data string) {
			r := tg.do(t, "PATCH", p+"?fieldManager="+manager, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"+
				labels+"data:\n"+data, "Content-Type", "application/apply-patch+yaml")
			o.add("%s applies: %d labels=%s data=%s %s", manager, r.code, str(at(r.body, "metadata.labels")), str(at(r.body, "data")), str(at(r.body, "message")))
		}
		apply("a", "  labels:\n    x: z\n", "  k1: v\n  k2: v\n")
		apply("b", "", "  k2: v\n")
		apply("a", "", "  k1: v\n")
		apply("a", "", "  k3: v\n")
		r := tg.do(t, "PATCH", p+"?fieldManager=c", `{"data":{"k4":"v"}}`, "Content-Type", "application/merge-patch+json")
		o.add("c adds k4: %d", r.code)
		apply("a", "", "  k3: v\n  k4: v\n")
		apply("a", "", "  k5: v\n")
		managed(o, "finally", tg.must(t, 200, "GET", p, ""))
	}},
	{name: "lifecycle/apply-prune-list", run: func(t *testing.T, tg *target, o *obs) {
		p := "/apis/apps/v1/namespaces/" + tg.namespace(t) + "/deployments/d"
		apply := func(containers ...string) {
			cs := ""
			for _, c := range containers {
				cs += "      - name: " + c + "\n        image: nginx\n"
			}
			r := tg.do(t, "PATCH", p+"?fieldManager=a", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n"+
				"spec:\n  selector:\n    matchLabels:\n      app: d\n  template:\n    metadata:\n      labels:\n        app: d\n"+
				"    spec:\n      containers:\n"+cs, "Content-Type", "application/apply-patch+yaml")
			var names []string
			list, _ := at(r.body, "spec.template.spec.containers").([]any)
			for _, c := range list {
				names = append(names, str(at(c, "name")))
			}
			o.add("apply %v: %d containers %v", containers, r.code, names)
		}
		apply("c1", "c2", "c3")
		apply("c1", "c3")
		apply("c3")
	}},
	{name: "lifecycle/apply-conflict-status", run: func(t *testing.T, tg *target, o *obs) {
		p := "/apis/apps/v1/namespaces/" + tg.namespace(t) + "/deployments"
		tg.must(t, 201, "POST", p, deploymentJSON("d"))
		r := tg.do(t, "PATCH", p+"/d/status?fieldManager=s", `{"status":{"replicas":1}}`, "Content-Type", "application/merge-patch+json")
		o.add("s writes status: %d", r.code)
		for _, e := range at(r.body, "metadata.managedFields").([]any) {
			if at(e, "manager") == "s" { // the creator's entry holds apps/v1 defaults the fake does not set
				o.add("  manager=s operation=%s subresource=%s fieldsV1=%s", str(at(e, "operation")),
					str(at(e, "subresource")), str(at(e, "fieldsV1")))
			}
		}
		r = tg.do(t, "PATCH", p+"/d/status?fieldManager=b", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n"+
			"status:\n  replicas: 2\n", "Content-Type", "application/apply-patch+yaml")
		o.add("b applies status: %s", conflictStatus(r))
		o.add("message: %s", str(at(r.body, "message")))
	}},
}

// namespaceState renders what a namespace's deletion changes.
func namespaceState(o *obs, m map[string]any) string {
	ts := "<none>"
	if at(m, "metadata.deletionTimestamp") != nil {
		ts = "set"
	}
	return "kind=" + str(at(m, "kind")) + " " + o.rv(at(m, "metadata.resourceVersion")) +
		" phase=" + str(at(m, "status.phase")) + " deletionTimestamp=" + ts +
		" grace=" + str(at(m, "metadata.deletionGracePeriodSeconds")) +
		" spec.finalizers=" + str(at(m, "spec.finalizers")) + " finalizers=" + str(at(m, "metadata.finalizers")) +
		" conditions=" + str(at(m, "status.conditions")) + " label=" + namespace.ReplaceAllString(str(at(m, "metadata.labels")), "<namespace>")
}

// conflictStatus is status with the causes sorted: kube-apiserver lists
// the conflicts of several managers in map order.
func conflictStatus(r reply) string {
	s := status(r)
	i := strings.Index(s, " cause{")
	if i < 0 {
		return s
	}
	causes := strings.SplitAfter(strings.TrimSuffix(s[i+1:], "}"), "}")
	causes = causes[:len(causes)-1]
	for j := range causes {
		causes[j] = strings.TrimPrefix(causes[j], " ")
	}
	sort.Strings(causes)
	return s[:i] + " " + strings.Join(causes, " ") + "}"
}

func init() {
	maps.Copy(documented, documentedLifecycle)
}

// documentedLifecycle is documented (what kube-apiserver v1.37.2 answers)
// for lifecycleScenarios, kept beside them.
var documentedLifecycle = map[string][]string{
	"lifecycle/apply-conflict": {
		"a creates: 201",
		"b sets k: 409 Status/Conflict details{name=<none> group=<none> kind=<none> cause{FieldManagerConflict .data.k \"conflict with \\\"a\\\"\"}}",
		"message: Apply failed with 1 conflict: conflict with \"a\": .data.k",
		"b sets shared to its value: 200",
		"shared: 2 entries",
		"  manager=b operation=Apply apiVersion=v1 fieldsType=FieldsV1 time=false fieldsV1={\"f:data\":{\"f:shared\":{}}}",
		"  manager=a operation=Apply apiVersion=v1 fieldsType=FieldsV1 time=true fieldsV1={\"f:data\":{\"f:k\":{},\"f:shared\":{}}}",
		"c updates k: 200",
		"a applies again: 409 Status/Conflict details{name=<none> group=<none> kind=<none> cause{FieldManagerConflict .data.k \"conflict with \\\"c\\\" using v1\"}}",
		"message: Apply failed with 1 conflict: conflict with \"c\" using v1: .data.k",
		"b sets both: 409 Status/Conflict details{name=<none> group=<none> kind=<none> cause{FieldManagerConflict .data.k \"conflict with \\\"c\\\" using v1\"} cause{FieldManagerConflict .data.shared \"conflict with \\\"a\\\"\"}}",
		"message: Apply failed with 2 conflicts: conflicts with \"a\":\n- .data.shared\nconflicts with \"c\" using v1:\n- .data.k",
	},
	"lifecycle/apply-force": {
		"b sets image: 409 Status/Conflict details{name=<none> group=<none> kind=<none> cause{FieldManagerConflict .spec.containers[name=\"c\"].image \"conflict with \\\"a\\\"\"}}",
		"message: Apply failed with 1 conflict: conflict with \"a\": .spec.containers[name=\"c\"].image",
		"b forces image: 200 image=nginx:2",
		"  manager=a operation=Apply fieldsV1={\"f:containers\":{\"k:{\\\"name\\\":\\\"c\\\"}\":{\".\":{},\"f:name\":{}}}}",
		"  manager=b operation=Apply fieldsV1={\"f:containers\":{\"k:{\\\"name\\\":\\\"c\\\"}\":{\".\":{},\"f:image\":{},\"f:name\":{}}}}",
		"a applies its image again: 409 Status/Conflict details{name=<none> group=<none> kind=<none> cause{FieldManagerConflict .spec.containers[name=\"c\"].image \"conflict with \\\"b\\\"\"}}",
		"message: Apply failed with 1 conflict: conflict with \"b\": .spec.containers[name=\"c\"].image",
	},
	"lifecycle/namespace-delete": {
		"created: kind=Namespace rv1 phase=Active deletionTimestamp=<none> grace=<none> spec.finalizers=[\"kubernetes\"] finalizers=<none> conditions=<none> label={\"kubernetes.io/metadata.name\":\"<namespace>\"}",
		"delete, wrong uid: 409 Status/Conflict details{name=<namespace> group=<none> kind=namespaces}",
		"message: Operation cannot be fulfilled on namespaces \"<namespace>\": Precondition failed: UID in precondition: <uid>, UID in object meta: <uid>",
		"delete: 200 kind=Namespace rv2 phase=Terminating deletionTimestamp=set grace=<none> spec.finalizers=[\"kubernetes\"] finalizers=<none> conditions=<none> label={\"kubernetes.io/metadata.name\":\"<namespace>\"}",
		"managedFields unchanged: true",
		"event MODIFIED kind=Namespace rv2 phase=Terminating deletionTimestamp=set grace=<none> spec.finalizers=[\"kubernetes\"] finalizers=<none> conditions=<none> label={\"kubernetes.io/metadata.name\":\"<namespace>\"}",
		"create inside: 403 Status/Forbidden details{name=a group=<none> kind=configmaps cause{NamespaceTerminating metadata.namespace \"namespace <namespace> is being terminated\"}}",
		"message: configmaps \"a\" is forbidden: unable to create new content in namespace <namespace> because it is being terminated",
		"create inside: 403 Status/Forbidden details{name=gen- group=<none> kind=configmaps cause{NamespaceTerminating metadata.namespace \"namespace <namespace> is being terminated\"}}",
		"message: configmaps \"gen-\" is forbidden: unable to create new content in namespace <namespace> because it is being terminated",
		"release held content: 200",
		"delete default: 403 Status/Forbidden details{name=default group=<none> kind=namespaces}",
		"message: namespaces \"default\" is forbidden: this namespace may not be deleted",
	},
	"lifecycle/apply-prune": {
		"a applies: 201 labels={\"x\":\"z\"} data={\"k1\":\"v\",\"k2\":\"v\"} <none>",
		"b applies: 200 labels={\"x\":\"z\"} data={\"k1\":\"v\",\"k2\":\"v\"} <none>",
		"a applies: 200 labels=<none> data={\"k1\":\"v\",\"k2\":\"v\"} <none>",
		"a applies: 200 labels=<none> data={\"k2\":\"v\",\"k3\":\"v\"} <none>",
		"c adds k4: 200",
		"a applies: 200 labels=<none> data={\"k2\":\"v\",\"k3\":\"v\",\"k4\":\"v\"} <none>",
		"a applies: 200 labels=<none> data={\"k2\":\"v\",\"k4\":\"v\",\"k5\":\"v\"} <none>",
		"finally: 3 entries",
		"  manager=b operation=Apply apiVersion=v1 fieldsType=FieldsV1 time=false fieldsV1={\"f:data\":{\"f:k2\":{}}}",
		"  manager=a operation=Apply apiVersion=v1 fieldsType=FieldsV1 time=true fieldsV1={\"f:data\":{\"f:k5\":{}}}",
		"  manager=c operation=Update apiVersion=v1 fieldsType=FieldsV1 time=true fieldsV1={\"f:data\":{\"f:k4\":{}}}",
	},
	"lifecycle/apply-prune-list": {
		"apply [c1 c2 c3]: 201 containers [c1 c2 c3]",
		"apply [c1 c3]: 200 containers [c1 c3]",
		"apply [c3]: 200 containers [c3]",
	},
	"lifecycle/apply-conflict-status": {
		"s writes status: 200",
		"  manager=s operation=Update subresource=status fieldsV1={\"f:status\":{\"f:replicas\":{}}}",
		"b applies status: 409 Status/Conflict details{name=<none> group=<none> kind=<none> cause{FieldManagerConflict .status.replicas \"conflict with \\\"s\\\" with subresource \\\"status\\\" using apps/v1\"}}",
		"message: Apply failed with 1 conflict: conflict with \"s\" with subresource \"status\" using apps/v1: .status.replicas",
	},
}
