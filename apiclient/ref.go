package apiclient

import (
	"net/url"
	"strings"

	"github.com/zerokube/zerokube/meta"
)

// Ref addresses a collection: a resource type, and a namespace or "" for all
// namespaces (or a cluster-scoped resource).
type Ref struct {
	GVR       meta.GVR
	Namespace string
}

// Namespaced returns r restricted to namespace ns.
func (r Ref) Namespaced(ns string) Ref { r.Namespace = ns; return r }

func (r Ref) String() string {
	if r.Namespace == "" {
		return r.GVR.String()
	}
	return r.GVR.String() + " in namespace " + r.Namespace
}

// Path returns the URL path of the collection: /api/v1/… for the core group,
// /apis/{group}/{version}/… for the others, with /namespaces/{ns} when r has a
// namespace.
func (r Ref) Path() string {
	var b strings.Builder
	if r.GVR.Group == "" {
		b.WriteString("/api/")
	} else {
		b.WriteString("/apis/")
		b.WriteString(url.PathEscape(r.GVR.Group))
		b.WriteByte('/')
	}
	b.WriteString(url.PathEscape(r.GVR.Version))
	if r.Namespace != "" {
		b.WriteString("/namespaces/")
		b.WriteString(url.PathEscape(r.Namespace))
	}
	b.WriteByte('/')
	b.WriteString(url.PathEscape(r.GVR.Resource))
	return b.String()
}

// ObjectPath returns the URL path of the object called name in r.
func (r Ref) ObjectPath(name string) string {
	return r.Path() + "/" + url.PathEscape(name)
}
