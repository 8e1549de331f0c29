package apiclient

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/zerokube/zerokube/meta"
)

// Ref addresses a collection: a resource type, and a namespace or "" for all
// namespaces (or a cluster-scoped resource).
type Ref struct {
	GVR       meta.GVR
	Namespace string
	// Scope is whether the resource's objects live in namespaces, when
	// known: discovery.Resource.Ref sets it, a Ref written by hand may
	// leave it "" (not known). With ScopeNamespaced, a request for one
	// object (Get, Create, Update, Patch, Delete, UpdateMetadata,
	// SetCondition, Apply) without a namespace, from the Ref or the object,
	// fails with ErrNoNamespace before it is sent: kube-apiserver would
	// answer 404 NotFound for a path that holds no object
	// (/api/v1/pods/NAME), which the usual "NotFound means it was deleted"
	// branch takes for a deletion.
	Scope Scope
}

// Scope is a resource's scope, as discovery says it.
type Scope string

// The scopes; "" is not known.
const (
	ScopeNamespaced Scope = "Namespaced"
	ScopeCluster    Scope = "Cluster"
)

// ErrNoNamespace is wrapped by the error of a request for one object of a
// namespaced resource (Ref.Scope) that has no namespace: typically an
// informer of all namespaces (Ref("")) writing back through its Ref. Write
// through ref.Namespaced(obj.GetNamespace()) instead. It is no Status: a
// check for meta.IsNotFound does not take it for a deletion.
var ErrNoNamespace = errors.New("the resource is namespaced and the Ref has no namespace: " +
	"address the object with ref.Namespaced(its namespace)")

// Namespaced returns r restricted to namespace ns: the Ref of an object
// of a namespaced resource is r.Namespaced(obj.GetNamespace()).
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

// checkNamespace is nil unless r is namespaced and has no namespace, when
// it is an error for a method request on the object called name (or on
// the collection, when name is "") that wraps ErrNoNamespace.
func (r Ref) checkNamespace(method, name string) error {
	if r.Scope != ScopeNamespaced || r.Namespace != "" {
		return nil
	}
	what := r.GVR.String()
	if name != "" {
		what += " " + strconv.Quote(name)
	}
	return fmt.Errorf("apiclient: %s %s: %w", method, what, ErrNoNamespace)
}
