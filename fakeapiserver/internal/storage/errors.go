package storage

import (
	"fmt"

	"github.com/zerokube/zerokube/meta"
)

// The Status errors of storage carry the messages and details
// kube-apiserver sends, so clients that parse them (kubectl, client-go)
// behave as usual. details.kind is the resource ("pods") for these, as
// kube-apiserver's storage errors name it.

func withDetails(e *meta.StatusError, res *Resource, name string) *meta.StatusError {
	d := &meta.StatusDetails{Name: name}
	if res != nil {
		d.Group, d.Kind = res.GVR.Group, res.GVR.Resource
	}
	e.Status.Details = d
	return e
}

// NotFound is the 404 for an object of res.
func NotFound(res *Resource, name string) *meta.StatusError {
	return withDetails(meta.NewStatusError(404, meta.ReasonNotFound,
		fmt.Sprintf("%s %q not found", res.Qualified(), name)), res, name)
}

// NamespaceNotFound is the 404 of a create in a missing namespace.
func NamespaceNotFound(ns string) *meta.StatusError {
	e := meta.NewStatusError(404, meta.ReasonNotFound, fmt.Sprintf("namespaces %q not found", ns))
	e.Status.Details = &meta.StatusDetails{Name: ns, Kind: "namespaces"}
	return e
}

// NamespaceTerminating is the 403 of a create in a terminating namespace,
// as the namespace lifecycle admission plugin words it (name is the
// object's name, or its generateName before one is made up);
// details.kind is the resource, as apimachinery's NewForbidden sets it.
func NamespaceTerminating(res *Resource, name, ns string) *meta.StatusError {
	e := Forbidden(res, name, fmt.Sprintf("unable to create new content in namespace %s because it is being terminated", ns))
	e.Status.Details.Causes = []meta.StatusCause{{Type: "NamespaceTerminating", Field: "metadata.namespace",
		Message: fmt.Sprintf("namespace %s is being terminated", ns)}}
	return e
}

// Forbidden is apimachinery's NewForbidden of an object of res.
func Forbidden(res *Resource, name, why string) *meta.StatusError {
	msg := fmt.Sprintf("%s %q is forbidden: %s", res.Qualified(), name, why)
	if name == "" {
		msg = fmt.Sprintf("%s is forbidden: %s", res.Qualified(), why)
	}
	return withDetails(meta.NewStatusError(403, meta.ReasonForbidden, msg), res, name)
}

// AlreadyExists is the 409 of a create over an existing key.
func AlreadyExists(res *Resource, name string) *meta.StatusError {
	return withDetails(meta.NewStatusError(409, meta.ReasonAlreadyExists,
		fmt.Sprintf("%s %q already exists", res.Qualified(), name)), res, name)
}

// Conflict is a 409 Conflict saying why.
func Conflict(res *Resource, name, why string) *meta.StatusError {
	return withDetails(meta.NewStatusError(409, meta.ReasonConflict,
		fmt.Sprintf("Operation cannot be fulfilled on %s %q: %s", res.Qualified(), name, why)), res, name)
}

// Stale is the 409 of an update at an old resourceVersion.
func Stale(res *Resource, name string) *meta.StatusError {
	return Conflict(res, name, "the object has been modified; please apply your changes to the latest version and try again")
}

// BadRequest is a 400.
func BadRequest(format string, args ...any) *meta.StatusError {
	return meta.NewStatusError(400, meta.ReasonBadRequest, fmt.Sprintf(format, args...))
}

// Expired is a 410 Expired.
func Expired(message string) *meta.StatusError {
	return meta.NewStatusError(410, meta.ReasonExpired, message)
}

// TooOld is the 410 of a watch from a compacted resourceVersion.
func TooOld(rv, oldest int64) *meta.StatusError {
	return Expired(fmt.Sprintf("too old resource version: %d (%d)", rv, oldest))
}

// TooLarge is the 504 of a read at a resourceVersion the store has not
// reached in time.
func TooLarge(rv int64) *meta.StatusError {
	e := meta.NewStatusError(504, meta.ReasonTimeout,
		fmt.Sprintf("Timeout: Too large resource version: %d, current: ?", rv))
	e.Status.Details = &meta.StatusDetails{RetryAfterSeconds: 1,
		Causes: []meta.StatusCause{{Type: meta.CauseResourceVersionTooLarge, Message: "Too large resource version"}}}
	return e
}
