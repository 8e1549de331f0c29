package fakeapiserver

import (
	"net/http"
	"slices"

	"github.com/zerokube/zerokube/fakeapiserver/internal/storage"
)

// SelfSubjectAccessReview and SelfSubjectRulesReview (kubectl auth can-i,
// kubectl auth can-i --list), answered by the fake's own authorizer: with
// no Options.Tokens every request is allowed, as kube-apiserver's
// AlwaysAllow authorizer allows it; with tokens, what the asking token's
// Resources and Verbs cover. Reviews are created, never stored, and every
// token may create them (system:basic-user's rule on a real cluster).

func (s *Server) handleReview(w http.ResponseWriter, r *http.Request, req request) {
	if req.verb != "create" {
		s.writeError(w, r, errMethodNotAllowed(r.Method))
		return
	}
	m, err := readObject(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := checkTypeAndNamespace(req.res, "", m, storage.MetadataOf(m)); err != nil {
		s.writeError(w, r, err)
		return
	}
	m["kind"], m["apiVersion"] = req.res.Kind, req.res.APIVersion()
	m["metadata"] = map[string]any{"creationTimestamp": nil}
	spec, _ := m["spec"].(map[string]any)
	if req.res.Kind == "SelfSubjectAccessReview" {
		m["status"] = map[string]any{"allowed": allows(req.tok, spec)}
	} else {
		m["status"] = rulesOf(req.tok)
	}
	writeValue(w, http.StatusCreated, m)
}

// allows reports whether tok may do what a SelfSubjectAccessReview's spec
// asks: any non-resource URL, and the resources and verbs it covers.
func allows(tok *Token, spec map[string]any) bool {
	if tok == nil {
		return true
	}
	ra, _ := spec["resourceAttributes"].(map[string]any)
	if ra == nil {
		return true // non-resource URLs: the fake guards none
	}
	res, verb := storage.Str(ra, "resource"), storage.Str(ra, "verb")
	okRes := len(tok.Resources) == 0 || slices.Contains(tok.Resources, res) || res == "*" && len(tok.Resources) == 0
	okVerb := len(tok.Verbs) == 0 || slices.Contains(tok.Verbs, verb)
	return okRes && okVerb
}

// rulesOf is a SelfSubjectRulesReview's status: everything for
// AlwaysAllow, as its RulesFor says, or the token's resources and verbs.
func rulesOf(tok *Token) map[string]any {
	all := []any{"*"}
	rule := map[string]any{"verbs": all, "apiGroups": all, "resources": all}
	if tok != nil {
		if len(tok.Verbs) > 0 {
			rule["verbs"] = anySlice(tok.Verbs)
		}
		if len(tok.Resources) > 0 {
			rule["resources"] = anySlice(tok.Resources)
		}
	}
	return map[string]any{
		"resourceRules":    []any{rule},
		"nonResourceRules": []any{map[string]any{"verbs": all, "nonResourceURLs": all}},
		"incomplete":       false,
	}
}

func anySlice(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
