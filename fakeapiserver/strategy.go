package fakeapiserver

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/zerokube/zerokube/fakeapiserver/internal/storage"
	"github.com/zerokube/zerokube/meta"
)

// The strategy is what kube-apiserver's registry does between the HTTP
// handler and storage: it decides what a written object becomes (the
// metadata the server owns, generation, status, defaults, managedFields)
// and how a delete proceeds. The store then decides when it is written.

// object is a decoded JSON object being edited by a write.
type object = map[string]any

// writeMeta says who writes and how, for managedFields and the status rules.
type writeMeta struct {
	manager   string // the fieldManager parameter, or the User-Agent's product
	operation string // "Update" (the default) or "Apply"
	status    bool   // the request is on the status subresource
	applied   object // an Apply's configuration, which its manager owns
	force     bool   // an Apply takes fields other managers own (force=true)
	dryRun    bool   // dryRun=All: everything but the write (dryrun.go)
}

func (s *Server) nowString() string { return s.now().UTC().Format(time.RFC3339) }

// create prepares m as a new object of res in namespace ns ("" for
// cluster-scoped resources) and stores it.
func (s *Server) create(res *Resource, ns string, m object, wm writeMeta) (*storage.Object, error) {
	md := storage.MetadataOf(m)
	if err := checkTypeAndNamespace(res, ns, m, md); err != nil {
		return nil, err
	}
	name := storage.Str(md, "name")
	if err := s.checkNamespaceActive(res, ns, cmp.Or(name, storage.Str(md, "generateName"))); err != nil {
		return nil, err // admission, before validation
	}
	if name == "" {
		gn := storage.Str(md, "generateName")
		if gn == "" {
			return nil, errInvalid(res, "", "metadata.name: Required value: name or generateName is required")
		}
		name = gn + storage.RandomSuffix()
		md["name"] = name
	}
	if res.Namespaced {
		md["namespace"] = ns
	} else {
		delete(md, "namespace")
	}
	md["uid"] = storage.NewUID()
	md["creationTimestamp"] = s.nowString()
	for _, k := range []string{"generation", "deletionTimestamp", "deletionGracePeriodSeconds", "resourceVersion"} {
		delete(md, k)
	}
	if !res.NoGeneration {
		md["generation"] = 1
	}
	applyDefaults(res, m)
	dropEmpty(res, m)
	s.allocateClusterIP(res, m)
	s.recordCreate(res, wm, m)
	admit(res, m)
	prepareForCreate(res, m)
	if wm.dryRun {
		if isCRD(res) {
			if _, err := readCRD(m); err != nil {
				return nil, err
			}
		}
		return s.store.CreateDry(res, m)
	}
	if !isCRD(res) {
		o, err := s.store.Create(res, m)
		if err == nil {
			s.kickStatus(res)
		}
		return o, err
	}
	spec, err := readCRD(m)
	if err != nil {
		return nil, err
	}
	m["status"] = s.crdStatus(spec)
	o, err := s.store.Create(res, m)
	if err == nil {
		s.installCRD(spec)
	}
	return o, err
}

// checkTypeAndNamespace rejects a body whose kind, apiVersion or namespace
// disagree with the request.
func checkTypeAndNamespace(res *Resource, ns string, m, md object) error {
	if k := storage.Str(m, "kind"); k != "" && k != res.Kind {
		return errBadRequest("the kind of the provided object (%s) does not match the resource (%s)", k, res.Kind)
	}
	if v := storage.Str(m, "apiVersion"); v != "" && v != res.APIVersion() {
		return errBadRequest("the API version in the data (%s) does not match the expected API version (%s)", v, res.APIVersion())
	}
	if got := storage.Str(md, "namespace"); res.Namespaced && got != "" && got != ns {
		return errBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	return nil
}

// mutateFunc computes the object a write asks for from a fresh copy of the
// current one: a PUT ignores it and returns its body, a patch patches it.
type mutateFunc func(cur object) (object, error)

// update writes what mutate asks for under the store's lock. A
// resourceVersion in the result is a precondition (409 when stale); the
// metadata the server owns is kept; a write that leaves a deleting object
// without finalizers deletes it.
func (s *Server) update(res *Resource, ns, name string, wm writeMeta, mutate mutateFunc) (*storage.Object, error) {
	var deleted bool
	write := s.store.Update
	if wm.dryRun {
		write = s.store.UpdateDry
	}
	o, err := write(res, ns, name, func(cur *storage.Object) (map[string]any, bool, error) {
		old := cur.Decode()
		m, err := mutate(cur.Decode())
		if err != nil {
			return nil, false, err
		}
		md := storage.MetadataOf(m)
		if err := checkTypeAndNamespace(res, ns, m, md); err != nil {
			return nil, false, err
		}
		if got := storage.Str(md, "name"); got != name {
			return nil, false, errBadRequest("the name of the object (%s) does not match the name on the URL (%s)", got, name)
		}
		if rv := storage.Str(md, "resourceVersion"); rv != "" && rv != cur.Raw().ResourceVersion {
			return nil, false, storage.Stale(res, name)
		}
		if uid := storage.Str(md, "uid"); uid != "" && uid != cur.Raw().UID {
			// A uid is a precondition too, checked by kube-apiserver's etcd
			// storage, whose error names the etcd key it refused to write.
			return nil, false, storage.Conflict(res, name, fmt.Sprintf(
				"StorageError: invalid object, Code: 4, Key: %s, ResourceVersion: 0, AdditionalErrorMsg: "+
					"Precondition failed: UID in precondition: %s, UID in object meta: %s", etcdKey(res, ns, name), uid, cur.Raw().UID))
		}
		if !wm.status {
			applyDefaults(res, m)
		}
		m = splitStatus(res, wm, old, m)
		dropEmpty(res, m)
		md = storage.MetadataOf(m)
		om := storage.MetadataOf(old)
		for _, k := range []string{"uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "namespace", "generation"} {
			if v, ok := om[k]; ok {
				md[k] = v
			} else {
				delete(md, k)
			}
		}
		if !res.NoGeneration && specChanged(old, m) {
			g, _ := om["generation"].(float64)
			md["generation"] = int64(g) + 1
		}
		if s.isNamespaces(res) && !wm.status {
			// Only the finalize subresource changes a namespace's
			// spec.finalizers (the namespace strategy's PrepareForUpdate).
			spec, _ := m["spec"].(map[string]any)
			if spec == nil {
				spec = map[string]any{}
				m["spec"] = spec
			}
			oldSpec, _ := old["spec"].(map[string]any)
			setOrDelete(spec, "finalizers", oldSpec["finalizers"])
		}
		if err := s.recordUpdate(res, wm, old, m, wm.applied); err != nil {
			return nil, false, err
		}
		deleted = om["deletionTimestamp"] != nil && len(cur.Raw().Finalizers) > 0 && !hasFinalizers(md) &&
			(!s.isNamespaces(res) || !hasSpecFinalizers(m))
		return m, deleted, nil
	})
	if err != nil || wm.dryRun {
		return o, err
	}
	s.kickStatus(res)
	if deleted && res.Namespaced {
		s.resumeNamespace(ns) // what it held may have been all that kept its namespace
	}
	if isCRD(res) {
		if deleted {
			s.uninstallCRD(o)
		} else if spec, err := readCRD(o.Decode()); err == nil && !wm.status {
			s.installCRD(spec) // new versions and names
		}
	}
	return o, err
}

// hasSpecFinalizers reports whether a namespace still waits for a
// finalizer of its spec ("kubernetes": the namespace controller).
func hasSpecFinalizers(m object) bool {
	spec, _ := m["spec"].(map[string]any)
	f, _ := spec["finalizers"].([]any)
	return len(f) > 0
}

// splitStatus applies the status subresource rules of kinds that have one:
// a write to /status changes the status and nothing else (kube-apiserver's
// status strategies copy the old spec, and rest.ResetObjectMetaForStatus
// the old labels, annotations, finalizers and owners); a write to the
// object keeps the old status.
func splitStatus(res *Resource, wm writeMeta, old, m object) object {
	if !res.StatusSubresource {
		return m
	}
	if wm.status {
		next, _ := deepCopy(old).(map[string]any) // old is compared with next later
		setOrDelete(next, "status", m["status"])
		md, nmd := storage.MetadataOf(m), storage.MetadataOf(next)
		setOrDelete(nmd, "resourceVersion", md["resourceVersion"])
		return next
	}
	setOrDelete(m, "status", old["status"])
	return m
}

func setOrDelete(m object, k string, v any) {
	if v == nil {
		delete(m, k)
		return
	}
	m[k] = v
}

func hasFinalizers(md object) bool {
	f, _ := md["finalizers"].([]any)
	return len(f) > 0
}

// specChanged reports a change outside metadata and status: what bumps
// metadata.generation.
func specChanged(old, cur object) bool {
	strip := func(m object) object {
		c := make(object, len(m))
		for k, v := range m {
			if k != "metadata" && k != "status" && k != "kind" && k != "apiVersion" {
				c[k] = v
			}
		}
		return c
	}
	return !reflect.DeepEqual(normalize(strip(old)), normalize(strip(cur)))
}

// normalize makes numbers comparable whether they came from JSON (float64)
// or from this package (int64).
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		c := make(map[string]any, len(x))
		for k, e := range x {
			c[k] = normalize(e)
		}
		return c
	case []any:
		c := make([]any, len(x))
		for i, e := range x {
			c[i] = normalize(e)
		}
		return c
	case int64:
		return float64(x)
	case int:
		return float64(x)
	}
	return v
}

// errDeleteAtOnce tells delete that the object has neither finalizers nor
// graceful deletion: it goes in one write.
var errDeleteAtOnce = errors.New("fakeapiserver: delete at once")

// delete deletes an object as kube-apiserver's registry does: preconditions
// first; an object with finalizers is only marked (deletionTimestamp, a
// MODIFIED event); a pod is marked, then removed (MODIFIED, then DELETED);
// anything else is removed at once. It returns the object's last state and
// whether it is gone.
func (s *Server) delete(res *Resource, ns, name string, pre meta.Preconditions) (*storage.Object, bool, error) {
	if s.isNamespaces(res) {
		return s.deleteNamespace(name, pre)
	}
	if isCRD(res) {
		return s.deleteCRD(name, pre)
	}
	var finalizers bool
	marked, err := s.store.Update(res, ns, name, func(cur *storage.Object) (map[string]any, bool, error) {
		if err := checkPreconditions(res, cur, pre); err != nil {
			return nil, false, err
		}
		finalizers = len(cur.Raw().Finalizers) > 0
		if !finalizers && !res.GracefulDelete {
			return nil, false, errDeleteAtOnce
		}
		m := cur.Decode()
		if md := storage.MetadataOf(m); md["deletionTimestamp"] == nil {
			s.markDeleting(res, m)
		}
		return m, false, nil
	})
	switch {
	case errors.Is(err, errDeleteAtOnce):
	case err != nil:
		return nil, false, err
	case finalizers:
		return marked, false, nil
	}
	uid := ""
	if marked != nil {
		uid = marked.Raw().UID
	}
	gone, err := s.store.Delete(res, ns, name, func(cur *storage.Object) error {
		if uid != "" && cur.Raw().UID != uid {
			return storage.Conflict(res, name, "the object was replaced while it was being deleted")
		}
		return checkPreconditions(res, cur, pre)
	})
	if err != nil {
		return nil, false, err
	}
	return gone, true, nil
}

// markDeleting sets what a graceful deletion writes first: the deletion
// timestamp, the grace period (0 for an unscheduled pod and for objects
// held by finalizers; the pod's terminationGracePeriodSeconds once it is
// on a node), and one more generation.
func (s *Server) markDeleting(res *Resource, m object) {
	md := storage.MetadataOf(m)
	grace := int64(0)
	if res.GracefulDelete {
		if node, _ := storage.LookupField(m, "spec.nodeName"); node != "" {
			grace = 30
			if g, ok := storage.LookupField(m, "spec.terminationGracePeriodSeconds"); ok && g != "" {
				fmt.Sscan(g, &grace)
			}
		}
	}
	md["deletionTimestamp"] = s.now().Add(time.Duration(grace) * time.Second).UTC().Format(time.RFC3339)
	md["deletionGracePeriodSeconds"] = grace
	if g, _ := md["generation"].(float64); g > 0 {
		md["generation"] = int64(g) + 1
	}
}

// checkPreconditions fails a delete whose preconditions do not hold. A
// wrong uid is caught first by kube-apiserver's rest.BeforeDelete, whose
// Conflict names the Kind ("Pod"); a wrong resourceVersion by its storage,
// whose Conflict names the resource ("pods").
func checkPreconditions(res *Resource, cur *storage.Object, pre meta.Preconditions) error {
	raw := cur.Raw()
	if pre.UID != nil && *pre.UID != raw.UID {
		kindRes := &Resource{GVR: meta.GVR{Group: res.GVR.Group, Resource: res.Kind}}
		return storage.Conflict(kindRes, raw.Name, fmt.Sprintf("the UID in the precondition (%s) does not match the UID in record (%s). "+
			"The object might have been deleted and then recreated", *pre.UID, raw.UID))
	}
	if pre.ResourceVersion != nil && *pre.ResourceVersion != raw.ResourceVersion {
		return storage.Conflict(res, raw.Name, fmt.Sprintf(
			"Precondition failed: ResourceVersion in precondition: %s, ResourceVersion in object meta: %s",
			*pre.ResourceVersion, raw.ResourceVersion))
	}
	return nil
}

// etcdKey is where kube-apiserver keeps an object in etcd, as its storage
// errors print it: /registry/<resource>/<namespace>/<name> for built-in
// kinds, with the group first for custom resources (a dotted group outside
// *.k8s.io).
func etcdKey(res *Resource, ns, name string) string {
	key := "/registry/" + res.GVR.Resource
	if g := res.GVR.Group; strings.Contains(g, ".") && !strings.HasSuffix(g, ".k8s.io") {
		key = "/registry/" + g + "/" + res.GVR.Resource
	}
	if ns != "" {
		key += "/" + ns
	}
	return key + "/" + name
}
