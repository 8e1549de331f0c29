package fakeapiserver

import (
	"crypto/sha512"
	"encoding/hex"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
)

// Aggregated discovery (apidiscovery.k8s.io/v2): every group, version and
// resource in one document from /apis (and the core group from /api), the
// form kube-apiserver serves to a client that asks for it in Accept, as
// kubectl and client-go do. A client that asks for plain application/json
// gets the legacy documents of discovery.go.

// aggregatedType is the media type of the aggregated documents, as
// kube-apiserver names it in Content-Type.
const aggregatedType = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

type groupKind struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

type aggSubresource struct {
	Subresource  string    `json:"subresource"`
	ResponseKind groupKind `json:"responseKind"`
	Verbs        []string  `json:"verbs"`
}

type aggResource struct {
	Resource         string           `json:"resource"`
	ResponseKind     groupKind        `json:"responseKind"`
	Scope            string           `json:"scope"`
	SingularResource string           `json:"singularResource"`
	Verbs            []string         `json:"verbs"`
	ShortNames       []string         `json:"shortNames,omitempty"`
	Categories       []string         `json:"categories,omitempty"`
	Subresources     []aggSubresource `json:"subresources,omitempty"`
}

type aggVersion struct {
	Version   string        `json:"version"`
	Resources []aggResource `json:"resources"`
	Freshness string        `json:"freshness"`
}

type aggGroup struct {
	Metadata struct {
		Name string `json:"name,omitempty"` // none for the core group
	} `json:"metadata"`
	Versions []aggVersion `json:"versions"`
}

// wantsAggregated reports whether the Accept header asks for aggregated
// discovery anywhere in its list: kube-apiserver v1.37.2 answers
// "application/json, <aggregated>" aggregated too, whatever the order.
// v2beta1 is no longer served: it gets the legacy document.
func wantsAggregated(accept string) bool {
	for _, part := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err == nil && mt == "application/json" && params["g"] == "apidiscovery.k8s.io" && params["v"] == "v2" &&
			params["as"] == "APIGroupDiscoveryList" {
			return true
		}
	}
	return false
}

// writeAggregated answers /api (core == true) or /apis with the aggregated
// document of the groups the server holds.
func (s *Server) writeAggregated(w http.ResponseWriter, core bool) {
	var items []aggGroup
	if core {
		items = append(items, s.aggregatedGroup("", []string{"v1"}))
	} else {
		for _, g := range s.apiGroups() {
			versions := make([]string, 0, len(g.Versions))
			for _, v := range g.Versions {
				versions = append(versions, v.Version)
			}
			items = append(items, s.aggregatedGroup(g.Name, versions))
		}
	}
	b, err := json.Marshal(map[string]any{"kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2",
		"metadata": map[string]any{}, "items": items}, deterministic)
	if err != nil {
		panic("fakeapiserver: marshal discovery: " + err.Error())
	}
	// Cached by clients and proxies, told apart by Accept and by a hash of
	// the document, as on kube-apiserver.
	sum := sha512.Sum512(b)
	h := w.Header()
	h.Set("Content-Type", aggregatedType)
	h.Set("Cache-Control", "public")
	h.Set("Etag", `"`+strings.ToUpper(hex.EncodeToString(sum[:]))+`"`)
	h.Set("Vary", "Accept")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// aggregatedGroup lists group's versions, preferred first, with their
// resources.
func (s *Server) aggregatedGroup(group string, versions []string) aggGroup {
	var g aggGroup
	g.Metadata.Name = group
	for _, v := range versions {
		av := aggVersion{Version: v, Resources: []aggResource{}, Freshness: "Current"}
		for _, res := range s.reg.groupVersion(group, v) {
			scope := "Cluster"
			if res.Namespaced {
				scope = "Namespaced"
			}
			verbs := verbsOf(res)
			// responseKind names no group or version when they are the
			// resource's own, as on kube-apiserver.
			ar := aggResource{Resource: res.GVR.Resource, ResponseKind: groupKind{Kind: res.Kind}, Scope: scope,
				SingularResource: res.Singular(), Verbs: verbs, ShortNames: res.ShortNames, Categories: res.Categories}
			if res.StatusSubresource {
				ar.Subresources = []aggSubresource{{Subresource: "status", ResponseKind: groupKind{Kind: res.Kind},
					Verbs: []string{"get", "patch", "update"}}}
			}
			if res.ScaleSubresource {
				ar.Subresources = append(ar.Subresources, aggSubresource{Subresource: "scale",
					ResponseKind: groupKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}, Verbs: []string{"get", "patch", "update"}})
			}
			av.Resources = append(av.Resources, ar)
		}
		g.Versions = append(g.Versions, av)
	}
	return g
}
