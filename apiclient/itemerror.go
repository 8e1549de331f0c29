package apiclient

import (
	"errors"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/zerokube/zerokube/meta"
)

// ItemError reports a list item that is valid JSON (or protobuf) but does
// not decode into the caller's type: a field declared int32 where the
// server sends a string (an IntOrString port), say. It names the item so
// that an operator can find it: its namespace and name as far as they were
// decoded before the failure (kube-apiserver writes metadata before spec
// and status, so usually), its index in the page, and the JSON pointer of
// the value that failed, the same on both wires (protodec.Path).
type ItemError struct {
	Namespace, Name string
	// Item is the 0-based index of the item in its page.
	Item int
	// Path is the JSON pointer of the failing value within the item, such
	// as "/spec/ports/0/port"; "" when the decoder did not say.
	Path string
	// Err is the decoder's error.
	Err error
}

func (e *ItemError) Error() string {
	name := meta.JoinKey(e.Namespace, e.Name)
	if name == "" {
		name = "(name not decoded)"
	}
	at := ""
	if e.Path != "" {
		at = " at " + e.Path
	}
	return fmt.Sprintf("item %d %s does not decode%s: %v", e.Item, name, at, e.Err)
}

func (e *ItemError) Unwrap() error { return e.Err }

// itemError builds the *ItemError of item i whose decode into obj failed
// with err. A decode error that is not about the item's content (a broken
// or truncated body, an item over MaxObjectSize) is returned as it is:
// skipping such an item is not possible, and naming it is not either.
func itemError(i int, obj any, err error) error {
	var se *json.SemanticError
	if !errors.As(err, &se) || errors.Is(err, ErrObjectTooLarge) {
		return fmt.Errorf("item %d: %w", i, err)
	}
	ie := &ItemError{Item: i, Path: itemPath(string(se.JSONPointer)), Err: err}
	if o, ok := obj.(interface {
		GetNamespace() string
		GetName() string
	}); ok {
		ie.Namespace, ie.Name = o.GetNamespace(), o.GetName()
	}
	return ie
}

// itemPath makes a pointer taken while decoding the whole list ("/items/3/
// spec/port") relative to the item ("/spec/port").
func itemPath(p string) string {
	if rest, ok := strings.CutPrefix(p, "/items/"); ok {
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			return rest[i:]
		}
		return ""
	}
	return p
}
