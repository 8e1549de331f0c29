package fakeapiserver

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"

	"github.com/go-json-experiment/json"

	"github.com/zerokube/zerokube/fakeapiserver/internal/storage"
	"github.com/zerokube/zerokube/meta"
)

// The Go API changes state directly, without HTTP: tests and the demo use it
// to churn objects. Writes are the same as over HTTP (same RVs, same watch
// events); errors are the same *meta.StatusError values. Their field
// manager is "fakeapiserver".

// goAPIWrite is how writes of the Go API are recorded.
var goAPIWrite = writeMeta{manager: "fakeapiserver", operation: "Update"}

func (s *Server) resource(gvr meta.GVR) (*Resource, error) {
	if res := s.reg.get(gvr); res != nil {
		return res, nil
	}
	return nil, fmt.Errorf("fakeapiserver: %v: %w", gvr, errNoResource())
}

// resourceAndObject is the start of every Go API write: the registered
// resource and obj as the map the server stores.
func (s *Server) resourceAndObject(gvr meta.GVR, obj any) (*Resource, object, error) {
	res, err := s.resource(gvr)
	if err != nil {
		return nil, nil, err
	}
	m, err := toObject(obj)
	return res, m, err
}

func toObject(obj any) (object, error) {
	var b []byte
	switch v := obj.(type) {
	case []byte:
		b = v
	case string:
		b = []byte(v)
	default:
		var err error
		if b, err = json.Marshal(obj); err != nil {
			return nil, fmt.Errorf("fakeapiserver: marshal object: %w", err)
		}
	}
	return storage.DecodeObject(b)
}

// Create stores obj (any JSON-marshalable value, or JSON as []byte/string)
// as a new object of gvr; the namespace comes from obj's metadata.
func (s *Server) Create(gvr meta.GVR, obj any) (*meta.Raw, error) {
	res, m, err := s.resourceAndObject(gvr, obj)
	if err != nil {
		return nil, err
	}
	o, err := s.create(res, storage.Str(storage.MetadataOf(m), "namespace"), m, goAPIWrite)
	if err != nil {
		return nil, err
	}
	return o.Raw(), nil
}

// Update replaces an object; a resourceVersion in obj is a precondition.
func (s *Server) Update(gvr meta.GVR, obj any) (*meta.Raw, error) {
	res, m, err := s.resourceAndObject(gvr, obj)
	if err != nil {
		return nil, err
	}
	md := storage.MetadataOf(m)
	o, err := s.update(res, storage.Str(md, "namespace"), storage.Str(md, "name"), goAPIWrite,
		func(object) (object, error) { return m, nil })
	if err != nil {
		return nil, err
	}
	return o.Raw(), nil
}

// Patch applies a merge, JSON or strategic merge patch.
func (s *Server) Patch(gvr meta.GVR, namespace, name string, pt meta.PatchType, patch []byte) (*meta.Raw, error) {
	res, err := s.resource(gvr)
	if err != nil {
		return nil, err
	}
	o, err := s.update(res, namespace, name, goAPIWrite, func(cur object) (object, error) {
		return applyPatch(res, pt, cur, patch)
	})
	if err != nil {
		return nil, err
	}
	return o.Raw(), nil
}

// UpdateStatus replaces the status of an object, as a PUT to its /status
// subresource does: nothing else changes. A resourceVersion in obj is a
// precondition. Kinds without a status subresource get a 404.
func (s *Server) UpdateStatus(gvr meta.GVR, obj any) (*meta.Raw, error) {
	res, m, err := s.statusWrite(gvr, obj)
	if err != nil {
		return nil, err
	}
	md := storage.MetadataOf(m)
	o, err := s.update(res, storage.Str(md, "namespace"), storage.Str(md, "name"), goAPIStatusWrite,
		func(object) (object, error) { return m, nil })
	if err != nil {
		return nil, err
	}
	return o.Raw(), nil
}

// PatchStatus patches the status of an object, as a PATCH to its /status
// subresource does: what the patch changes outside status is ignored.
func (s *Server) PatchStatus(gvr meta.GVR, namespace, name string, pt meta.PatchType, patch []byte) (*meta.Raw, error) {
	res, _, err := s.statusWrite(gvr, nil)
	if err != nil {
		return nil, err
	}
	o, err := s.update(res, namespace, name, goAPIStatusWrite, func(cur object) (object, error) {
		return applyPatch(res, pt, cur, patch)
	})
	if err != nil {
		return nil, err
	}
	return o.Raw(), nil
}

// goAPIStatusWrite is how status writes of the Go API are recorded: as the
// kubelet's, the writer of pods' status on a real cluster, so objects
// loaded with the kubelet's managedFields entry (the benchmark workload's)
// keep it.
var goAPIStatusWrite = writeMeta{manager: "kubelet", operation: "Update", status: true}

// statusWrite finds the resource of a status write and decodes obj (nil: none).
func (s *Server) statusWrite(gvr meta.GVR, obj any) (*Resource, object, error) {
	res, err := s.resource(gvr)
	if err != nil {
		return nil, nil, err
	}
	if !res.StatusSubresource {
		return nil, nil, fmt.Errorf("fakeapiserver: %v has no status subresource: %w", gvr, errNoResource())
	}
	if obj == nil {
		return res, nil, nil
	}
	m, err := toObject(obj)
	return res, m, err
}

// Delete deletes an object (or marks it, when it has finalizers).
func (s *Server) Delete(gvr meta.GVR, namespace, name string) error {
	res, err := s.resource(gvr)
	if err != nil {
		return err
	}
	_, _, err = s.delete(res, namespace, name, meta.Preconditions{})
	return err
}

// Get returns the current state of an object.
func (s *Server) Get(gvr meta.GVR, namespace, name string) (*meta.Raw, error) {
	res, err := s.resource(gvr)
	if err != nil {
		return nil, err
	}
	o, err := s.store.Get(res, namespace, name)
	if err != nil {
		return nil, err
	}
	return o.Raw(), nil
}

// List returns the objects of gvr in namespace ("" for all), sorted by key,
// and the resourceVersion of the list.
func (s *Server) List(gvr meta.GVR, namespace string) ([]*meta.Raw, string, error) {
	res, err := s.resource(gvr)
	if err != nil {
		return nil, "", err
	}
	p, err := s.store.List(context.Background(), res, &storage.Filter{NS: namespace}, storage.ListOptions{RV: -1})
	if err != nil {
		return nil, "", err
	}
	out := make([]*meta.Raw, len(p.Items))
	for i, o := range p.Items {
		out[i] = o.Raw()
	}
	return out, p.ListMeta().ResourceVersion, nil
}

// WriteKubeconfig writes a kubeconfig for kubectl (and apiclient) that
// points at the server, trusts its CA and carries its first token.
func (s *Server) WriteKubeconfig(path string) error {
	cluster := fmt.Sprintf("    server: %s\n", s.url)
	if ca := s.CAData(); ca != nil {
		cluster += fmt.Sprintf("    certificate-authority-data: %s\n", base64.StdEncoding.EncodeToString(ca))
	}
	// kubectl prompts for a username when an https server comes without
	// credentials; a server without authentication ignores the token.
	token := s.BearerToken()
	if token == "" {
		token = "zerokube-no-auth"
	}
	user := fmt.Sprintf("  user:\n    token: %q\n", token)
	cfg := "apiVersion: v1\nkind: Config\nclusters:\n- name: fake\n  cluster:\n" + cluster +
		"users:\n- name: fake\n" + user +
		"contexts:\n- name: fake\n  context:\n    cluster: fake\n    user: fake\n    namespace: default\n" +
		"current-context: fake\npreferences: {}\n"
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		return fmt.Errorf("fakeapiserver: write kubeconfig: %w", err)
	}
	return nil
}
