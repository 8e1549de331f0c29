package fakeapiserver

import (
	"fmt"

	"github.com/zerokube/zerokube/meta"
)

// The Status errors below carry the messages and details kube-apiserver
// sends, so clients that parse them (kubectl, client-go) behave as usual.

func withDetails(e *meta.StatusError, res *Resource, name string) *meta.StatusError {
	d := &meta.StatusDetails{Name: name}
	if res != nil {
		d.Group, d.Kind = res.GVR.Group, res.GVR.Resource
	}
	e.Status.Details = d
	return e
}

func errNotFound(res *Resource, name string) *meta.StatusError {
	return withDetails(meta.NewStatusError(404, meta.ReasonNotFound,
		fmt.Sprintf("%s %q not found", res.qualified(), name)), res, name)
}

func errNamespaceNotFound(ns string) *meta.StatusError {
	e := meta.NewStatusError(404, meta.ReasonNotFound, fmt.Sprintf("namespaces %q not found", ns))
	e.Status.Details = &meta.StatusDetails{Name: ns, Kind: "namespaces"}
	return e
}

func errAlreadyExists(res *Resource, name string) *meta.StatusError {
	return withDetails(meta.NewStatusError(409, meta.ReasonAlreadyExists,
		fmt.Sprintf("%s %q already exists", res.qualified(), name)), res, name)
}

func errConflict(res *Resource, name, why string) *meta.StatusError {
	return withDetails(meta.NewStatusError(409, meta.ReasonConflict,
		fmt.Sprintf("Operation cannot be fulfilled on %s %q: %s", res.qualified(), name, why)), res, name)
}

func errStale(res *Resource, name string) *meta.StatusError {
	return errConflict(res, name, "the object has been modified; please apply your changes to the latest version and try again")
}

func errBadRequest(format string, args ...any) *meta.StatusError {
	return meta.NewStatusError(400, meta.ReasonBadRequest, fmt.Sprintf(format, args...))
}

func errInvalid(res *Resource, name, message string) *meta.StatusError {
	kind := ""
	if res != nil {
		kind = res.Kind
	}
	e := meta.NewStatusError(422, meta.ReasonInvalid, fmt.Sprintf("%s %q is invalid: %s", kind, name, message))
	e.Status.Details = &meta.StatusDetails{Name: name, Kind: kind}
	if res != nil {
		e.Status.Details.Group = res.GVR.Group
	}
	return e
}

// errListInvalid is the 422 kube-apiserver answers to bad list options.
func errListInvalid(field, value, message string) *meta.StatusError {
	e := meta.NewStatusError(422, meta.ReasonInvalid,
		fmt.Sprintf("ListOptions.meta.k8s.io %q is invalid: %s: Invalid value: %q: %s", "", field, value, message))
	e.Status.Details = &meta.StatusDetails{Kind: "ListOptions", Group: "meta.k8s.io",
		Causes: []meta.StatusCause{{Type: "FieldValueInvalid", Field: field, Message: message}}}
	return e
}

func errExpired(message string) *meta.StatusError {
	return meta.NewStatusError(410, meta.ReasonExpired, message)
}

func errTooOld(rv, oldest int64) *meta.StatusError {
	return errExpired(fmt.Sprintf("too old resource version: %d (%d)", rv, oldest))
}

func errTooLarge(rv int64) *meta.StatusError {
	e := meta.NewStatusError(504, meta.ReasonTimeout,
		fmt.Sprintf("Timeout: Too large resource version: %d, current: ?", rv))
	e.Status.Details = &meta.StatusDetails{RetryAfterSeconds: 1,
		Causes: []meta.StatusCause{{Type: meta.CauseResourceVersionTooLarge, Message: "Too large resource version"}}}
	return e
}

func errMethodNotAllowed(method string) *meta.StatusError {
	return meta.NewStatusError(405, meta.ReasonMethodNotAllowed,
		fmt.Sprintf("the server does not allow this method on the requested resource (%s)", method))
}

func errNoResource() *meta.StatusError {
	e := meta.NewStatusError(404, meta.ReasonNotFound, "the server could not find the requested resource")
	e.Status.Details = &meta.StatusDetails{}
	return e
}
