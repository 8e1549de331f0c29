package fakeapiserver

import (
	"fmt"
	"io"
	"net/http"

	"github.com/go-json-experiment/json"

	"github.com/zerokube/zerokube/meta"
)

// maxBody is the largest request body accepted, kube-apiserver's 3 MiB.
const maxBody = 3 << 20

func readBody(r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return nil, errBadRequest("read request body: %v", err)
	}
	if len(b) > maxBody {
		return nil, meta.NewStatusError(413, "RequestEntityTooLarge", "the request body is too large")
	}
	return b, nil
}

func readObject(r *http.Request) (object, error) {
	b, err := readBody(r)
	if err != nil {
		return nil, err
	}
	m, err := decodeObject(b)
	if err != nil {
		return nil, errBadRequest("%v", err)
	}
	return m, nil
}

func (s *Server) handleCreate(w http.ResponseWriter, r *http.Request, req request) {
	if req.res.Namespaced && req.ns == "" {
		s.writeError(w, r, errNoResource())
		return
	}
	m, err := readObject(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.mu.Lock()
	o, err := s.createLocked(req.res, req.ns, m)
	s.mu.Unlock()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, o.full())
}

func (s *Server) handleUpdate(w http.ResponseWriter, r *http.Request, req request) {
	m, err := readObject(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.mu.Lock()
	o, err := s.updateLocked(req.res, req.ns, req.name, m)
	s.mu.Unlock()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, o.full())
}

func (s *Server) handlePatch(w http.ResponseWriter, r *http.Request, req request) {
	body, err := readBody(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	pt := meta.PatchType(r.Header.Get("Content-Type"))
	if isApply(pt) {
		s.handleApply(w, r, req, body)
		return
	}
	o, err := s.patch(req.res, req.ns, req.name, pt, body)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, o.full())
}

// patch applies a patch to the current object and stores the result through
// the update path (a resourceVersion the patch sets is a precondition).
func (s *Server) patch(res *Resource, ns, name string, pt meta.PatchType, patch []byte) (*stored, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := s.tableLocked(res)[keyOf(res, ns, name)]
	if cur == nil {
		return nil, errNotFound(res, name)
	}
	m, err := applyPatch(pt, cur.decode(), patch)
	if err != nil {
		return nil, err
	}
	return s.updateLocked(res, ns, name, m)
}

// deleteOptions is the part of a DeleteOptions body the server honours.
type deleteOptions struct {
	Preconditions *meta.Preconditions `json:"preconditions,omitempty"`
}

func (s *Server) handleDelete(w http.ResponseWriter, r *http.Request, req request) {
	b, err := readBody(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var opts deleteOptions
	if len(b) > 0 {
		if err := json.Unmarshal(b, &opts); err != nil {
			s.writeError(w, r, errBadRequest("decode DeleteOptions: %v", err))
			return
		}
	}
	var pre meta.Preconditions
	if opts.Preconditions != nil {
		pre = *opts.Preconditions
	}
	s.mu.Lock()
	o, gone, err := s.deleteLocked(req.res, req.ns, req.name, pre)
	s.mu.Unlock()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if !gone || req.res.GracefulDelete {
		// Pods answer with the object; so does any object a finalizer keeps.
		writeJSON(w, http.StatusOK, o.full())
		return
	}
	writeValue(w, http.StatusOK, successStatus(req.res, o))
}

// successStatus is the Status kube-apiserver answers a completed DELETE with.
func successStatus(res *Resource, o *stored) *meta.Status {
	return &meta.Status{
		TypeMeta: meta.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   meta.StatusSuccess,
		Details:  &meta.StatusDetails{Name: o.raw.Name, Group: res.GVR.Group, Kind: res.GVR.Resource, UID: o.raw.UID},
	}
}

func (s *Server) handleDeleteCollection(w http.ResponseWriter, r *http.Request, req request) {
	f, err := parseFilter(req.res, req.ns, r.URL.Query())
	if err == nil {
		err = s.shardFilter(&f, r.URL.Query())
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.mu.Lock()
	var deleted []*stored
	for _, e := range s.snapshotLocked(req.res, s.rv).scope(f.ns, "") {
		o := e.obj
		if !f.matches(o) {
			continue
		}
		d, _, err := s.deleteLocked(req.res, o.raw.Namespace, o.raw.Name, meta.Preconditions{})
		if err != nil {
			s.mu.Unlock()
			s.writeError(w, r, fmt.Errorf("fakeapiserver: deletecollection: %w", err))
			return
		}
		deleted = append(deleted, d)
	}
	rv := s.rv
	s.mu.Unlock()
	s.writeList(w, req.res, &page{rv: rv, items: deleted})
}
