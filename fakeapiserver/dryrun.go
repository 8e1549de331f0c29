package fakeapiserver

import (
	"fmt"
	"net/url"

	"github.com/zerokube/zerokube/fakeapiserver/internal/storage"
	"github.com/zerokube/zerokube/meta"
)

// Server-side dry run (dryRun=All; kubectl apply --dry-run=server, kubectl
// diff): a create, update, patch or delete goes through everything a write
// goes through (defaults, admission, managedFields, preconditions,
// conflicts) and answers with the object it would have stored, but
// nothing is stored: no resourceVersion moves, no watch sees an event, no
// status loop is woken.

// checkDryRun refuses a dryRun parameter other than "All" on a write, as
// kube-apiserver's ValidateDryRun does (a 422 on the verb's options).
func checkDryRun(q url.Values, verb string) error {
	vals, ok := q["dryRun"]
	if !ok {
		return nil
	}
	kind := map[string]string{"create": "CreateOptions", "update": "UpdateOptions", "patch": "PatchOptions",
		"delete": "DeleteOptions", "deletecollection": "DeleteOptions"}[verb]
	if kind == "" {
		return nil // reads ignore it, as there
	}
	for _, v := range vals {
		if v != "All" {
			errs := fieldErrors{{Type: causeNotSupported, Field: "dryRun",
				Message: fmt.Sprintf("Unsupported value: %#v: supported values: \"All\"", vals)}}
			return errs.invalid(kind, "meta.k8s.io")
		}
	}
	return nil
}

// dryCreated is the answer to a dry-run create: the object without a
// resourceVersion, since none was given to it.
func dryCreated(o *storage.Object) object {
	m := o.Decode()
	delete(storage.MetadataOf(m), "resourceVersion")
	return m
}

// deleteDry answers a dry-run delete as delete would: preconditions
// first, then the object as the delete would leave it (marked deleting
// when finalizers or a graceful deletion keep it) and whether it would be
// gone.
func (s *Server) deleteDry(res *Resource, ns, name string, pre meta.Preconditions) (*storage.Object, bool, error) {
	if s.isNamespaces(res) && immortalNamespaces[name] {
		return s.deleteNamespace(name, pre) // refused before anything is written
	}
	cur, err := s.store.Get(res, ns, name)
	if err != nil {
		return nil, false, err
	}
	if err := checkPreconditions(res, cur, pre); err != nil {
		return nil, false, err
	}
	keep := len(cur.Raw().Finalizers) > 0 || res.GracefulDelete || s.isNamespaces(res) || isCRD(res)
	if !keep {
		return cur, true, nil
	}
	m := cur.Decode()
	if storage.MetadataOf(m)["deletionTimestamp"] == nil {
		s.markDeleting(res, m)
	}
	o, err := storage.WithObject(res, cur, m)
	if err != nil {
		return nil, false, fmt.Errorf("fakeapiserver: dry-run delete of %s %s: %w", res.Qualified(), name, err)
	}
	return o, false, nil
}
