package storage

import (
	"strings"

	"github.com/zerokube/zerokube/meta"
)

// Resource describes one resource type the server serves. Objects of every
// type are stored as generic JSON, so the store needs no Go type for them:
// only what this description says.
type Resource struct {
	GVR          meta.GVR
	Kind         string // "Pod"
	SingularName string // "pod"; "" means strings.ToLower(Kind)
	Namespaced   bool
	ShortNames   []string
	// Categories groups resources for kubectl ("all" makes `kubectl get
	// all` include the resource).
	Categories []string
	// FieldSelectors lists the fields besides metadata.name and
	// metadata.namespace that a fieldSelector may name (dotted JSON paths,
	// "spec.nodeName"). Any other field is a 400, as on a real server.
	FieldSelectors []string
	// GracefulDelete marks pods: a DELETE first writes deletionTimestamp
	// (a MODIFIED event), then removes the object, and answers with it
	// instead of a Status.
	GracefulDelete bool
	// NoGeneration marks the kinds whose strategy leaves
	// metadata.generation unset (config maps, secrets, namespaces,
	// services, nodes, events). The others (pods, deployments, replica
	// sets, custom resources) get generation 1 on create and one more on
	// every spec change.
	NoGeneration bool
	// StatusSubresource: status is written only through /status, which
	// writes nothing else; a write to the object keeps its status.
	StatusSubresource bool
	// NoDeleteCollection drops the deletecollection verb (namespaces).
	NoDeleteCollection bool
	// ScaleSubresource serves /scale, an autoscaling/v1 Scale of
	// spec.replicas (deployments, replica sets, stateful sets).
	ScaleSubresource bool
	// CreateOnly marks a review (SelfSubjectAccessReview): created, never
	// stored; create is its only verb.
	CreateOnly bool
}

// APIVersion is the apiVersion objects of r carry: "v1", "apps/v1".
func (r *Resource) APIVersion() string {
	if r.GVR.Group == "" {
		return r.GVR.Version
	}
	return r.GVR.Group + "/" + r.GVR.Version
}

// Singular is the singular name discovery lists.
func (r *Resource) Singular() string {
	if r.SingularName != "" {
		return r.SingularName
	}
	return strings.ToLower(r.Kind)
}

// Qualified is the resource as errors name it: "pods", "deployments.apps".
func (r *Resource) Qualified() string {
	if r.GVR.Group == "" {
		return r.GVR.Resource
	}
	return r.GVR.Resource + "." + r.GVR.Group
}

// Key is the etcd-like key of an object of r: "namespace/name" or "name".
func (r *Resource) Key(ns, name string) string {
	if !r.Namespaced {
		return name
	}
	return ns + "/" + name
}
