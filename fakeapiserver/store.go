package fakeapiserver

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/zerokube/zerokube/meta"
)

// tableLocked returns the objects of res, keyed by meta.Key. Requires s.mu.
func (s *Server) tableLocked(res *Resource) map[string]*stored {
	t := s.tables[res]
	if t == nil {
		t = map[string]*stored{}
		s.tables[res] = t
	}
	return t
}

// commitLocked makes obj the state of key, appends the event to the history
// and offers it to every watcher of res. Requires s.mu; s.rv is already obj's.
func (s *Server) commitLocked(res *Resource, typ meta.EventType, key string, obj, prev *stored) {
	t := s.tableLocked(res)
	if typ == meta.Deleted {
		delete(t, key)
	} else {
		t[key] = obj
	}
	ev := &event{rv: obj.rv, res: res, typ: typ, key: key, obj: obj, prev: prev, at: s.now()}
	s.hist.append(ev)
	s.snaps.expire(s.hist.compacted)
	s.stats.writes.Add(1)
	for w := range s.watchers[res] {
		s.offerEventLocked(w, ev)
	}
	close(s.rvChanged)
	s.rvChanged = make(chan struct{})
}

func (s *Server) nowString() string { return s.now().UTC().Format(time.RFC3339) }

// createLocked stores a new object. m is the decoded request body; ns is the
// namespace of the request path ("" for cluster-scoped resources).
func (s *Server) createLocked(res *Resource, ns string, m object) (*stored, error) {
	md := metadataOf(m)
	if err := checkTypeAndNamespace(res, ns, m, md); err != nil {
		return nil, err
	}
	name := str(md, "name")
	if name == "" {
		if gn := str(md, "generateName"); gn != "" {
			name = gn + randomSuffix()
			md["name"] = name
		} else {
			return nil, errInvalid(res, "", "metadata.name: Required value: name or generateName is required")
		}
	}
	if res.Namespaced {
		md["namespace"] = ns
		if s.tableLocked(s.nsRes)[ns] == nil {
			return nil, errNamespaceNotFound(ns)
		}
	} else {
		delete(md, "namespace")
	}
	key := ns + "/" + name
	if !res.Namespaced {
		key = name
	}
	if s.tableLocked(res)[key] != nil {
		return nil, errAlreadyExists(res, name)
	}
	md["uid"] = newUID()
	md["creationTimestamp"] = s.nowString()
	md["generation"] = 1
	delete(md, "deletionTimestamp")
	delete(md, "deletionGracePeriodSeconds")
	if res == s.nsRes {
		m["status"] = map[string]any{"phase": "Active"}
	}
	obj, err := build(res, m, s.rv+1)
	if err != nil {
		return nil, errBadRequest("%v", err)
	}
	s.rv++
	s.commitLocked(res, meta.Added, key, obj, nil)
	return obj, nil
}

// checkTypeAndNamespace rejects a body whose kind, apiVersion or namespace
// disagree with the request.
func checkTypeAndNamespace(res *Resource, ns string, m, md object) error {
	if k := str(m, "kind"); k != "" && k != res.Kind {
		return errBadRequest("the kind of the provided object (%s) does not match the resource (%s)", k, res.Kind)
	}
	if v := str(m, "apiVersion"); v != "" && v != res.apiVersion() {
		return errBadRequest("the API version in the data (%s) does not match the expected API version (%s)", v, res.apiVersion())
	}
	if got := str(md, "namespace"); res.Namespaced && got != "" && got != ns {
		return errBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	return nil
}

// updateLocked replaces the object at key with m. A resourceVersion in m is a
// precondition (409 when stale); none means an unconditional update.
func (s *Server) updateLocked(res *Resource, ns, name string, m object) (*stored, error) {
	md := metadataOf(m)
	if err := checkTypeAndNamespace(res, ns, m, md); err != nil {
		return nil, err
	}
	if got := str(md, "name"); got != name {
		return nil, errBadRequest("the name of the object (%s) does not match the name on the URL (%s)", got, name)
	}
	key := keyOf(res, ns, name)
	cur := s.tableLocked(res)[key]
	if cur == nil {
		return nil, errNotFound(res, name)
	}
	if rv := str(md, "resourceVersion"); rv != "" && rv != cur.raw.ResourceVersion {
		return nil, errStale(res, name)
	}
	old := cur.decode()
	om := metadataOf(old)
	for _, k := range []string{"uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "namespace"} {
		if v, ok := om[k]; ok {
			md[k] = v
		} else {
			delete(md, k)
		}
	}
	md["generation"] = om["generation"]
	if specChanged(old, m) {
		g, _ := om["generation"].(float64)
		md["generation"] = int64(g) + 1
	}
	obj, err := build(res, m, s.rv+1)
	if err != nil {
		return nil, errBadRequest("%v", err)
	}
	s.rv++
	if obj.raw.DeletionTimestamp != nil && len(obj.raw.Finalizers) == 0 {
		// The last finalizer is gone: the pending deletion completes.
		s.commitLocked(res, meta.Deleted, key, obj, cur)
		return obj, nil
	}
	s.commitLocked(res, meta.Modified, key, obj, cur)
	return obj, nil
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

func keyOf(res *Resource, ns, name string) string {
	if !res.Namespaced {
		return name
	}
	return ns + "/" + name
}

// deleteLocked deletes the object, or marks it for deletion when it has
// finalizers. It returns the object's resulting state and whether it is gone.
func (s *Server) deleteLocked(res *Resource, ns, name string, pre meta.Preconditions) (*stored, bool, error) {
	key := keyOf(res, ns, name)
	cur := s.tableLocked(res)[key]
	if cur == nil {
		return nil, false, errNotFound(res, name)
	}
	if pre.UID != nil && *pre.UID != cur.raw.UID {
		return nil, false, errConflict(res, name, fmt.Sprintf(
			"Precondition failed: UID in precondition: %s, UID in object meta: %s", *pre.UID, cur.raw.UID))
	}
	if pre.ResourceVersion != nil && *pre.ResourceVersion != cur.raw.ResourceVersion {
		return nil, false, errConflict(res, name, fmt.Sprintf(
			"Precondition failed: ResourceVersion in precondition: %s, ResourceVersion in object meta: %s",
			*pre.ResourceVersion, cur.raw.ResourceVersion))
	}
	if len(cur.raw.Finalizers) > 0 {
		if cur.raw.DeletionTimestamp != nil {
			return cur, false, nil
		}
		return s.markDeletingLocked(res, key, cur), false, nil
	}
	last := cur
	if res.GracefulDelete {
		if nodeName, _ := lookupField(cur.decode(), "spec.nodeName"); nodeName != "" {
			// A scheduled pod goes through a graceful MODIFIED first;
			// there is no kubelet here, so the grace period ends at once.
			last = s.markDeletingLocked(res, key, cur)
		} else {
			last = s.stampDeletion(res, cur)
		}
	}
	s.rv++
	obj := withRV(res, last, s.rv)
	s.commitLocked(res, meta.Deleted, key, obj, last)
	if res == s.nsRes {
		s.deleteNamespaceContentsLocked(name)
	}
	return obj, true, nil
}

// stampDeletion returns o with deletionTimestamp set, at o's RV (not stored).
func (s *Server) stampDeletion(res *Resource, o *stored) *stored {
	m := o.decode()
	md := metadataOf(m)
	md["deletionTimestamp"] = s.nowString()
	md["deletionGracePeriodSeconds"] = 0
	n, err := build(res, m, o.rv)
	if err != nil {
		panic(fmt.Sprintf("fakeapiserver: re-encode stored object: %v", err))
	}
	return n
}

// markDeletingLocked commits a MODIFIED that sets deletionTimestamp.
func (s *Server) markDeletingLocked(res *Resource, key string, cur *stored) *stored {
	s.rv++
	obj := withRV(res, s.stampDeletion(res, cur), s.rv)
	s.commitLocked(res, meta.Modified, key, obj, cur)
	return obj
}

// deleteNamespaceContentsLocked removes what the namespace controller would:
// every object in the deleted namespace.
func (s *Server) deleteNamespaceContentsLocked(ns string) {
	for res, t := range s.tables {
		if !res.Namespaced {
			continue
		}
		var keys []string
		for k := range t {
			if strings.HasPrefix(k, ns+"/") {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			cur := t[k]
			s.rv++
			s.commitLocked(res, meta.Deleted, k, withRV(res, cur, s.rv), cur)
		}
	}
}
