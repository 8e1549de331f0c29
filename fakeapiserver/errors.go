package fakeapiserver

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/zerokube/zerokube/fakeapiserver/internal/storage"
	"github.com/zerokube/zerokube/meta"
)

// The Status errors the front answers with itself; the storage layer's own
// (NotFound, Conflict, Expired, …) come from package storage.

func errBadRequest(format string, args ...any) *meta.StatusError {
	return storage.BadRequest(format, args...)
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

// The cause types of a field error, as apimachinery's field.ErrorType
// names them.
const (
	causeForbidden    = "FieldValueForbidden"
	causeNotSupported = "FieldValueNotSupported"
)

func errMethodNotAllowed(method string) *meta.StatusError {
	return meta.NewStatusError(405, meta.ReasonMethodNotAllowed,
		fmt.Sprintf("the server does not allow this method on the requested resource (%s)", method))
}

func errNoResource() *meta.StatusError {
	e := meta.NewStatusError(404, meta.ReasonNotFound, "the server could not find the requested resource")
	e.Status.Details = &meta.StatusDetails{}
	return e
}

// fieldErrors collects the field errors of one validation, as
// apimachinery's field.ErrorList: each becomes one cause of the 422.
type fieldErrors []meta.StatusCause

func (e *fieldErrors) forbidden(field, detail string) {
	*e = append(*e, meta.StatusCause{Type: causeForbidden, Field: field, Message: "Forbidden: " + detail})
}

func (e *fieldErrors) notSupported(field, value string, supported ...string) {
	quoted := make([]string, len(supported))
	for i, v := range supported {
		quoted[i] = strconv.Quote(v)
	}
	*e = append(*e, meta.StatusCause{Type: causeNotSupported, Field: field,
		Message: fmt.Sprintf("Unsupported value: %q: supported values: %s", value, strings.Join(quoted, ", "))})
}

// invalid is the 422 Invalid of an object of kind (in group) named "":
// one error is quoted alone, several in brackets, as apimachinery's
// NewInvalid writes them.
func (e fieldErrors) invalid(kind, group string) *meta.StatusError {
	parts := make([]string, len(e))
	for i, c := range e {
		parts[i] = c.Field + ": " + c.Message
	}
	detail := parts[0]
	if len(parts) > 1 {
		detail = "[" + strings.Join(parts, ", ") + "]"
	}
	se := meta.NewStatusError(422, meta.ReasonInvalid, fmt.Sprintf("%s.%s %q is invalid: %s", kind, group, "", detail))
	se.Status.Details = &meta.StatusDetails{Kind: kind, Group: group, Causes: e}
	return se
}
