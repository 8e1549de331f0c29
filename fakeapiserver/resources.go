package fakeapiserver

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/zerokube/zerokube/fakeapiserver/internal/storage"
	"github.com/zerokube/zerokube/meta"
)

// Resource describes one resource type the server serves. Register any
// group/version/resource with it; objects of every type are stored as
// generic JSON, so the server needs no Go type for them.
type Resource = storage.Resource

// builtins are the resource types every server starts with.
func builtins() []Resource {
	core := func(res, kind string, ns bool, short ...string) Resource {
		return Resource{GVR: meta.GVR{Version: "v1", Resource: res}, Kind: kind, Namespaced: ns, ShortNames: short}
	}
	apps := func(res, kind string, short ...string) Resource {
		return Resource{GVR: meta.GVR{Group: "apps", Version: "v1", Resource: res}, Kind: kind, Namespaced: true, ShortNames: short}
	}
	pods := core("pods", "Pod", true, "po")
	pods.GracefulDelete = true
	pods.FieldSelectors = []string{"spec.nodeName", "spec.restartPolicy", "spec.schedulerName",
		"spec.serviceAccountName", "status.phase", "status.podIP", "status.nominatedNodeName"}
	secrets := core("secrets", "Secret", true)
	secrets.FieldSelectors = []string{"type"}
	events := core("events", "Event", true, "ev")
	events.FieldSelectors = []string{"involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
		"involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
		"involvedObject.fieldPath", "reason", "reportingComponent", "source", "type"}
	nodes := core("nodes", "Node", false, "no")
	nodes.FieldSelectors = []string{"spec.unschedulable"}
	namespaces := core("namespaces", "Namespace", false, "ns")
	namespaces.FieldSelectors = []string{"status.phase"}
	rs := apps("replicasets", "ReplicaSet", "rs")
	rs.FieldSelectors = []string{"status.replicas"}
	sts := apps("statefulsets", "StatefulSet", "sts")
	for _, r := range []*Resource{&pods, &rs, &sts} {
		r.Categories = []string{"all"}
	}
	// Leases: leader election, and shard membership (leaderelection.Elector, leaderelection.Membership).
	leases := Resource{GVR: meta.GVR{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}, Kind: "Lease", Namespaced: true}
	svc := core("services", "Service", true, "svc")
	deploy := apps("deployments", "Deployment", "deploy")
	svc.Categories, deploy.Categories = []string{"all"}, []string{"all"}
	cm := core("configmaps", "ConfigMap", true, "cm")
	// Jobs: kubectl create job (issue 23).
	jobs := Resource{GVR: meta.GVR{Group: "batch", Version: "v1", Resource: "jobs"}, Kind: "Job", Namespaced: true,
		Categories: []string{"all"}, StatusSubresource: true}
	namespaces.NoDeleteCollection = true
	// Which kinds set metadata.generation and which have a status
	// subresource: their strategies in kubernetes/pkg/registry.
	for _, r := range []*Resource{&namespaces, &cm, &secrets, &svc, &nodes, &events, &leases} {
		r.NoGeneration = true
	}
	for _, r := range []*Resource{&namespaces, &pods, &svc, &nodes, &deploy, &rs, &sts} {
		r.StatusSubresource = true
	}
	for _, r := range []*Resource{&deploy, &rs, &sts} {
		r.ScaleSubresource = true // scale.go
	}
	// kubectl auth can-i (reviews.go).
	authz := func(res, kind string) Resource {
		return Resource{GVR: meta.GVR{Group: "authorization.k8s.io", Version: "v1", Resource: res}, Kind: kind,
			CreateOnly: true, NoGeneration: true}
	}
	return []Resource{namespaces, pods, cm, secrets, svc, nodes, events, deploy, rs, sts, leases, jobs, crdResource(),
		authz("selfsubjectaccessreviews", "SelfSubjectAccessReview"), authz("selfsubjectrulesreviews", "SelfSubjectRulesReview")}
}

// registry maps GVRs and group versions to resources. It is read on every
// request and written only by Register, hence the RWMutex.
type registry struct {
	mu    sync.RWMutex // guards byGVR
	byGVR map[meta.GVR]*Resource
}

func newRegistry() *registry {
	r := &registry{byGVR: map[meta.GVR]*Resource{}}
	for _, res := range builtins() {
		_ = r.add(res)
	}
	return r
}

func (r *registry) add(res Resource) error {
	if res.GVR.Version == "" || res.GVR.Resource == "" || res.Kind == "" {
		return fmt.Errorf("fakeapiserver: register %v: version, resource and kind are required", res.GVR)
	}
	if strings.Contains(res.GVR.Resource, "/") {
		return fmt.Errorf("fakeapiserver: register %v: subresources are not registered", res.GVR)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.byGVR[res.GVR]; ok {
		return fmt.Errorf("fakeapiserver: register %v: already registered", res.GVR)
	}
	res.ShortNames = append([]string(nil), res.ShortNames...)
	res.Categories = append([]string(nil), res.Categories...)
	res.FieldSelectors = append([]string(nil), res.FieldSelectors...)
	r.byGVR[res.GVR] = &res
	return nil
}

// remove stops serving gvr.
func (r *registry) remove(gvr meta.GVR) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.byGVR, gvr)
}

func (r *registry) get(gvr meta.GVR) *Resource {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.byGVR[gvr]
}

// byKind finds the resource of an apiVersion and kind, for objects given to
// the Go API without a GVR.
func (r *registry) byKind(apiVersion, kind string) *Resource {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, res := range r.byGVR {
		if res.Kind == kind && res.APIVersion() == apiVersion {
			return res
		}
	}
	return nil
}

// groupVersion lists the resources of one group version, sorted by name.
func (r *registry) groupVersion(group, version string) []*Resource {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []*Resource
	for gvr, res := range r.byGVR {
		if gvr.Group == group && gvr.Version == version {
			out = append(out, res)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].GVR.Resource < out[j].GVR.Resource })
	return out
}

// groups returns every non-core group with its versions, in
// kube-apiserver's order of preference (versionLess).
func (r *registry) groups() map[string][]string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := map[string][]string{}
	for gvr := range r.byGVR {
		if gvr.Group == "" {
			continue
		}
		vs := out[gvr.Group]
		found := false
		for _, v := range vs {
			found = found || v == gvr.Version
		}
		if !found {
			out[gvr.Group] = append(vs, gvr.Version)
		}
	}
	for _, vs := range out {
		sort.Slice(vs, func(i, j int) bool { return versionLess(vs[i], vs[j]) })
	}
	return out
}

// versionLess orders versions as kube-apiserver prefers them: GA before
// beta before alpha ("v2" < "v1" < "v1beta2" < "v1beta1" < "v1alpha1"),
// then any other name, alphabetically.
func versionLess(a, b string) bool {
	ka, kb := versionKey(a), versionKey(b)
	if ka.ok != kb.ok {
		return ka.ok
	}
	if !ka.ok {
		return a < b
	}
	if ka.stage != kb.stage {
		return ka.stage < kb.stage
	}
	if ka.major != kb.major {
		return ka.major > kb.major
	}
	return ka.minor > kb.minor
}

type versionRank struct {
	ok           bool
	stage        int // 0 GA, 1 beta, 2 alpha
	major, minor int
}

// versionKey parses "v<major>[(alpha|beta)<minor>]".
func versionKey(v string) versionRank {
	rest, ok := strings.CutPrefix(v, "v")
	if !ok {
		return versionRank{}
	}
	num := func(s string) (int, bool) {
		n, err := strconv.Atoi(s)
		return n, err == nil && n > 0 && s[0] != '0'
	}
	for stage, sep := range map[int]string{1: "beta", 2: "alpha"} {
		if maj, mnr, found := strings.Cut(rest, sep); found {
			a, ok1 := num(maj)
			b, ok2 := num(mnr)
			return versionRank{ok: ok1 && ok2, stage: stage, major: a, minor: b}
		}
	}
	a, ok := num(rest)
	return versionRank{ok: ok, major: a}
}
