package discovery

import (
	"errors"
	"fmt"
	"strings"

	"github.com/zerokube/zerokube/meta"
)

// NotFoundError says that no resource type of the server answers to a name,
// as kubectl's "the server doesn't have a resource type".
type NotFoundError struct {
	Name   string // as the caller wrote it
	Server string // the server's URL
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("discovery: the server at %s has no resource type %q (neither a plural, a singular, "+
		"a short name nor a kind; a custom resource must be installed first)", e.Server, e.Name)
}

// AmbiguousError says that a name fits more than one resource type of equal
// priority (the same group and version), so none is chosen.
type AmbiguousError struct {
	Name    string
	Matches []meta.GVR
}

func (e *AmbiguousError) Error() string {
	names := make([]string, len(e.Matches))
	for i, m := range e.Matches {
		names[i] = m.String()
	}
	return fmt.Sprintf("discovery: %q names more than one resource type: %s; write it as resource.version.group",
		e.Name, strings.Join(names, ", "))
}

// IsNotFound reports whether err says that a name matched no resource type.
func IsNotFound(err error) bool {
	var nf *NotFoundError
	return errors.As(err, &nf)
}

// IsAmbiguous reports whether err says that a name matched several resource
// types.
func IsAmbiguous(err error) bool {
	var a *AmbiguousError
	return errors.As(err, &a)
}
