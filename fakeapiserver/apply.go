package fakeapiserver

import (
	"mime"
	"net/http"

	"github.com/zerokube/zerokube/meta"
	"go.yaml.in/yaml/v3"
)

func isApply(pt meta.PatchType) bool {
	mt, _, _ := mime.ParseMediaType(string(pt))
	return meta.PatchType(mt) == meta.ApplyPatch
}

// apply is a simplified server-side apply: the applied configuration
// creates the object when it is missing, and is otherwise merged into it as
// a strategic merge patch. Field ownership (managedFields) is not tracked,
// so there are no apply conflicts. It reports whether it created.
func (s *Server) apply(res *Resource, ns, name string, body []byte) (*stored, bool, error) {
	var m map[string]any
	if err := yaml.Unmarshal(body, &m); err != nil || m == nil {
		return nil, false, errBadRequest("error decoding YAML: %v", err)
	}
	md := metadataOf(m)
	if got := str(md, "name"); got != "" && got != name {
		return nil, false, errBadRequest("the name of the object (%s) does not match the name on the URL (%s)", got, name)
	}
	md["name"] = name
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := s.tableLocked(res)[keyOf(res, ns, name)]
	if cur == nil {
		o, err := s.createLocked(res, ns, m)
		return o, true, err
	}
	merged, err := mergePatch(cur.decode(), m, true)
	if err != nil {
		return nil, false, err
	}
	o, err := s.updateLocked(res, ns, name, merged.(map[string]any))
	return o, false, err
}

func (s *Server) handleApply(w http.ResponseWriter, r *http.Request, req request, body []byte) {
	o, created, err := s.apply(req.res, req.ns, req.name, body)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	code := http.StatusOK
	if created {
		code = http.StatusCreated
	}
	writeJSON(w, code, o.full())
}
