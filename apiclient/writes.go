package apiclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/zerokube/zerokube/meta"
)

// The writes an agent makes most: labels and annotations, a status
// condition, a server-side apply. Each retries conflicts (RetryOnConflict
// with the zero ConflictRetry) and returns the object the server stored.

// MetadataChange sets and removes labels and annotations. A key in both a
// Set and a Remove is removed.
type MetadataChange struct {
	SetLabels         map[string]string
	RemoveLabels      []string
	SetAnnotations    map[string]string
	RemoveAnnotations []string
}

// patch is the change as a JSON merge patch (RFC 7386): null removes a key.
// A merge patch works on every kind, custom resources included, which a
// strategic merge patch does not.
func (m MetadataChange) patch() ([]byte, error) {
	md := map[string]map[string]*string{}
	put := func(field string, set map[string]string, remove []string) {
		if len(set) == 0 && len(remove) == 0 {
			return
		}
		f := map[string]*string{}
		for k, v := range set {
			f[k] = &v
		}
		for _, k := range remove {
			f[k] = nil
		}
		md[field] = f
	}
	put("labels", m.SetLabels, m.RemoveLabels)
	put("annotations", m.SetAnnotations, m.RemoveAnnotations)
	if len(md) == 0 {
		return nil, errors.New("the change sets and removes nothing")
	}
	return json.Marshal(map[string]any{"metadata": md})
}

// UpdateMetadata applies ch to the labels and annotations of the object
// called name, leaving everything else alone: no read first, so no
// conflict with writers of other fields. ref is in the object's namespace:
// from an informer of every namespace, inf.Ref().Namespaced(obj.Namespace)
// (see Ref.Scope and ErrNoNamespace).
func UpdateMetadata[T any, P meta.PtrObject[T]](ctx context.Context, c *Client, ref Ref, name string, ch MetadataChange) (P, error) {
	body, err := ch.patch()
	if err != nil {
		return nil, fmt.Errorf("apiclient: update metadata of %s: %w", ref.ObjectPath(name), err)
	}
	var out P
	err = c.RetryOnConflict(ctx, ConflictRetry{}, func(ctx context.Context) error {
		out, err = Patch[T, P](ctx, c, ref, name, meta.MergePatch, body)
		return err
	})
	return out, err
}

// ConditionOptions tune SetCondition. The zero value writes through the
// status subresource.
type ConditionOptions struct {
	// NoStatusSubresource writes the whole object instead of /status, for
	// a custom resource whose definition has no status subresource.
	NoStatusSubresource bool
}

// SetCondition sets cond in the status.conditions of the object called
// name, as apimachinery's meta.SetStatusCondition does: the condition of
// cond.Type is added or updated; its lastTransitionTime changes only when
// its status does (to cond.LastTransitionTime, or now when that is zero),
// except that a condition read without one (another writer's; a pod's
// may lack it) gets one whatever its status: SetStatusCondition would
// write it as null, which a custom resource using metav1.Condition's
// schema refuses (422).
// It reads the object, changes it and writes it back with its
// resourceVersion, again from the read when another writer came between
// (409). When nothing changes nothing is written. Fields of the object and
// of its conditions that cond does not name are kept as read. The condition
// is written with every member metav1.Condition requires (type, status,
// lastTransitionTime, reason, message), an empty message as "", so that a
// custom resource whose status uses metav1.Condition's schema accepts it;
// that schema also wants a non-empty reason in CamelCase.
func SetCondition[T any, P meta.PtrObject[T]](ctx context.Context, c *Client, ref Ref, name string, cond meta.Condition, opts ConditionOptions) (P, error) {
	if err := ref.checkNamespace("PUT", name); err != nil {
		return nil, err
	}
	path := ref.ObjectPath(name)
	if !opts.NoStatusSubresource {
		path += "/status"
	}
	var out P
	err := c.RetryOnConflict(ctx, ConflictRetry{}, func(ctx context.Context) error {
		get := request{method: "GET", path: ref.ObjectPath(name)}
		raw, _, err := c.GetRaw(ctx, get.path, "application/json")
		if err != nil {
			return err
		}
		obj, changed, err := withCondition(raw, cond, c.clock.Now())
		if err != nil {
			return fmt.Errorf("apiclient: set condition %s of %s: %w", cond.Type, get.path, err)
		}
		if !changed {
			// The object as read is the answer, decoded as Get would.
			out, err = decodeObject[T, P](bytes.NewReader(raw), get)
			return err
		}
		out, err = call[T, P](ctx, c, request{method: "PUT", path: path, body: obj, contentType: "application/json"})
		return err
	})
	return out, err
}

// withCondition returns the object raw with cond set, and whether that
// changed it.
func withCondition(raw []byte, cond meta.Condition, now time.Time) ([]byte, bool, error) {
	var obj map[string]jsontext.Value
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, false, fmt.Errorf("decoding the object: %w", err)
	}
	status := map[string]jsontext.Value{}
	if s, ok := obj["status"]; ok && string(s) != "null" {
		if err := json.Unmarshal(s, &status); err != nil {
			return nil, false, fmt.Errorf("decoding its status: %w", err)
		}
	}
	var conds []map[string]jsontext.Value
	if cs, ok := status["conditions"]; ok && string(cs) != "null" {
		if err := json.Unmarshal(cs, &conds); err != nil {
			return nil, false, fmt.Errorf("decoding its conditions: %w", err)
		}
	}
	conds, changed := setCondition(conds, cond, now)
	if !changed {
		return nil, false, nil
	}
	var err error
	if status["conditions"], err = json.Marshal(conds); err != nil {
		return nil, false, err
	}
	if obj["status"], err = json.Marshal(status); err != nil {
		return nil, false, err
	}
	b, err := json.Marshal(obj, json.Deterministic(true))
	return b, true, err
}

// setCondition is apimachinery's SetStatusCondition on conditions kept as
// raw members, so members it does not know survive. SetStatusCondition
// writes a whole metav1.Condition, whose type, status, lastTransitionTime,
// reason and message have no omitempty and are required by its schema: so
// here each of them is written when it is missing, even as "" (a CRD using
// that schema refuses a condition without message with 422).
func setCondition(conds []map[string]jsontext.Value, cond meta.Condition, now time.Time) ([]map[string]jsontext.Value, bool) {
	str := func(s string) jsontext.Value { v, _ := json.Marshal(s); return v }
	// get is member k as a string, and whether it is there as one.
	get := func(c map[string]jsontext.Value, k string) (string, bool) {
		var s string
		err := json.Unmarshal(c[k], &s)
		return s, err == nil && string(c[k]) != "null"
	}
	at := cond.LastTransitionTime
	if at.IsZero() {
		at = now
	}
	stamp := str(at.UTC().Truncate(time.Second).Format(time.RFC3339))
	i := 0
	for i < len(conds) {
		if t, _ := get(conds[i], "type"); t == cond.Type {
			break
		}
		i++
	}
	added := i == len(conds)
	if added {
		conds = append(conds, map[string]jsontext.Value{"type": str(cond.Type), "lastTransitionTime": stamp})
	}
	c, changed := conds[i], added
	if s, ok := get(c, "status"); !ok || s != cond.Status {
		c["status"], c["lastTransitionTime"], changed = str(cond.Status), stamp, true
	}
	if _, ok := get(c, "lastTransitionTime"); !ok {
		c["lastTransitionTime"], changed = stamp, true
	}
	for k, v := range map[string]string{"reason": cond.Reason, "message": cond.Message} {
		if s, ok := get(c, k); !ok || s != v {
			c[k], changed = str(v), true
		}
	}
	var gen int64
	_ = json.Unmarshal(c["observedGeneration"], &gen)
	if gen != cond.ObservedGeneration {
		c["observedGeneration"], _ = json.Marshal(cond.ObservedGeneration)
		changed = true
	}
	return conds, changed
}

// ApplyOptions tune Apply.
type ApplyOptions struct {
	// FieldManager names the writer whose fields obj holds (required):
	// fields it applied before and leaves out now are removed.
	FieldManager string
	// Force takes the fields obj sets from other managers that own them;
	// without it such an apply fails (meta.IsFieldManagerConflict).
	Force bool
}

// Apply is a server-side apply (kubectl apply --server-side) of obj: the
// fields obj sets become FieldManager's, the others stay as they are. obj
// is the user's own type, typically a partial one whose fields are all
// omitempty; it must carry apiVersion, kind and metadata.name, and no
// managedFields. The object is created when missing.
func Apply[T any, P meta.PtrObject[T]](ctx context.Context, c *Client, ref Ref, obj P, opts ApplyOptions) (P, error) {
	if opts.FieldManager == "" {
		return nil, fmt.Errorf("apiclient: apply to %s: ApplyOptions.FieldManager is required", ref)
	}
	body, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("apiclient: apply to %s: encoding the object: %w", ref, err)
	}
	ref = objectRef(ref, obj)
	if err := ref.checkNamespace("PATCH", obj.GetName()); err != nil {
		return nil, err
	}
	q := url.Values{"fieldManager": {opts.FieldManager}}
	if opts.Force {
		q.Set("force", "true")
	}
	var out P
	err = c.RetryOnConflict(ctx, ConflictRetry{}, func(ctx context.Context) error {
		out, err = call[T, P](ctx, c, request{method: "PATCH", path: ref.ObjectPath(obj.GetName()), query: q,
			body: body, contentType: string(meta.ApplyPatch)})
		return err
	})
	return out, err
}
