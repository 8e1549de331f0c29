package fakeapiserver

import (
	"slices"
	"strings"

	"github.com/zerokube/zerokube/fakeapiserver/internal/storage"
)

// What kube-apiserver adds to the objects it is given, in three steps that
// matter for managedFields: the defaults of pkg/apis/core/v1/defaults.go
// are applied when the body is decoded (before the field manager, so the
// writer owns them); admission plugins run after it (Priority sets
// priority and preemptionPolicy, DefaultTolerationSeconds the not-ready and
// unreachable tolerations: nobody owns those); the strategy's
// PrepareForCreate runs last (pkg/registry/core/pod/strategy.go: the status
// becomes {phase: Pending, qosClass}). Checked against a real v1.37 server
// by conformance fields/pod-defaults-and-status and fields/managed-fields.

func isCore(res *Resource, resource string) bool {
	return res.GVR.Group == "" && res.GVR.Resource == resource
}

// applyDefaults sets the decode-time defaults of the core kinds the fake
// knows: pods (SetDefaults_PodSpec, SetDefaults_Container) and namespaces
// (SetDefaults_Namespace: the kubernetes.io/metadata.name label).
func applyDefaults(res *Resource, m object) {
	switch {
	case isCore(res, "pods"):
		spec, ok := m["spec"].(map[string]any)
		if !ok {
			return
		}
		setDefault(spec, "enableServiceLinks", true) // SetDefaults_Pod: pods only, not templates
		defaultPodSpec(spec)
	case isCore(res, "namespaces"):
		md := storage.MetadataOf(m)
		labels, _ := md["labels"].(map[string]any)
		if labels == nil {
			labels = map[string]any{}
			md["labels"] = labels
		}
		labels["kubernetes.io/metadata.name"] = storage.Str(md, "name")
	default:
		defaultWorkload(res, m) // defaults.go
	}
}

// defaultPodSpec is SetDefaults_PodSpec and SetDefaults_Container, for a
// pod's spec and a pod template's.
func defaultPodSpec(spec map[string]any) {
	setDefault(spec, "dnsPolicy", "ClusterFirst")
	setDefault(spec, "restartPolicy", "Always")
	setDefault(spec, "schedulerName", "default-scheduler")
	setDefault(spec, "securityContext", map[string]any{})
	setDefault(spec, "terminationGracePeriodSeconds", int64(30))
	for _, list := range []string{"initContainers", "containers"} {
		cs, _ := spec[list].([]any)
		for _, c := range cs {
			if c, ok := c.(map[string]any); ok {
				defaultContainer(c)
			}
		}
	}
}

// defaultContainer is SetDefaults_Container: the pull policy from the
// image's tag, the termination message, empty resources, TCP ports.
func defaultContainer(c map[string]any) {
	setDefault(c, "imagePullPolicy", pullPolicy(storage.Str(c, "image")))
	setDefault(c, "terminationMessagePath", "/dev/termination-log")
	setDefault(c, "terminationMessagePolicy", "File")
	setDefault(c, "resources", map[string]any{})
	ports, _ := c["ports"].([]any)
	for _, p := range ports {
		if p, ok := p.(map[string]any); ok {
			setDefault(p, "protocol", "TCP")
		}
	}
}

// pullPolicy is Always for an image tagged latest or not tagged (and not
// pinned by digest), IfNotPresent otherwise.
func pullPolicy(image string) string {
	if strings.Contains(image, "@") {
		return "IfNotPresent"
	}
	last := image[strings.LastIndex(image, "/")+1:]
	tag := ""
	if i := strings.LastIndex(last, ":"); i >= 0 {
		tag = last[i+1:]
	}
	if tag == "" || tag == "latest" {
		return "Always"
	}
	return "IfNotPresent"
}

func setDefault(m map[string]any, k string, v any) {
	if _, ok := m[k]; !ok {
		m[k] = v
	}
}

// admit does what kube-apiserver's default admission plugins add to a new
// pod: priority 0 with PreemptLowerPriority (Priority, no priority class),
// and 300 s tolerations of not-ready and unreachable nodes
// (DefaultTolerationSeconds), unless the pod tolerates them already.
func admit(res *Resource, m object) {
	if !isCore(res, "pods") {
		return
	}
	spec, ok := m["spec"].(map[string]any)
	if !ok {
		return
	}
	setDefault(spec, "priority", int64(0))
	setDefault(spec, "preemptionPolicy", "PreemptLowerPriority")
	tols, _ := spec["tolerations"].([]any)
	for _, key := range []string{"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"} {
		if !tolerates(tols, key) {
			tols = append(tols, map[string]any{"key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": int64(300)})
		}
	}
	spec["tolerations"] = tols
}

// tolerates reports whether a toleration of tols covers key's NoExecute taint.
func tolerates(tols []any, key string) bool {
	for _, t := range tols {
		t, _ := t.(map[string]any)
		e := storage.Str(t, "effect")
		if (storage.Str(t, "key") == key || (storage.Str(t, "key") == "" && storage.Str(t, "operator") == "Exists")) &&
			(e == "" || e == "NoExecute") {
			return true
		}
	}
	return false
}

// prepareForCreate does what a kind's strategy does to a new object: a pod
// is Pending with its QoS class, whatever status was sent; a namespace is
// Active with the kubernetes finalizer; other kinds with a status
// subresource start with none.
func prepareForCreate(res *Resource, m object) {
	switch {
	case isCore(res, "pods"):
		m["status"] = map[string]any{"phase": "Pending", "qosClass": qosClass(m)}
	case isCore(res, "namespaces"):
		spec, _ := m["spec"].(map[string]any)
		if spec == nil {
			spec = map[string]any{}
			m["spec"] = spec
		}
		// The kubernetes finalizer is always there: the namespace
		// controller's, which it removes once the namespace is empty.
		fins, _ := spec["finalizers"].([]any)
		if !slices.Contains(fins, any("kubernetes")) {
			spec["finalizers"] = append(fins, "kubernetes")
		}
		m["status"] = map[string]any{"phase": "Active"}
	case res.StatusSubresource:
		delete(m, "status")
	}
}

// qosClass is the pod's QoS class (pkg/apis/core/helper/qos): BestEffort
// without any request or limit, Guaranteed when every container limits cpu
// and memory and requests what it limits, Burstable otherwise.
func qosClass(m object) string {
	spec, _ := m["spec"].(map[string]any)
	some, guaranteed := false, true
	for _, list := range []string{"initContainers", "containers"} {
		cs, _ := spec[list].([]any)
		for _, c := range cs {
			c, _ := c.(map[string]any)
			r, _ := c["resources"].(map[string]any)
			req, _ := r["requests"].(map[string]any)
			lim, _ := r["limits"].(map[string]any)
			some = some || len(req) > 0 || len(lim) > 0
			if lim["cpu"] == nil || lim["memory"] == nil {
				guaranteed = false
			}
			for k, v := range req {
				if k == "cpu" || k == "memory" {
					guaranteed = guaranteed && v == lim[k]
				}
			}
		}
	}
	switch {
	case !some:
		return "BestEffort"
	case guaranteed:
		return "Guaranteed"
	}
	return "Burstable"
}
