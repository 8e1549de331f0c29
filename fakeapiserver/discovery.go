package fakeapiserver

import (
	"net/http"
	"slices"
	"sort"
	"strings"
)

// The discovery documents, shaped like kube-apiserver's legacy
// (unaggregated) discovery, which kubectl falls back to when a server answers
// plain application/json.

type apiResource struct {
	Name         string   `json:"name"`
	SingularName string   `json:"singularName"`
	Namespaced   bool     `json:"namespaced"`
	Group        string   `json:"group,omitempty"`   // of a subresource's kind, when not the resource's
	Version      string   `json:"version,omitempty"` // likewise
	Kind         string   `json:"kind"`
	Verbs        []string `json:"verbs"`
	ShortNames   []string `json:"shortNames,omitempty"`
	Categories   []string `json:"categories,omitempty"`
}

type groupVersion struct {
	GroupVersion string `json:"groupVersion"`
	Version      string `json:"version"`
}

type apiGroup struct {
	Name             string         `json:"name"`
	Versions         []groupVersion `json:"versions"`
	PreferredVersion groupVersion   `json:"preferredVersion"`
}

var resourceVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}

// verbsOf lists the verbs discovery names for res.
func verbsOf(res *Resource) []string {
	switch {
	case res.CreateOnly:
		return []string{"create"}
	case res.NoDeleteCollection:
		return slices.DeleteFunc(slices.Clone(resourceVerbs), func(v string) bool { return v == "deletecollection" })
	}
	return resourceVerbs
}

// serveDiscovery answers /version, /api, /apis, /api/v1, /apis/{g}/{v} and
// the openapi documents; false when the path is none of them.
func (s *Server) serveDiscovery(w http.ResponseWriter, r *http.Request) bool {
	p := strings.TrimSuffix(r.URL.Path, "/")
	switch {
	case p == "/version":
		// The version the fake emulates and the conformance suite checks it
		// against (kube-apiserver v1.37.2); "+zerokube" is semver build
		// metadata, which version parsers ignore.
		writeValue(w, http.StatusOK, map[string]string{"major": "1", "minor": "37", "gitVersion": "v1.37.2+zerokube",
			"gitCommit": "0000000000000000000000000000000000000000", "gitTreeState": "clean", "buildDate": "2026-01-01T00:00:00Z",
			"goVersion": "go1.26", "compiler": "gc", "platform": "linux/amd64",
			"emulationMajor": "1", "emulationMinor": "37", "minCompatibilityMajor": "1", "minCompatibilityMinor": "36"})
	case (p == "/api" || p == "/apis") && wantsAggregated(r.Header.Get("Accept")):
		s.writeAggregated(w, p == "/api")
	case p == "/api":
		writeValue(w, http.StatusOK, map[string]any{"kind": "APIVersions", "versions": []string{"v1"},
			"serverAddressByClientCIDRs": []map[string]string{{"clientCIDR": "0.0.0.0/0", "serverAddress": r.Host}}})
	case p == "/apis":
		writeValue(w, http.StatusOK, map[string]any{"kind": "APIGroupList", "apiVersion": "v1", "groups": s.apiGroups()})
	case p == "/api/v1":
		s.writeResourceList(w, "", "v1")
	case strings.HasPrefix(p, "/apis/") && strings.Count(p, "/") == 3:
		parts := strings.Split(p, "/")
		if len(s.reg.groupVersion(parts[2], parts[3])) == 0 {
			s.writeError(w, r, errNoResource())
			return true
		}
		s.writeResourceList(w, parts[2], parts[3])
	case strings.HasPrefix(p, "/apis/") && strings.Count(p, "/") == 2:
		for _, g := range s.apiGroups() {
			if "/apis/"+g.Name == p {
				writeValue(w, http.StatusOK, map[string]any{"kind": "APIGroup", "apiVersion": "v1", "name": g.Name,
					"versions": g.Versions, "preferredVersion": g.PreferredVersion})
				return true
			}
		}
		s.writeError(w, r, errNoResource())
	case strings.HasPrefix(p, "/openapi/"):
		s.serveOpenAPI(w, r, p)
	default:
		return false
	}
	return true
}

func (s *Server) apiGroups() []apiGroup {
	groups := s.reg.groups()
	names := make([]string, 0, len(groups))
	for g := range groups {
		names = append(names, g)
	}
	sort.Strings(names)
	out := make([]apiGroup, 0, len(names))
	for _, name := range names {
		g := apiGroup{Name: name}
		for _, v := range groups[name] {
			g.Versions = append(g.Versions, groupVersion{GroupVersion: name + "/" + v, Version: v})
		}
		g.PreferredVersion = g.Versions[0] // groups() sorts the preferred first
		out = append(out, g)
	}
	return out
}

func (s *Server) writeResourceList(w http.ResponseWriter, group, version string) {
	gv := version
	if group != "" {
		gv = group + "/" + version
	}
	var list []apiResource
	for _, res := range s.reg.groupVersion(group, version) {
		verbs := verbsOf(res)
		list = append(list, apiResource{Name: res.GVR.Resource, SingularName: res.Singular(), Namespaced: res.Namespaced,
			Kind: res.Kind, Verbs: verbs, ShortNames: res.ShortNames, Categories: res.Categories})
		// Only kinds with a status subresource list one, as on kube-apiserver
		// (a ConfigMap has none): a client that reads discovery to decide
		// where to write status must not be told of an endpoint that 404s.
		if res.StatusSubresource {
			list = append(list, apiResource{Name: res.GVR.Resource + "/status", Namespaced: res.Namespaced, Kind: res.Kind,
				Verbs: []string{"get", "patch", "update"}})
		}
		if res.ScaleSubresource {
			list = append(list, apiResource{Name: res.GVR.Resource + "/scale", Namespaced: res.Namespaced,
				Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: []string{"get", "patch", "update"}})
		}
	}
	doc := map[string]any{"kind": "APIResourceList", "groupVersion": gv, "resources": list}
	if group != "" {
		doc["apiVersion"] = "v1" // kube-apiserver leaves it out of /api/v1 only
	}
	writeValue(w, http.StatusOK, doc)
}

// serveOpenAPI serves a minimal OpenAPI v3: the index, and per group version
// one PATCH operation per kind that declares the fieldValidation parameter
// (what kubectl reads to decide that the server validates fields itself,
// kubectl create/apply --validate=strict) and the schemas of the built-in
// kinds, made from kubeproto's table (openapi.go), which kubectl explain
// reads: field names and types, no descriptions.
func (s *Server) serveOpenAPI(w http.ResponseWriter, r *http.Request, p string) {
	if p == "/openapi/v3" {
		paths := map[string]any{"api/v1": map[string]string{"serverRelativeURL": "/openapi/v3/api/v1?hash=0"}}
		for _, g := range s.apiGroups() {
			for _, v := range g.Versions {
				paths["apis/"+v.GroupVersion] = map[string]string{"serverRelativeURL": "/openapi/v3/apis/" + v.GroupVersion + "?hash=0"}
			}
		}
		writeValue(w, http.StatusOK, map[string]any{"paths": paths})
		return
	}
	gvPath, ok := strings.CutPrefix(p, "/openapi/v3/")
	if !ok {
		s.writeError(w, r, errNoResource())
		return
	}
	var group, version string
	switch parts := strings.Split(gvPath, "/"); {
	case len(parts) == 2 && parts[0] == "api":
		version = parts[1]
	case len(parts) == 3 && parts[0] == "apis":
		group, version = parts[1], parts[2]
	default:
		s.writeError(w, r, errNoResource())
		return
	}
	paths := map[string]any{}
	var kinds []string
	for _, res := range s.reg.groupVersion(group, version) {
		kinds = append(kinds, res.Kind)
		op := map[string]any{
			"x-kubernetes-group-version-kind": map[string]string{"group": group, "version": version, "kind": res.Kind},
			"parameters":                      []map[string]any{{"name": "fieldValidation", "in": "query", "schema": map[string]string{"type": "string"}}},
			"responses":                       map[string]any{"200": map[string]string{"description": "OK"}},
		}
		paths["/"+gvPath+"/"+res.GVR.Resource+"/{name}"] = map[string]any{"patch": op}
	}
	writeValue(w, http.StatusOK, map[string]any{"openapi": "3.0.0",
		"info": map[string]string{"title": "Kubernetes", "version": "v1.37.2"}, "paths": paths,
		"components": map[string]any{"schemas": openAPISchemas(group, version, kinds)}}) // openapi.go
}
