package informer

import (
	"context"
	"fmt"

	"github.com/go-json-experiment/json"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/discovery"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/protodec"
	"github.com/zerokube/zerokube/snapshot"
	"github.com/zerokube/zerokube/watchstream"
)

// NewForResource returns an informer for ref over c, narrowed by
// opts.Selectors (zero: everything). ExpectedAPIVersion defaults to ref's
// group/version.
func NewForResource[T any, P meta.PtrObject[T]](c *apiclient.Client, ref apiclient.Ref, opts Options[P]) *Informer[T, P] {
	if opts.Name == "" {
		opts.Name = ref.String()
	}
	if opts.ExpectedAPIVersion == "" {
		// Objects that say they are of another group/version are dropped.
		opts.ExpectedAPIVersion = ref.GVR.GroupVersion()
	}
	if opts.Snapshot.enabled() && opts.Snapshot.Identity == (snapshot.Identity{}) {
		opts.Snapshot.Identity = SnapshotIdentity(c, ref, opts.Selectors)
	}
	i := New[T](NewListerWatcher[T](c, ref, opts), opts)
	i.ref = ref
	return i
}

// Ref is the resource the informer lists and watches, as NewForName,
// ForName, NewForResource or ForResource resolved it: the group, version,
// resource and namespace to write back to (apiclient.UpdateMetadata,
// apiclient.Patch) without resolving the name a second time. The
// namespace is "" for a cluster-scoped resource or all namespaces. An
// informer made by New over a ListerWatcher of one's own has no resource
// to say: Ref is then the zero Ref.
func (i *Informer[T, P]) Ref() apiclient.Ref { return i.ref }

// NewForName is NewForResource for a resource type named as kubectl names
// it: "deploy", "deployments.apps", "deployments.v1.apps", "Deployment", or
// the plural, singular or short name of a custom resource. d resolves the
// name (reading discovery again when the name is new to it, so a custom
// resource installed after d's first read is found) and lists and watches
// over its client. namespace is ignored for a cluster-scoped resource.
// ExpectedAPIVersion defaults to the resolved group/version.
func NewForName[T any, P meta.PtrObject[T]](ctx context.Context, d *discovery.Client, name, namespace string, opts Options[P]) (*Informer[T, P], error) {
	r, err := d.Resolve(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("informer: resource %q: %w", name, err)
	}
	return NewForResource[T, P](d.APIClient(), r.Ref(namespace), opts), nil
}

// ForName is ForResource for a resource type named as kubectl names it,
// resolved by d as NewForName does: callers that name one resource type
// differently ("deploy", "deployments.apps") share one informer.
func ForName[T any, P meta.PtrObject[T]](ctx context.Context, f *Factory, d *discovery.Client, name, namespace string, opts Options[P]) (*Informer[T, P], error) {
	r, err := d.Resolve(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("informer: resource %q: %w", name, err)
	}
	return ForResource[T, P](f, r.Ref(namespace), opts), nil
}

// decodeOptions are the extra options NewForResource's list and watch
// decoders take for objects (nil: none), and the Sharer among them (nil:
// none).
func decodeOptions[P meta.Object](opts Options[P]) (json.Options, *meta.Sharer) {
	var us []*json.Unmarshalers
	var sharer *meta.Sharer
	if !opts.KeepManagedFields {
		// The reflector would drop them anyway; skipping them while decoding
		// saves copying kilobytes per object that become garbage at once.
		us = append(us, meta.SkipManagedFieldsUnmarshalers())
	}
	switch sh := opts.Sharer; {
	case sh != nil:
		if sh.Shares() != 0 {
			us, sharer = append(us, sh.Unmarshalers()), sh
		}
	case opts.Transform == nil:
		// A transform may modify the maps of its argument: shared, they
		// would change under other objects.
		sharer = meta.NewSharer(meta.ShareMaps)
		us = append(us, sharer.Unmarshalers())
	}
	switch len(us) {
	case 0:
		return nil, nil
	case 1:
		if us[0] == meta.SkipManagedFieldsUnmarshalers() {
			return meta.SkipManagedFields(), nil
		}
	}
	return json.WithUnmarshalers(json.JoinUnmarshalers(us...)), sharer
}

// SnapshotIdentity is what a snapshot of ref over c with sel is of: the
// server, resource, namespace and selectors. NewForResource sets it; a
// caller of New that lists and watches a resource should set
// Options.Snapshot.Identity to it.
func SnapshotIdentity(c *apiclient.Client, ref apiclient.Ref, sel Selectors) snapshot.Identity {
	return snapshot.Identity{Server: c.Host(), Group: ref.GVR.Group, Version: ref.GVR.Version,
		Resource: ref.GVR.Resource, Namespace: ref.Namespace,
		LabelSelector: sel.LabelSelector, FieldSelector: sel.FieldSelector}
}

// NewListerWatcher is the ListerWatcher NewForResource builds: it lists and
// watches the objects of ref over c that opts.Selectors select, as
// opts.Transport says, decoding as opts say (managedFields skipped unless
// KeepManagedFields, label maps shared by opts.Sharer), in protobuf or JSON
// as wire.go says. It reads no other option. A caller of New that wraps the
// ListerWatcher (to count or trace requests) starts from this one and
// passes New the same opts.
func NewListerWatcher[T any, P meta.PtrObject[T]](c *apiclient.Client, ref apiclient.Ref, opts Options[P]) ListerWatcher[P] {
	unmarshal, sharer := decodeOptions(opts)
	metadata := asksMetadata[T](opts)
	return resourceLW[T, P]{c: c, ref: ref, sel: opts.Selectors, tr: opts.Transport, unmarshal: unmarshal, metadata: metadata,
		proto: newWire(ref, opts.Transport, protodec.Options{Sharer: sharer,
			SkipManagedFields: !opts.KeepManagedFields, JSON: unmarshal}, metadata)}
}

type resourceLW[T any, P meta.PtrObject[T]] struct {
	c   *apiclient.Client
	ref apiclient.Ref
	sel Selectors
	tr  Transport
	// unmarshal holds extra decode options for objects; nil: none.
	unmarshal json.Options
	// proto chooses protobuf or JSON for each request; see wire.go.
	proto *wire
	// metadata asks for PartialObjectMetadata (asksMetadata).
	metadata bool
}

func (lw resourceLW[T, P]) List(ctx context.Context, o ListOptions, each func(P) error) (meta.ListMeta, error) {
	var skip func(*watchstream.DecodeError)
	if o.SkipUndecodable != nil {
		skip = func(e *watchstream.DecodeError) { o.SkipUndecodable(fromDecodeError(e)) }
	}
	lm, err := apiclient.List[T, P](ctx, lw.c, lw.ref, apiclient.ListOptions{
		LabelSelector: lw.sel.LabelSelector, FieldSelector: lw.sel.FieldSelector,
		Limit: o.Limit, Continue: o.Continue,
		ResourceVersion: o.ResourceVersion, ResourceVersionMatch: o.ResourceVersionMatch,
		ShardSelector: o.ShardSelector, Unmarshal: lw.unmarshal,
		// The reflector owns recovery: a retry underneath it would hide
		// failures from its backoff, its error handler and SyncError.
		NoRetry:         true,
		SkipUndecodable: skip,
		Protobuf:        lw.proto.decoder(),
		Metadata:        lw.metadata,
	}, each)
	lw.proto.observe(err)
	return lm, err
}

func (lw resourceLW[T, P]) Watch(ctx context.Context, o WatchOptions) (Watch[P], error) {
	stream := lw.tr.Stream
	if lw.unmarshal != nil {
		stream.Unmarshal = lw.unmarshal
	}
	s, err := apiclient.Watch[T, P](ctx, lw.c, lw.ref, apiclient.WatchOptions{
		LabelSelector: lw.sel.LabelSelector, FieldSelector: lw.sel.FieldSelector,
		ResourceVersion: o.ResourceVersion, ResourceVersionMatch: o.ResourceVersionMatch,
		AllowWatchBookmarks: o.AllowWatchBookmarks, SendInitialEvents: o.SendInitialEvents,
		TimeoutSeconds: o.TimeoutSeconds, Websocket: lw.tr.Websocket, Stream: stream,
		OpenTimeout: o.OpenTimeout, ShardSelector: o.ShardSelector,
		NoInitialEvents: o.NoInitialEvents,
		Protobuf:        lw.proto.decoder(),
		Metadata:        lw.metadata,
	})
	if err != nil {
		return nil, err
	}
	return protoWatch[P]{Watch: s, w: lw.proto}, nil
}
