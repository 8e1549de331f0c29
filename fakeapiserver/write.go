package fakeapiserver

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/zerokube/zerokube/fakeapiserver/internal/storage"
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
	m, err := storage.DecodeObject(b)
	if err != nil {
		return nil, errBadRequest("%v", err)
	}
	return m, nil
}

// writeMetaOf says who writes: the fieldManager parameter, else the
// User-Agent up to its first '/', as kube-apiserver's
// managerOrUserAgent does.
func writeMetaOf(r *http.Request, req request) writeMeta {
	wm := writeMeta{manager: r.URL.Query().Get("fieldManager"), operation: "Update", status: req.sub == "status",
		dryRun: r.URL.Query().Has("dryRun")} // checked by checkDryRun: "All"
	if wm.manager == "" {
		ua, _, _ := strings.Cut(r.Header.Get("User-Agent"), "/")
		wm.manager = ua
	}
	return wm
}

func (s *Server) handleCreate(w http.ResponseWriter, r *http.Request, req request) {
	if req.res.Namespaced && req.ns == "" {
		// The collection of every namespace is there to list and watch
		// only: kube-apiserver answers 405 (observed on v1.37.2).
		s.writeError(w, r, errMethodNotAllowed(r.Method))
		return
	}
	m, err := readObject(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	wm := writeMetaOf(r, req)
	o, err := s.create(req.res, req.ns, m, wm)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if wm.dryRun {
		writeValue(w, http.StatusCreated, dryCreated(o))
		return
	}
	s.stored(r, req.verb, o)
	writeJSON(w, http.StatusCreated, o.Full())
}

func (s *Server) handleUpdate(w http.ResponseWriter, r *http.Request, req request) {
	m, err := readObject(r)
	if err == nil {
		err = checkPutTarget(req, m)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	wm := writeMetaOf(r, req)
	o, err := s.update(req.res, req.ns, req.name, wm, func(object) (object, error) { return m, nil })
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if !wm.dryRun {
		s.stored(r, req.verb, o)
	}
	writeJSON(w, http.StatusOK, o.Full())
}

// checkPutTarget refuses a PUT whose body names another object, before
// the object is looked up: kube-apiserver's UpdateResource checks the
// body's namespace, then its name, against the URL (handlers/rest.go,
// checkName), so a mismatch is a 400 BadRequest even when the object does
// not exist, never a 404.
func checkPutTarget(req request, m object) error {
	md := storage.MetadataOf(m)
	if err := checkTypeAndNamespace(req.res, req.ns, m, md); err != nil {
		return err
	}
	switch got := storage.Str(md, "name"); {
	case got == "":
		return errBadRequest("the name of the object (%s based on URL) was undeterminable: name must be provided", req.name)
	case got != req.name:
		return errBadRequest("the name of the object (%s) does not match the name on the URL (%s)", got, req.name)
	}
	return nil
}

func (s *Server) handlePatch(w http.ResponseWriter, r *http.Request, req request) {
	body, err := readBody(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	pt := meta.PatchType(r.Header.Get("Content-Type"))
	wm := writeMetaOf(r, req)
	var o *storage.Object
	code := http.StatusOK
	if isApply(pt) {
		var created bool
		wm.operation = "Apply"
		wm.force = isTrue(r.URL.Query().Get("force"))
		o, created, err = s.apply(req.res, req.ns, req.name, wm, body)
		if created {
			code = http.StatusCreated
		}
	} else {
		o, err = s.update(req.res, req.ns, req.name, wm, func(cur object) (object, error) {
			return applyPatch(req.res, pt, cur, body)
		})
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if wm.dryRun && code == http.StatusCreated {
		writeValue(w, code, dryCreated(o))
		return
	}
	if !wm.dryRun {
		s.stored(r, req.verb, o)
	}
	writeJSON(w, code, o.Full())
}

// deleteOptions is the part of a DeleteOptions body the server honours.
type deleteOptions struct {
	Preconditions *meta.Preconditions `json:"preconditions,omitempty"`
	DryRun        []string            `json:"dryRun,omitempty"` // kubectl sends it here, not in the query
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
	del := s.delete
	if len(opts.DryRun) > 0 {
		q := url.Values{"dryRun": opts.DryRun}
		if err := checkDryRun(q, req.verb); err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	dry := r.URL.Query().Has("dryRun") || len(opts.DryRun) > 0
	if dry {
		del = s.deleteDry
	}
	o, gone, err := del(req.res, req.ns, req.name, pre)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if !dry {
		s.stored(r, req.verb, o)
	}
	if !gone || req.res.GracefulDelete {
		// Pods answer with the object; so does any object a finalizer keeps.
		writeJSON(w, http.StatusOK, o.Full())
		return
	}
	writeValue(w, http.StatusOK, successStatus(req.res, o))
}

// successStatus is the Status kube-apiserver answers a completed DELETE with.
func successStatus(res *Resource, o *storage.Object) *meta.Status {
	return &meta.Status{
		TypeMeta: meta.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   meta.StatusSuccess,
		Details:  &meta.StatusDetails{Name: o.Raw().Name, Group: res.GVR.Group, Kind: res.GVR.Resource, UID: o.Raw().UID},
	}
}

// handleDeleteCollection deletes the matching objects one by one, as
// kube-apiserver does: each is its own write, with its own events.
func (s *Server) handleDeleteCollection(w http.ResponseWriter, r *http.Request, req request) {
	f, err := parseFilter(req.res, req.ns, r.URL.Query())
	if err == nil {
		err = s.shardFilter(&f, r.URL.Query())
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	p, err := s.store.List(r.Context(), req.res, &f, storage.ListOptions{RV: -1})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	del := s.delete
	if r.URL.Query().Has("dryRun") {
		del = s.deleteDry
	}
	var deleted []*storage.Object
	for _, o := range p.Items {
		d, _, err := del(req.res, o.Raw().Namespace, o.Raw().Name, meta.Preconditions{})
		var se *meta.StatusError
		if errors.As(err, &se) && se.Status.Code == http.StatusNotFound {
			continue // deleted meanwhile
		}
		if err != nil {
			s.writeError(w, r, fmt.Errorf("fakeapiserver: deletecollection %s: %w", req.res.Qualified(), err))
			return
		}
		deleted = append(deleted, d)
	}
	s.writeList(w, req.res, &storage.Page{RV: s.store.RV(), Items: deleted})
}

// stored calls Options.Stored, if non-nil, with a write that was stored
// and is about to be answered.
func (s *Server) stored(r *http.Request, verb string, o *storage.Object) {
	if s.opts.Stored != nil {
		s.opts.Stored(r, verb, o.Full())
	}
}
