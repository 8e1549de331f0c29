package informer

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/protodec"
)

// auditObject is what an audit reads of each listed object: its identity.
// Decoded from a PartialObjectMetadataList, it is the smallest type that
// holds it: managedFields are skipped in one pass, labels not kept.
type auditObject struct {
	Metadata auditMeta `json:"metadata"`
}

type auditMeta struct {
	ManagedFields   meta.Ignored `json:"managedFields,omitzero"`
	Name            string       `json:"name,omitempty"`
	Namespace       string       `json:"namespace,omitempty"`
	UID             string       `json:"uid,omitempty"`
	ResourceVersion string       `json:"resourceVersion,omitempty"`
}

func (o *auditObject) GetName() string              { return o.Metadata.Name }
func (o *auditObject) GetNamespace() string         { return o.Metadata.Namespace }
func (o *auditObject) GetResourceVersion() string   { return o.Metadata.ResourceVersion }
func (o *auditObject) GetLabels() map[string]string { return nil }

func (o auditObject) key() string { return meta.Key(&o) }

// auditLister lists one page of what the informer caches, each object's
// identity only.
type auditLister func(ctx context.Context, req ListRequest, each func(auditObject) error) (meta.ListMeta, error)

// listerOf lists through the informer's own ListerWatcher, whole objects:
// the audit of an informer built over a ListerWatcher of its own (a
// test's). New hands the audit a metadata-only lister instead (auditVia).
func listerOf[P meta.Object](lw ListerWatcher[P]) auditLister {
	return func(ctx context.Context, req ListRequest, each func(auditObject) error) (meta.ListMeta, error) {
		page, err := lw.List(ctx, req, func(p P) error {
			return each(auditObject{Metadata: auditMeta{Name: p.GetName(), Namespace: p.GetNamespace(),
				UID: uidOf(p), ResourceVersion: p.GetResourceVersion()}})
		})
		return page.ListMeta, err
	}
}

// auditVia makes the audit list over c, New's client, for the metadata of
// the informer's resource and selectors only: a PartialObjectMetadataList,
// in protobuf unless Transport.JSON (a custom resource's metadata too), the
// cheapest exact answer kube-apiserver gives, measured (docs/internals.md,
// "The cache audit finds what the watch lost"). Nothing without
// Options.Audit.
func (i *Informer[T, P]) auditVia(c *apiclient.Client) {
	a := i.p.audit
	if a == nil {
		return
	}
	ref, label, field := i.ref, i.opts.LabelSelector, i.opts.FieldSelector
	w := newWire(ref, i.opts.Transport, protodec.Options{SkipManagedFields: true}, true)
	a.list = func(ctx context.Context, req ListRequest, each func(auditObject) error) (meta.ListMeta, error) {
		o := req.listOptions()
		o.LabelSelector, o.FieldSelector = label, field
		o.Metadata, o.Decode.Protobuf, o.Decode.Clock = true, w.decoder(), i.opts.Clock
		lm, err := apiclient.List(ctx, c, ref, o, func(p *auditObject) error { return each(*p) })
		w.observe(err)
		return lm, err
	}
}

// errAuditRepair is wrapped by the error that ends the reflector's watch
// when an audit asks for a relist (AuditOptions.Repair): a 410 Expired
// Status, so that the reflector relists at once, as for a moved shard.
var errAuditRepair = errors.New("informer: the cache audit found a difference")

// IsAuditRepair reports whether err is the one that ended a watch because
// the cache audit asked for a relist (AuditOptions.Repair): a planned
// relist, not a failure, though it reads as a 410. The watch-ended trace
// event carries it; a program that tells its reader why a watch ended
// (the demo) asks here.
func IsAuditRepair(err error) bool { return errors.Is(err, errAuditRepair) }

func errRepair() error {
	return fmt.Errorf("%w: %w", errAuditRepair, meta.NewStatusError(410, meta.ReasonExpired, "the cache differs from the server; relisting"))
}

// repairLW is the audit's repair stage, between the shard filter and the
// reflector: on request it ends the open watch, or refuses the next one,
// with errRepair, and the reflector relists. A list (or a streaming list)
// that starts after the request is the repair itself: it clears it.
type repairLW[P meta.Object] struct {
	inner ListerWatcher[P]

	mu        sync.Mutex // guards requested and watches
	requested bool
	watches   map[*repairWatch[P]]struct{}
}

func newRepairLW[P meta.Object](inner ListerWatcher[P]) *repairLW[P] {
	return &repairLW[P]{inner: inner, watches: map[*repairWatch[P]]struct{}{}}
}

// request asks for a relist: the open watches end with errRepair.
func (lw *repairLW[P]) request() {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.requested = true
	for w := range lw.watches {
		w.end()
	}
}

func (lw *repairLW[P]) List(ctx context.Context, o ListRequest, each func(P) error) (ListPage, error) {
	lw.mu.Lock()
	lw.requested = false
	lw.mu.Unlock()
	return lw.inner.List(ctx, o, each)
}

func (lw *repairLW[P]) Watch(ctx context.Context, o WatchRequest) (Watch[P], error) {
	lw.mu.Lock()
	if o.Mode == StreamingList {
		lw.requested = false // a streaming list: the relist asked for
	} else if lw.requested {
		lw.mu.Unlock()
		return nil, errRepair()
	}
	lw.mu.Unlock()
	w, err := lw.inner.Watch(ctx, o)
	if err != nil {
		return nil, err
	}
	rw := &repairWatch[P]{endableWatch: newEndableWatch(w, errRepair), lw: lw}
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.requested {
		rw.end() // asked for while it was being opened
	} else {
		lw.watches[rw] = struct{}{}
	}
	return rw, nil
}

// repairWatch ends with errRepair when the audit asks for a relist.
type repairWatch[P meta.Object] struct {
	*endableWatch[P]
	lw   *repairLW[P]
	once sync.Once
}

func (w *repairWatch[P]) Stop() {
	w.once.Do(func() {
		w.lw.mu.Lock()
		delete(w.lw.watches, w)
		w.lw.mu.Unlock()
	})
	w.endableWatch.Stop()
}
