package fakeapiserver

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/zerokube/zerokube/fakeapiserver/internal/storage"
	"github.com/zerokube/zerokube/meta"
)

// CustomResourceDefinitions over HTTP, as kubectl apply -f crd.yaml sends
// them: creating one serves its kind (each served version registered as
// Register would), deleting one deletes its objects and stops serving it.
// Unlike kube-apiserver, the status (NamesAccepted, Established) is
// written with the create, not by a controller just after, each served
// version keeps objects of its own (no conversion), names changed by an
// update are not seen, and the schema is not checked.

var crdGVR = meta.GVR{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

func crdResource() Resource {
	return Resource{GVR: crdGVR, Kind: "CustomResourceDefinition", ShortNames: []string{"crd", "crds"},
		Categories: []string{"api-extensions"}, StatusSubresource: true}
}

func isCRD(res *Resource) bool { return res.GVR == crdGVR }

// crdSpec is what the fake reads of a definition.
type crdSpec struct {
	Group string `json:"group"`
	Names struct {
		Plural     string   `json:"plural"`
		Singular   string   `json:"singular"`
		Kind       string   `json:"kind"`
		ShortNames []string `json:"shortNames"`
		Categories []string `json:"categories"`
	} `json:"names"`
	Scope    string `json:"scope"`
	Versions []struct {
		Name         string `json:"name"`
		Served       bool   `json:"served"`
		Storage      bool   `json:"storage"`
		Subresources struct {
			Status *struct{} `json:"status"`
		} `json:"subresources"`
	} `json:"versions"`
}

// readCRD decodes and checks a definition: 422 for what kube-apiserver's
// validation also refuses among the fields the fake uses.
func readCRD(m object) (crdSpec, error) {
	var spec crdSpec
	b, err := json.Marshal(m["spec"])
	if err == nil {
		err = json.Unmarshal(b, &spec)
	}
	res := crdResource()
	name := storage.Str(storage.MetadataOf(m), "name")
	if err != nil {
		return spec, errInvalid(&res, name, "spec: "+err.Error())
	}
	var bad []string
	if spec.Group == "" || !strings.Contains(spec.Group, ".") {
		bad = append(bad, `spec.group: Invalid value: "`+spec.Group+`": should be a domain with at least one dot`)
	}
	if spec.Names.Plural == "" || spec.Names.Kind == "" {
		bad = append(bad, "spec.names: Required value: plural and kind")
	}
	if want := spec.Names.Plural + "." + spec.Group; name != want {
		bad = append(bad, fmt.Sprintf(`metadata.name: Invalid value: %q: must be spec.names.plural+"."+spec.group`, name))
	}
	if spec.Scope != "Namespaced" && spec.Scope != "Cluster" {
		bad = append(bad, `spec.scope: Unsupported value: "`+spec.Scope+`": supported values: "Cluster", "Namespaced"`)
	}
	storageVersions := 0
	for _, v := range spec.Versions {
		if v.Storage {
			storageVersions++
		}
	}
	if len(spec.Versions) == 0 || storageVersions != 1 {
		bad = append(bad, "spec.versions: Invalid value: must have exactly one version marked as storage version")
	}
	if len(bad) > 0 {
		return spec, errInvalid(&res, name, strings.Join(bad, ", "))
	}
	return spec, nil
}

// crdStatus is the status kube-apiserver's controllers give an accepted
// definition.
func (s *Server) crdStatus(spec crdSpec) map[string]any {
	now := s.nowString()
	var stored []any
	for _, v := range spec.Versions {
		if v.Storage {
			stored = append(stored, v.Name)
		}
	}
	names := map[string]any{"plural": spec.Names.Plural, "singular": spec.Names.Singular, "kind": spec.Names.Kind,
		"listKind": spec.Names.Kind + "List"}
	if len(spec.Names.ShortNames) > 0 {
		names["shortNames"] = spec.Names.ShortNames
	}
	if len(spec.Names.Categories) > 0 {
		names["categories"] = spec.Names.Categories
	}
	cond := func(typ, reason, msg string) map[string]any {
		return map[string]any{"type": typ, "status": "True", "lastTransitionTime": now, "reason": reason, "message": msg}
	}
	return map[string]any{"acceptedNames": names, "storedVersions": stored, "conditions": []any{
		cond("NamesAccepted", "NoConflicts", "no conflicts found"),
		cond("Established", "InitialNamesAccepted", "the initial names have been accepted")}}
}

// crdResources are the resources a definition serves, one per served
// version.
func crdResources(spec crdSpec) []Resource {
	var out []Resource
	for _, v := range spec.Versions {
		if !v.Served {
			continue
		}
		out = append(out, Resource{GVR: meta.GVR{Group: spec.Group, Version: v.Name, Resource: spec.Names.Plural},
			Kind: spec.Names.Kind, SingularName: spec.Names.Singular, Namespaced: spec.Scope == "Namespaced",
			ShortNames: spec.Names.ShortNames, Categories: spec.Names.Categories,
			StatusSubresource: v.Subresources.Status != nil})
	}
	return out
}

// installCRD serves the versions of a definition just stored that are not
// served yet. A served version keeps the names it was first served with
// (the store keeps its objects under that Resource) until the definition
// is deleted: a rename after the create is not seen.
func (s *Server) installCRD(spec crdSpec) {
	for _, res := range crdResources(spec) {
		if s.reg.get(res.GVR) != nil {
			continue
		}
		if err := s.reg.add(res); err != nil {
			s.log.Warn("fakeapiserver: custom resource not served", "resource", res.GVR.String(), "error", err)
		}
	}
}

// crdCleanup is the finalizer kube-apiserver's CRD controllers hold on a
// definition until its objects are deleted.
const crdCleanup = "customresourcecleanup.apiextensions.k8s.io"

// deleteCRD deletes a definition as kube-apiserver's controllers do, at
// once: it is marked deleting under the cleanup finalizer (a MODIFIED event,
// and the reply), its objects are deleted and its kind no longer served,
// then the finalizer goes and, when no other holds it, the definition
// (DELETED).
func (s *Server) deleteCRD(name string, pre meta.Preconditions) (*storage.Object, bool, error) {
	res := s.reg.get(crdGVR)
	marked, err := s.store.Update(res, "", name, func(cur *storage.Object) (map[string]any, bool, error) {
		if err := checkPreconditions(res, cur, pre); err != nil {
			return nil, false, err
		}
		m := cur.Decode()
		md := storage.MetadataOf(m)
		if md["deletionTimestamp"] == nil {
			s.markDeleting(res, m)
		}
		fins, _ := md["finalizers"].([]any)
		if !slices.Contains(fins, any(crdCleanup)) {
			md["finalizers"] = append(fins, crdCleanup)
		}
		return m, false, nil
	})
	if err != nil {
		return nil, false, err
	}
	s.uninstallCRD(marked)
	// The cleanup is done: its finalizer goes, and with it the definition
	// unless another finalizer still holds it.
	_, err = s.store.Update(res, "", name, func(cur *storage.Object) (map[string]any, bool, error) {
		m := cur.Decode()
		md := storage.MetadataOf(m)
		fins, _ := md["finalizers"].([]any)
		fins = slices.DeleteFunc(fins, func(f any) bool { return f == crdCleanup })
		md["finalizers"] = fins
		if len(fins) == 0 {
			delete(md, "finalizers")
		}
		return m, len(fins) == 0, nil
	})
	return marked, false, err
}

// uninstallCRD deletes the objects of a deleted definition and stops
// serving its kind.
func (s *Server) uninstallCRD(gone *storage.Object) {
	spec, err := readCRD(gone.Decode())
	if err != nil {
		return
	}
	for _, r := range crdResources(spec) {
		res := s.reg.get(r.GVR)
		if res == nil {
			continue
		}
		page, err := s.store.List(context.Background(), res, &storage.Filter{}, storage.ListOptions{RV: -1})
		if err == nil {
			for _, o := range page.Items {
				_, _ = s.store.Delete(res, o.Raw().Namespace, o.Raw().Name, func(*storage.Object) error { return nil })
			}
		}
		s.reg.remove(r.GVR)
	}
}
