package fakeapiserver

import (
	"encoding/base64"
	"fmt"
	"os"

	"github.com/go-json-experiment/json"

	"github.com/zerokube/zerokube/meta"
)

// The Go API changes state directly, without HTTP: tests and the demo use it
// to churn objects. Writes are the same as over HTTP (same RVs, same watch
// events); errors are the same *meta.StatusError values.

func (s *Server) resource(gvr meta.GVR) (*Resource, error) {
	if res := s.reg.get(gvr); res != nil {
		return res, nil
	}
	return nil, fmt.Errorf("fakeapiserver: %v: %w", gvr, errNoResource())
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
	return decodeObject(b)
}

// Create stores obj (any JSON-marshalable value, or JSON as []byte/string)
// as a new object of gvr; the namespace comes from obj's metadata.
func (s *Server) Create(gvr meta.GVR, obj any) (*meta.Raw, error) {
	res, err := s.resource(gvr)
	if err != nil {
		return nil, err
	}
	m, err := toObject(obj)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	o, err := s.createLocked(res, str(metadataOf(m), "namespace"), m)
	if err != nil {
		return nil, err
	}
	return o.raw, nil
}

// Update replaces an object; a resourceVersion in obj is a precondition.
func (s *Server) Update(gvr meta.GVR, obj any) (*meta.Raw, error) {
	res, err := s.resource(gvr)
	if err != nil {
		return nil, err
	}
	m, err := toObject(obj)
	if err != nil {
		return nil, err
	}
	md := metadataOf(m)
	s.mu.Lock()
	defer s.mu.Unlock()
	o, err := s.updateLocked(res, str(md, "namespace"), str(md, "name"), m)
	if err != nil {
		return nil, err
	}
	return o.raw, nil
}

// Patch applies a merge, JSON or strategic merge patch.
func (s *Server) Patch(gvr meta.GVR, namespace, name string, pt meta.PatchType, patch []byte) (*meta.Raw, error) {
	res, err := s.resource(gvr)
	if err != nil {
		return nil, err
	}
	o, err := s.patch(res, namespace, name, pt, patch)
	if err != nil {
		return nil, err
	}
	return o.raw, nil
}

// Delete deletes an object (or marks it, when it has finalizers).
func (s *Server) Delete(gvr meta.GVR, namespace, name string) error {
	res, err := s.resource(gvr)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, _, err = s.deleteLocked(res, namespace, name, meta.Preconditions{})
	return err
}

// Get returns the current state of an object.
func (s *Server) Get(gvr meta.GVR, namespace, name string) (*meta.Raw, error) {
	res, err := s.resource(gvr)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.tableLocked(res)[keyOf(res, namespace, name)]
	if o == nil {
		return nil, errNotFound(res, name)
	}
	return o.raw, nil
}

// List returns the objects of gvr in namespace ("" for all), sorted by key,
// and the resourceVersion of the list.
func (s *Server) List(gvr meta.GVR, namespace string) ([]*meta.Raw, string, error) {
	res, err := s.resource(gvr)
	if err != nil {
		return nil, "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f := filter{ns: namespace}
	p := paginate(s.snapshotLocked(res, s.rv).scope(f.ns, ""), &f, s.rv, 0)
	out := make([]*meta.Raw, len(p.items))
	for i, o := range p.items {
		out[i] = o.raw
	}
	return out, p.listMeta().ResourceVersion, nil
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
	token := "zerokube-no-auth"
	if len(s.opts.Tokens) > 0 {
		token = s.opts.Tokens[0].Value
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
