package informer

import (
	"context"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/protodec"
	"github.com/zerokube/zerokube/snapshot"
	"github.com/zerokube/zerokube/watchstream"
)

// New returns an informer for ref over c: it lists and watches ref's
// objects that opts.LabelSelector and opts.FieldSelector select, decodes
// them as opts say, and does nothing until Run. ExpectedAPIVersion
// defaults to ref's group/version.
//
// For a resource named as kubectl names it ("deploy", "deployments.apps",
// the short name of a custom resource), resolve the name with discovery
// first; the reference it gives is the one to write back to
// ([Informer.Ref]):
//
//	r, err := disco.Resolve(ctx, "deploy")
//	…
//	inf := informer.New[Deployment](disco.APIClient(), r.Ref("default"), opts)
//
// To share one informer among callers, ask a [Factory] ([Shared]) instead.
func New[T any, P meta.PtrObject[T]](c *apiclient.Client, ref apiclient.Ref, opts Options[P]) *Informer[T, P] {
	if opts.Name == "" {
		opts.Name = ref.String()
	}
	if opts.Decode.ExpectedAPIVersion == "" {
		// Objects that say they are of another group/version are dropped.
		opts.Decode.ExpectedAPIVersion = ref.GVR.GroupVersion()
	}
	if opts.Snapshot.enabled() && opts.Snapshot.Identity == (snapshot.Identity{}) {
		opts.Snapshot.Identity = snapshotIdentity(c, ref, opts)
	}
	opts.Snapshot = opts.Snapshot.over(c, ref)
	rlw := newResourceLW[T](c, ref, opts)
	var lw ListerWatcher[P] = rlw
	if opts.WrapListerWatcher != nil {
		lw = opts.WrapListerWatcher(lw)
	}
	i := newInformer[T](lw, opts)
	i.ref = ref
	i.p.refl.cfg.probe = c.Probe // a backoff after the server was out of reach ends when it answers
	// The shard filter (newInformer built it, between rlw and the
	// reflector) adds its selector to every request: the shape says so.
	i.p.refl.cfg.describe = i.p.shard.describing(rlw.describe)
	i.auditVia(c)
	return i
}

// Ref is the resource the informer lists and watches, as New or Shared
// were given it: the group, version, resource and namespace to write back
// to (apiclient.UpdateMetadata, apiclient.Patch). The namespace is "" for
// a cluster-scoped resource or all namespaces.
func (i *Informer[T, P]) Ref() apiclient.Ref { return i.ref }

// decodeOptions are the extra options New's list and watch
// decoders take for objects (nil: none), and the Sharer among them (nil:
// none).
func decodeOptions[P meta.Object](opts Options[P]) (json.Options, *meta.Sharer) {
	var us []*json.Unmarshalers
	var sharer *meta.Sharer
	if !opts.Decode.KeepManagedFields {
		// The reflector would drop them anyway; skipping them while decoding
		// saves copying kilobytes per object that become garbage at once.
		us = append(us, meta.SkipManagedFieldsUnmarshalers())
	}
	switch sh := opts.Decode.Sharer; {
	case sh != nil:
		if sh.Shares() != 0 {
			us, sharer = append(us, sh.Unmarshalers()), sh
		}
	case opts.Decode.Transform == nil:
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

// snapshotIdentity is what a snapshot of ref over c with opts' selectors
// is of: the server, resource, namespace and selectors.
func snapshotIdentity[P meta.Object](c *apiclient.Client, ref apiclient.Ref, opts Options[P]) snapshot.Identity {
	return snapshot.Identity{Server: c.Host(), Group: ref.GVR.Group, Version: ref.GVR.Version,
		Resource: ref.GVR.Resource, Namespace: ref.Namespace,
		LabelSelector: opts.LabelSelector, FieldSelector: opts.FieldSelector}
}

// newResourceLW is the ListerWatcher New builds: it lists and watches the
// objects of ref over c that opts' selectors select, as opts.Transport
// says, in protobuf or JSON as wire.go says. Every setting of how its
// replies are read is fixed here, once, from opts (with their defaults):
// the decode options (managedFields skipped unless KeepManagedFields,
// label maps shared by opts.Sharer), the size cap, the skip policy, the
// clock and each verb's progress watchdog (StallTimeout for a LIST page,
// Watch.IdleTimeout for a watch, InitialEventsTimeout for a streaming
// list's initial events).
func newResourceLW[T any, P meta.PtrObject[T]](c *apiclient.Client, ref apiclient.Ref, opts Options[P]) resourceLW[T, P] {
	// A StallTimeout of one's own bounds a page's first object too; the
	// default one gives it what kube-apiserver allows a LIST.
	var first time.Duration
	if opts.Sync.StallTimeout > 0 {
		first = opts.Sync.StallTimeout
	}
	opts = opts.withDefaults()
	unmarshal, sharer := decodeOptions(opts)
	metadata := asksMetadata[T](opts)
	return resourceLW[T, P]{c: c, ref: ref, label: opts.LabelSelector, field: opts.FieldSelector, tr: opts.Transport,
		metadata: metadata, skip: opts.Decode.SkipUndecodable,
		decode: watchstream.Options{MaxEventSize: opts.Transport.MaxObjectSize, Unmarshal: unmarshal, Clock: opts.Clock},
		stall:  on(opts.Sync.StallTimeout), first: first, idle: on(opts.Watch.IdleTimeout), initial: on(opts.Sync.InitialEventsTimeout),
		proto: newWire(ref, opts.Transport, protodec.Options{Sharer: sharer,
			SkipManagedFields: !opts.Decode.KeepManagedFields, JSON: unmarshal}, metadata)}
}

type resourceLW[T any, P meta.PtrObject[T]] struct {
	c            *apiclient.Client
	ref          apiclient.Ref
	label, field string
	tr           Transport
	// decode is how every reply is read; each request adds its verb's
	// watchdog and the wire's protobuf decoder.
	decode watchstream.Options
	// stall, idle and initial are the watchdogs' bounds (0: off); first
	// a page's first object's (0: watchstream's default).
	stall, first, idle, initial time.Duration
	// skip steps over objects that do not fit the type (SkipUndecodable).
	skip bool
	// proto chooses protobuf or JSON for each request; see wire.go.
	proto *wire
	// metadata asks for PartialObjectMetadata (asksMetadata).
	metadata bool
}

// List reads one page as the reflector asked, with what belongs to the
// resource around it.
func (lw resourceLW[T, P]) List(ctx context.Context, req ListRequest, each func(P) error) (ListPage, error) {
	o := req.listOptions()
	o.LabelSelector, o.FieldSelector = lw.label, lw.field
	// The reflector owns recovery: a retry underneath it would hide
	// failures from its backoff, its error handler and SyncError.
	o.NoRetry = true
	o.Metadata = lw.metadata
	o.Decode = lw.decode
	o.Decode.Protobuf = lw.proto.decoder()
	o.Decode.StallTimeout, o.Decode.FirstItemTimeout = lw.stall, lw.first
	var page ListPage
	if lw.skip {
		o.Decode.SkipUndecodable = func(e *watchstream.DecodeError) {
			page.Skipped = append(page.Skipped, fromDecodeError(e))
		}
	}
	lm, err := apiclient.List[T, P](ctx, lw.c, lw.ref, o, each)
	lw.proto.observe(err)
	page.ListMeta = lm
	return page, err
}

// Watch opens a watch as the reflector asked, with what belongs to the
// resource around it.
func (lw resourceLW[T, P]) Watch(ctx context.Context, req WatchRequest) (Watch[P], error) {
	o := req.watchOptions()
	o.LabelSelector, o.FieldSelector = lw.label, lw.field
	o.Websocket = lw.tr.Websocket
	o.Metadata = lw.metadata
	o.Decode = lw.decode
	o.Decode.Protobuf = lw.proto.decoder()
	o.Decode.StallTimeout = lw.idle
	if req.Mode == StreamingList {
		o.Decode.InitialStallTimeout = lw.initial
	}
	s, err := apiclient.Watch[T, P](ctx, lw.c, lw.ref, o)
	if err != nil {
		return nil, err
	}
	return protoWatch[P]{Watch: s, w: lw.proto}, nil
}
