package apiclient

import (
	"context"
	"fmt"
	"io"

	"github.com/go-json-experiment/json"

	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/watchstream"
)

// DeleteOptions are the body of a DELETE. The zero value deletes with the
// server's defaults.
type DeleteOptions struct {
	// PropagationPolicy is "Orphan", "Background" or "Foreground"; ""
	// means the resource's default.
	PropagationPolicy string
	// GracePeriodSeconds overrides the object's grace period; nil means
	// its default, 0 means immediately.
	GracePeriodSeconds *int64
	// Preconditions make the delete fail with a 409 Conflict unless the
	// object still has this UID and/or resourceVersion.
	Preconditions *meta.Preconditions
}

type deleteBody struct {
	meta.TypeMeta
	PropagationPolicy  string              `json:"propagationPolicy,omitempty"`
	GracePeriodSeconds *int64              `json:"gracePeriodSeconds,omitempty"`
	Preconditions      *meta.Preconditions `json:"preconditions,omitempty"`
}

// Get reads the object called name. It is retried like a LIST.
func Get[T any, P meta.PtrObject[T]](ctx context.Context, c *Client, ref Ref, name string) (P, error) {
	if err := ref.checkNamespace("GET", name); err != nil {
		return nil, err
	}
	return call[T, P](ctx, c, request{method: "GET", path: ref.ObjectPath(name), read: true})
}

// Create creates obj in ref's namespace (or, when ref has none, in obj's)
// and returns the object the server stored.
func Create[T any, P meta.PtrObject[T]](ctx context.Context, c *Client, ref Ref, obj P) (P, error) {
	body, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("apiclient: create in %s: encoding the object: %w", ref, err)
	}
	ref = objectRef(ref, obj)
	if err := ref.checkNamespace("POST", ""); err != nil {
		return nil, err
	}
	return call[T, P](ctx, c, request{method: "POST", path: ref.Path(), body: body, contentType: "application/json"})
}

// Update replaces obj. When obj carries a resourceVersion the server checks
// it and answers 409 Conflict (meta.IsConflict) if the object changed since.
// Update sends every field of obj: with a slim struct that declares only
// some fields, the others would be erased; use Patch instead.
func Update[T any, P meta.PtrObject[T]](ctx context.Context, c *Client, ref Ref, obj P) (P, error) {
	body, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("apiclient: update in %s: encoding the object: %w", ref, err)
	}
	ref = objectRef(ref, obj)
	if err := ref.checkNamespace("PUT", obj.GetName()); err != nil {
		return nil, err
	}
	return call[T, P](ctx, c, request{method: "PUT", path: ref.ObjectPath(obj.GetName()),
		body: body, contentType: "application/json"})
}

// Patch applies patch, in format pt, to the object called name.
func Patch[T any, P meta.PtrObject[T]](ctx context.Context, c *Client, ref Ref, name string, pt meta.PatchType, patch []byte) (P, error) {
	if err := ref.checkNamespace("PATCH", name); err != nil {
		return nil, err
	}
	return call[T, P](ctx, c, request{method: "PATCH", path: ref.ObjectPath(name), body: patch, contentType: string(pt)})
}

// Delete deletes the object called name. The server's reply (the object
// being finalized, or a Success Status) is discarded.
func (c *Client) Delete(ctx context.Context, ref Ref, name string, opts DeleteOptions) error {
	if err := ref.checkNamespace("DELETE", name); err != nil {
		return err
	}
	body, err := json.Marshal(deleteBody{
		TypeMeta:          meta.TypeMeta{Kind: "DeleteOptions", APIVersion: "v1"},
		PropagationPolicy: opts.PropagationPolicy, GracePeriodSeconds: opts.GracePeriodSeconds,
		Preconditions: opts.Preconditions,
	})
	if err != nil {
		return fmt.Errorf("apiclient: delete: %w", err)
	}
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	resp, err := c.do(ctx, request{method: "DELETE", path: ref.ObjectPath(name), body: body, contentType: "application/json"})
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body) // lets the connection be reused
	return resp.Body.Close()
}

// objectRef puts a namespaced write into obj's namespace when ref has none.
func objectRef(ref Ref, obj meta.Object) Ref {
	if ref.Namespace == "" {
		ref.Namespace = obj.GetNamespace()
	}
	return ref
}

// call sends r and decodes the reply into a new P.
func call[T any, P meta.PtrObject[T]](ctx context.Context, c *Client, r request) (P, error) {
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	resp, err := c.do(ctx, r)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return decodeObject[T, P](resp.Body, r)
}

// decodeObject decodes the reply to r, body, into a new P: every object
// apiclient returns goes through watchstream's decoder, with its size cap
// and its errors.
func decodeObject[T any, P meta.PtrObject[T]](body io.Reader, r request) (P, error) {
	p, err := watchstream.DecodeObject[T, P](body, watchstream.Options{})
	if err != nil {
		return nil, fmt.Errorf("apiclient: %s %s: decoding the reply: %w", r.method, r.path, err)
	}
	return p, nil
}
