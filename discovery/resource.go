package discovery

import (
	"slices"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/meta"
)

// Resource is one resource type a server serves, as discovery describes it.
type Resource struct {
	GVR          meta.GVR
	Kind         string // "Deployment"
	SingularName string // "deployment"
	Namespaced   bool
	ShortNames   []string // "deploy"
	Categories   []string // "all"
	Verbs        []string // "get", "list", "watch", …
	// Subresources names the resource's subresources: "status", "scale".
	Subresources []string
}

// APIVersion is the apiVersion the resource's objects carry: "v1",
// "apps/v1".
func (r Resource) APIVersion() string {
	if r.GVR.Group == "" {
		return r.GVR.Version
	}
	return r.GVR.Group + "/" + r.GVR.Version
}

// Ref addresses the resource's objects in namespace ("" for all
// namespaces). A cluster-scoped resource has no namespace: namespace is
// dropped, so that one call serves both scopes. The Ref knows the scope:
// a request for one object through a namespaced Ref without a namespace
// fails with apiclient.ErrNoNamespace rather than a misleading 404.
func (r Resource) Ref(namespace string) apiclient.Ref {
	if !r.Namespaced {
		return apiclient.Ref{GVR: r.GVR, Scope: apiclient.ScopeCluster}
	}
	return apiclient.Ref{GVR: r.GVR, Namespace: namespace, Scope: apiclient.ScopeNamespaced}
}

// Has reports whether the server allows verb ("watch", "patch") on the
// resource.
func (r Resource) Has(verb string) bool { return slices.Contains(r.Verbs, verb) }

// Group is one API group as discovery lists it.
type Group struct {
	Name string // "" for the core group
	// Versions lists the served versions, the preferred one first.
	Versions []Version
}

// Version is one version of a group and its resources.
type Version struct {
	Version   string
	Resources []Resource
}
