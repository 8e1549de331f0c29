package fakeapiserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/zerokube/zerokube/fakeapiserver/internal/storage"
	"github.com/zerokube/zerokube/meta"
)

// A namespace's life, as a real cluster lives it. kube-apiserver's part
// (k8s.io/kubernetes pkg/registry/core/namespace/storage: REST.Delete,
// ShouldDeleteNamespaceDuringUpdate; apiserver admission plugin
// namespace/lifecycle): a DELETE only marks the namespace (deletionTimestamp,
// status.phase Terminating; one MODIFIED event, the answer is the marked
// namespace), creates in it are refused from then on, and it goes away when
// the finalize subresource leaves spec.finalizers empty. The namespace
// controller's part (kube-controller-manager, pkg/controller/namespace/
// deletion), which the fake plays since it stands for a whole cluster: it
// deletes the pods, then everything else in the namespace (each with its
// usual events), writes the deletion conditions to the status, and when
// nothing is left removes the "kubernetes" finalizer, which deletes the
// namespace in the same write (DELETED, carrying the last stored state).
// Content held by finalizers keeps the namespace Terminating until the last
// of it is gone; the fake then finishes at once, where the controller would
// retry after its estimate.

// immortalNamespaces may not be deleted (the lifecycle plugin's list).
var immortalNamespaces = map[string]bool{"default": true, "kube-system": true, "kube-public": true}

// controllerWrite is how the namespace controller's writes are recorded: its
// client's User-Agent product, as kube-apiserver derives the manager.
var controllerWrite = writeMeta{manager: "kube-controller-manager", operation: "Update", status: true}

func (s *Server) isNamespaces(res *Resource) bool { return res == s.nsRes }

// deleteNamespace is a DELETE of a namespace: it marks it Terminating (or
// leaves a Terminating one as it is), then plays the namespace controller.
// It returns the namespace as the DELETE answers it, and whether it is gone.
func (s *Server) deleteNamespace(name string, pre meta.Preconditions) (*storage.Object, bool, error) {
	if immortalNamespaces[name] {
		return nil, false, storage.Forbidden(s.nsRes, name, "this namespace may not be deleted")
	}
	marked, err := s.store.Update(s.nsRes, "", name, func(cur *storage.Object) (map[string]any, bool, error) {
		raw := cur.Raw()
		if pre.UID != nil && *pre.UID != raw.UID { // worded by REST.Delete, not by the generic rest.BeforeDelete
			return nil, false, storage.Conflict(s.nsRes, name, fmt.Sprintf(
				"Precondition failed: UID in precondition: %s, UID in object meta: %s", *pre.UID, raw.UID))
		}
		if err := checkPreconditions(s.nsRes, cur, meta.Preconditions{ResourceVersion: pre.ResourceVersion}); err != nil {
			return nil, false, err
		}
		m := cur.Decode()
		if raw.DeletionTimestamp != nil {
			return m, false, nil // already Terminating: nothing to write
		}
		// Written straight to storage, past the field manager: managedFields
		// do not change (REST.Delete's GuaranteedUpdate).
		storage.MetadataOf(m)["deletionTimestamp"] = s.nowString()
		status, _ := m["status"].(map[string]any)
		if status == nil {
			status = map[string]any{}
			m["status"] = status
		}
		status["phase"] = "Terminating"
		return m, false, nil
	})
	if err != nil {
		return nil, false, err
	}
	s.finishNamespace(name)
	return marked, false, nil
}

// checkNamespaceActive refuses a create in a Terminating namespace, as the
// lifecycle admission plugin does, before the object is validated or named
// (name is its name, or its generateName). A missing namespace is the
// store's 404; the store checks again under its lock, so that a create
// racing the namespace's deletion cannot land after its content was listed.
func (s *Server) checkNamespaceActive(res *Resource, ns, name string) error {
	if !res.Namespaced {
		return nil
	}
	if o, err := s.store.Get(s.nsRes, "", ns); err == nil && o.Raw().DeletionTimestamp != nil {
		return storage.NamespaceTerminating(res, name, ns)
	}
	return nil
}

// resumeNamespace continues the deletion of namespace ns, if it is
// Terminating, after an object in it went away: content held by
// finalizers may have been what kept it.
func (s *Server) resumeNamespace(ns string) {
	if o, err := s.store.Get(s.nsRes, "", ns); err == nil && o.Raw().DeletionTimestamp != nil {
		s.finishNamespace(ns)
	}
}

// finishNamespace is one pass of the namespace controller over a
// Terminating namespace (namespacedResourcesDeleter.Delete): delete the
// pods, and when none is left everything else; record what remains in the
// status conditions; finalize when nothing does.
func (s *Server) finishNamespace(name string) {
	var left remaining
	for _, res := range s.namespacedResources() {
		if left.count > 0 && !isCore(res, "pods") {
			break // pods come first, and other content waits until they are gone
		}
		left.add(res, s.deleteContent(res, name))
	}
	if _, err := s.update(s.nsRes, "", name, controllerWrite, func(cur object) (object, error) {
		setConditions(cur, left, s.nowString())
		return cur, nil
	}); err != nil || left.count > 0 {
		return // gone meanwhile, or waiting for finalizers
	}
	_, _ = s.store.Update(s.nsRes, "", name, func(cur *storage.Object) (map[string]any, bool, error) {
		m := cur.Decode()
		spec, _ := m["spec"].(map[string]any)
		fins, _ := spec["finalizers"].([]any)
		var keep []any
		for _, f := range fins {
			if f != "kubernetes" {
				keep = append(keep, f)
			}
		}
		if spec != nil {
			spec["finalizers"] = keep
		}
		// The finalize write deletes the namespace once no finalizer of
		// either kind is left (ShouldDeleteNamespaceDuringUpdate).
		return m, len(keep) == 0 && len(cur.Raw().Finalizers) == 0, nil
	})
}

// namespacedResources lists the namespaced resources, pods first (the
// controller deletes them before anything else), then by group and name.
func (s *Server) namespacedResources() []*Resource {
	s.reg.mu.RLock()
	out := make([]*Resource, 0, len(s.reg.byGVR))
	for _, res := range s.reg.byGVR {
		if res.Namespaced {
			out = append(out, res)
		}
	}
	s.reg.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if pa, pb := isCore(a, "pods"), isCore(b, "pods"); pa != pb {
			return pa
		}
		return a.GVR.Group+"/"+a.GVR.Version+"/"+a.GVR.Resource < b.GVR.Group+"/"+b.GVR.Version+"/"+b.GVR.Resource
	})
	return out
}

// deleteContent deletes every object of res in namespace ns, each as a
// client's DELETE would, and returns what is left (objects held by
// finalizers).
func (s *Server) deleteContent(res *Resource, ns string) []*storage.Object {
	list := func() []*storage.Object {
		p, err := s.store.List(context.Background(), res, &storage.Filter{NS: ns}, storage.ListOptions{RV: -1})
		if err != nil {
			return nil
		}
		return p.Items
	}
	for _, o := range list() {
		if o.Raw().DeletionTimestamp != nil {
			continue // already deleting: a second DELETE changes nothing
		}
		_, _, err := s.delete(res, ns, o.Raw().Name, meta.Preconditions{})
		var se *meta.StatusError
		if err != nil && !(errors.As(err, &se) && se.Status.Code == http.StatusNotFound) {
			s.log.Warn("fakeapiserver: namespace controller: delete failed", "resource", res.Qualified(),
				"namespace", ns, "name", o.Raw().Name, "err", err)
		}
	}
	return list()
}

// remaining is what a pass of the controller left in a namespace.
type remaining struct {
	count      int
	byResource map[string]int // "pods." or "widgets.example.com": how many
	byFin      map[string]int // finalizer: how many objects it holds
}

func (r *remaining) add(res *Resource, left []*storage.Object) {
	if len(left) == 0 {
		return
	}
	if r.byResource == nil {
		r.byResource, r.byFin = map[string]int{}, map[string]int{}
	}
	r.count += len(left)
	r.byResource[res.GVR.Resource+"."+res.GVR.Group] += len(left)
	for _, o := range left {
		for _, f := range o.Raw().Finalizers {
			r.byFin[f]++
		}
	}
}

// The deletion conditions the controller keeps on a Terminating namespace,
// in its order, with the reason and message each has when all is well
// (pkg/controller/namespace/deletion/status_condition_utils.go).
var namespaceConditions = []struct{ typ, reason, message string }{
	{"NamespaceDeletionDiscoveryFailure", "ResourcesDiscovered", "All resources successfully discovered"},
	{"NamespaceDeletionGroupVersionParsingFailure", "ParsedGroupVersions", "All legacy kube types successfully parsed"},
	{"NamespaceDeletionContentFailure", "ContentDeleted", "All content successfully deleted, may be waiting on finalization"},
	{"NamespaceContentRemaining", "ContentRemoved", "All content successfully removed"},
	{"NamespaceFinalizersRemaining", "ContentHasNoFinalizers", "All content-preserving finalizers finished"},
}

// setConditions writes the deletion conditions for what is left into the
// namespace m: a condition keeps its lastTransitionTime unless its status
// changes.
func setConditions(m object, left remaining, now string) {
	status, _ := m["status"].(map[string]any)
	if status == nil {
		status = map[string]any{}
		m["status"] = status
	}
	conds, _ := status["conditions"].([]any)
	for _, c := range namespaceConditions {
		st, reason, msg := "False", c.reason, c.message
		switch {
		case c.typ == "NamespaceContentRemaining" && len(left.byResource) > 0:
			st, reason, msg = "True", "SomeResourcesRemain", "Some resources are remaining: "+
				counted(left.byResource, "%s has %d resource instances")
		case c.typ == "NamespaceFinalizersRemaining" && len(left.byFin) > 0:
			st, reason, msg = "True", "SomeFinalizersRemain", "Some content in the namespace has finalizers remaining: "+
				counted(left.byFin, "%s in %d resource instances")
		}
		next := map[string]any{"type": c.typ, "status": st, "reason": reason, "message": msg, "lastTransitionTime": now}
		found := false
		for i, x := range conds {
			old, _ := x.(map[string]any)
			if old == nil || old["type"] != c.typ {
				continue
			}
			found = true
			if old["status"] == st {
				next["lastTransitionTime"] = old["lastTransitionTime"]
			}
			conds[i] = next
		}
		if !found {
			conds = append(conds, next)
		}
	}
	status["conditions"] = conds
}

// counted renders counts as the controller's messages do: one phrase per
// key, sorted, joined by ", ".
func counted(n map[string]int, format string) string {
	parts := make([]string, 0, len(n))
	for k, v := range n {
		parts = append(parts, fmt.Sprintf(format, k, v))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}
