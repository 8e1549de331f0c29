package fakeapiserver

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/zerokube/zerokube/fakeapiserver/internal/storage"
	"github.com/zerokube/zerokube/meta"
)

// The scale subresource of deployments, replica sets and stateful sets
// (kubectl scale, a HorizontalPodAutoscaler): an autoscaling/v1 Scale whose
// spec.replicas is the object's and whose status holds the replicas the
// object's status counts and its selector as a string, as kube-apiserver's
// ScaleREST serves it (pkg/registry/apps/deployment/storage). GET reads it;
// PUT and PATCH write spec.replicas and nothing else, through the object,
// with the Scale's resourceVersion as the precondition.

// scaleRes is the Scale kind, for the patch of a Scale (which has no list
// to merge: its strategic merge patch is a merge patch).
var scaleRes = &Resource{GVR: meta.GVR{Group: "autoscaling", Version: "v1", Resource: "scale"}, Kind: "Scale", Namespaced: true}

func init() { smpSchemas[scaleRes.GVR] = smpSchema{} }

func (s *Server) handleScale(w http.ResponseWriter, r *http.Request, req request) {
	if req.res.Namespaced && req.ns == "" {
		s.writeError(w, r, errNoResource())
		return
	}
	var body []byte
	if req.verb == "update" || req.verb == "patch" {
		var err error
		if body, err = readBody(r); err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	var o *storage.Object
	var err error
	switch req.verb {
	case "get":
		o, err = s.store.Get(req.res, req.ns, req.name)
	case "update":
		var sc object
		if sc, err = storage.DecodeObject(body); err != nil {
			err = errBadRequest("%v", err)
			break
		}
		if err = checkScaleTarget(req, sc); err == nil {
			o, err = s.writeScale(req, writeMetaOf(r, req), func(object) (object, error) { return sc, nil })
		}
	case "patch":
		pt := meta.PatchType(r.Header.Get("Content-Type"))
		o, err = s.writeScale(req, writeMetaOf(r, req), func(cur object) (object, error) {
			return applyPatch(scaleRes, pt, cur, body)
		})
	default:
		err = errMethodNotAllowed(r.Method)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeValue(w, http.StatusOK, scaleOf(req.res, o.Decode()))
}

// checkScaleTarget refuses a Scale that names another object.
func checkScaleTarget(req request, sc object) error {
	md := storage.MetadataOf(sc)
	if got := storage.Str(md, "name"); got != "" && got != req.name {
		return errBadRequest("the name of the object (%s) does not match the name on the URL (%s)", got, req.name)
	}
	if k := storage.Str(sc, "kind"); k != "" && k != "Scale" {
		return errBadRequest("the kind of the provided object (%s) does not match the resource (Scale)", k)
	}
	return nil
}

// writeScale updates the object's spec.replicas to what mutate makes of
// its Scale.
func (s *Server) writeScale(req request, wm writeMeta, mutate mutateFunc) (*storage.Object, error) {
	return s.update(req.res, req.ns, req.name, wm, func(cur object) (object, error) {
		sc, err := mutate(scaleOf(req.res, cur))
		if err != nil {
			return nil, err
		}
		scSpec, _ := sc["spec"].(map[string]any)
		n, ok := normalize(scSpec["replicas"]).(float64)
		if scSpec["replicas"] == nil {
			n, ok = 0, true // an absent count is the zero value of the typed Scale
		}
		if !ok || n != float64(int32(n)) {
			return nil, errBadRequest("Scale.autoscaling %q: spec.replicas must be an integer", req.name)
		}
		if n < 0 {
			return nil, scaleInvalid(req.name, fmt.Sprintf("spec.replicas: Invalid value: %d: must be greater than or equal to 0", int64(n)))
		}
		spec, _ := cur["spec"].(map[string]any)
		if spec == nil {
			spec = map[string]any{}
			cur["spec"] = spec
		}
		spec["replicas"] = int64(n)
		md := storage.MetadataOf(cur)
		setOrDelete(md, "resourceVersion", storage.MetadataOf(sc)["resourceVersion"]) // the precondition
		return cur, nil
	})
}

func scaleInvalid(name, detail string) *meta.StatusError {
	se := meta.NewStatusError(422, meta.ReasonInvalid, fmt.Sprintf("Scale.autoscaling %q is invalid: %s", name, detail))
	se.Status.Details = &meta.StatusDetails{Name: name, Group: "autoscaling", Kind: "Scale"}
	return se
}

// scaleOf is the Scale of object m.
func scaleOf(res *Resource, m object) object {
	md := storage.MetadataOf(m)
	smd := map[string]any{}
	for _, k := range []string{"name", "namespace", "uid", "resourceVersion", "creationTimestamp"} {
		if v, ok := md[k]; ok {
			smd[k] = v
		}
	}
	spec, _ := m["spec"].(map[string]any)
	status, _ := m["status"].(map[string]any)
	replicas := spec["replicas"]
	if replicas == nil {
		replicas = int64(0)
	}
	st := map[string]any{"replicas": int64(0)}
	if n, ok := status["replicas"]; ok {
		st["replicas"] = n
	}
	if sel := selectorString(spec["selector"]); sel != "" {
		st["selector"] = sel
	}
	return object{"kind": "Scale", "apiVersion": "autoscaling/v1", "metadata": smd,
		"spec": map[string]any{"replicas": replicas}, "status": st}
}

// selectorString renders a LabelSelector as labels.Selector's String
// does: requirements sorted by key, joined by commas.
func selectorString(v any) string {
	sel, _ := v.(map[string]any)
	type req struct{ key, s string }
	var reqs []req
	ml, _ := sel["matchLabels"].(map[string]any)
	for k, v := range ml {
		reqs = append(reqs, req{k, k + "=" + fmt.Sprint(v)})
	}
	exprs, _ := sel["matchExpressions"].([]any)
	for _, e := range exprs {
		e, _ := e.(map[string]any)
		k := storage.Str(e, "key")
		var vals []string
		vs, _ := e["values"].([]any)
		for _, v := range vs {
			vals = append(vals, fmt.Sprint(v))
		}
		sort.Strings(vals)
		switch storage.Str(e, "operator") {
		case "In":
			reqs = append(reqs, req{k, k + " in (" + strings.Join(vals, ",") + ")"})
		case "NotIn":
			reqs = append(reqs, req{k, k + " notin (" + strings.Join(vals, ",") + ")"})
		case "Exists":
			reqs = append(reqs, req{k, k})
		case "DoesNotExist":
			reqs = append(reqs, req{k, "!" + k})
		}
	}
	sort.SliceStable(reqs, func(i, j int) bool { return reqs[i].key < reqs[j].key })
	out := make([]string, len(reqs))
	for i, r := range reqs {
		out[i] = r.s
	}
	return strings.Join(out, ",")
}
