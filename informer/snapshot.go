package informer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/zerokube/zerokube/clock"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/snapshot"
)

// SnapshotOptions turn on warm restarts: the informer saves its cache with
// the resourceVersion it is in step with, and at the next start loads it,
// marks itself synced and watches from that resourceVersion instead of
// listing everything (see doc.go, "Warm restart"). The zero value is off;
// setting Dir or Store turns it on.
type SnapshotOptions struct {
	// Dir keeps snapshots as files in this directory (snapshot.Dir).
	Dir string
	// Store keeps them anywhere else; it wins over Dir.
	Store snapshot.Store
	// Name is the snapshot's name in the store; default: Options.Name
	// with every character other than letters, digits, '.', '-' and '_'
	// replaced by '_'. Informers sharing a store need different names.
	Name string
	// Period between two snapshots while running; default 1 minute.
	// Negative: only at a clean stop. A snapshot is written only when the
	// resourceVersion moved since the last one. The shorter the period,
	// the likelier a snapshot left by a crash is still inside the
	// server's history, so that the restart needs no relist.
	Period time.Duration
	// Identity says what the snapshot is of; a snapshot of anything else is
	// rejected at start. Only Server and Cluster are the caller's to set
	// (a name for the server, an id for the cluster); New sets Server to
	// the server's URL when it is "". The informer sets the rest, whatever
	// Identity says: what it watches (group, version, resource, namespace,
	// Options' selectors, Shard: Options.Shard's selector) and what shapes
	// its objects (Type: its Go type, Request: whole objects or
	// PartialObjectMetadata, ManagedFields: Options.Decode.KeepManagedFields,
	// Transform: TransformVersion).
	Identity snapshot.Identity
	// Cluster reads the id of the cluster behind the server when the
	// informer starts, for Identity.Cluster (unless Identity.Cluster is
	// set): a snapshot is resumed only on the cluster it was taken on, not
	// on another one made at the same URL. It returns "" when the id
	// cannot be known (the snapshot then names the cluster by its URL), an
	// error when it could not be read this time (the server unreachable:
	// the snapshot is loaded all the same, and the id is asked again
	// before the resume's watch, which waits for it; snapshot_verify.go).
	// Default (New): the uid of the kube-system namespace, "" when the
	// informer may not GET it (snapshot_identity.go says why).
	Cluster func(ctx context.Context) (string, error)

	// NoTLSSession keeps the client's TLS session out of the snapshots.
	// By default (over https) each snapshot carries it, and the next
	// process resumes it on the connection of its resume's WATCH: a
	// resume then costs the server that WATCH alone, instead of the
	// cluster's id, a LIST and the WATCH (snapshot_verify.go). The session is a
	// secret: whoever reads the snapshot can resume it and, where the
	// client authenticates with a certificate, be taken for the client
	// until the server's ticket expires (7 days for Go's servers, such as
	// kube-apiserver). Dir keeps its files 0600; set NoTLSSession where a
	// snapshot is stored less privately than the client's key.
	NoTLSSession bool

	// checkHistory: a snapshot is resumed only once the server's history
	// has reached its resourceVersion (snapshot_verify.go, reached); set
	// by New, whose ListerWatcher speaks to a real API server.
	checkHistory bool
	// tls carries New's client's TLS session in each snapshot and offers
	// it again at the next start (snapshot_verify.go, resumedTLS); nil
	// without one (plain http, NewWithListerWatcher).
	tls tlsSessions
	// TransformVersion names what Options.Decode.Transform does to objects, for
	// the snapshot's identity: change it whenever the transform changes,
	// so that a snapshot of objects transformed the old way is not
	// resumed as if they were current. Default "unversioned" when
	// Transform is set (a snapshot then survives any change of it), ""
	// without Transform.
	TransformVersion string
}

func (o SnapshotOptions) enabled() bool { return o.Dir != "" || o.Store != nil }

// saveTimeout bounds the snapshot written when Run stops: the caller is
// waiting for Run to return.
const saveTimeout = 30 * time.Second

// snapshotter saves and loads an informer's snapshots. It saves the
// cache with the resourceVersion it is in step with, as the pipeline's
// consistent point captures them (consistent.go).
type snapshotter[T any, P meta.PtrObject[T]] struct {
	opts  SnapshotOptions // resolved: Store, Name, Period and Identity's shaping fields set
	point *consistentPoint[P]
	obs   observers
	clock clock.Clock

	saved string // rv of the last snapshot written (writer goroutine only)

	idMu sync.Mutex // guards opts.Identity.Cluster and the fields below
	// clusterKnown: opts.Identity.Cluster holds the cluster's id, or ""
	// for one that cannot be known (readCluster).
	clusterKnown bool
	pending      *resumeCheck // what load could not check (snapshot_verify.go); nil: nothing

	lister ListerWatcher[P] // the informer's, before the shard filter: reached lists through it
}

// newSnapshotter returns the snapshot writer over the consistent point c.
func newSnapshotter[T any, P meta.PtrObject[T]](o Options[P], c *consistentPoint[P]) *snapshotter[T, P] {
	so := o.Snapshot
	if so.Store == nil {
		so.Store = snapshot.Dir{Path: so.Dir}
	}
	if so.Name == "" {
		so.Name = snapshotName(o.Name)
	}
	if so.Period == 0 {
		so.Period = time.Minute
	}
	so.Identity.LabelSelector, so.Identity.FieldSelector = o.LabelSelector, o.FieldSelector
	so.Identity.Type = typeName[T]()
	so.Identity.ManagedFields = o.Decode.KeepManagedFields
	so.Identity.Request = ""
	if asksMetadata[T](o) {
		so.Identity.Request = "PartialObjectMetadata"
	}
	so.Identity.Transform = ""
	if o.Decode.Transform != nil {
		so.Identity.Transform = cmp.Or(so.TransformVersion, "unversioned")
	}
	return &snapshotter[T, P]{opts: so, point: c, obs: observersOf(o), clock: o.Clock}
}

// identity is what a snapshot of shard (a selector, "" for none) is of.
func (s *snapshotter[T, P]) identity(shard string) snapshot.Identity {
	s.idMu.Lock()
	defer s.idMu.Unlock()
	return s.identityLocked(shard)
}

// identityLocked is identity with s.idMu held.
func (s *snapshotter[T, P]) identityLocked(shard string) snapshot.Identity {
	id := s.opts.Identity
	id.Shard = shard
	return id
}

// loaded is a snapshot read back: the objects, the resourceVersion they
// are in step with, and how many objects its list had skipped.
type loaded[P any] struct {
	rv      string
	items   []P
	skipped int
	// watched: the resume's WATCH was sent to offer the snapshot's TLS
	// session, and its resumption vouched for the snapshot.
	watched bool
}

// snapshotName makes a file name of an informer's name.
func snapshotName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, strings.TrimLeft(s, "."))
}

// typeName is T's name with its package path, e.g. "example.com/agent.Pod".
func typeName[T any]() string {
	t := reflect.TypeFor[T]()
	if t.Name() != "" && t.PkgPath() != "" {
		return t.PkgPath() + "." + t.Name()
	}
	return t.String()
}

// load reads the saved snapshot of shard (a selector, "" for none), of
// this cluster and within the server's history as far as the server can
// say now (loadChecked). ok is false when there is none or it was
// rejected; then the reason has been logged, counted and traced, and the
// informer lists as if there were none. open sends the resume's WATCH
// (loadChecked).
func (s *snapshotter[T, P]) load(ctx context.Context, shard string, open func(rv string) (answered bool)) (l loaded[P], ok bool) {
	h, objs, watched, err := s.loadChecked(ctx, shard, open)
	switch {
	case errors.Is(err, snapshot.ErrNotFound):
		s.obs.emit(observe.Event{Stage: observe.StageSnapshotMissing})
		return l, false
	case err != nil:
		if ctx.Err() != nil {
			return l, false
		}
		err = fmt.Errorf("informer %s: snapshot %s: %w", s.obs.name, s.opts.Name, err)
		s.obs.emit(observe.Event{Stage: observe.StageSnapshotRejected, Err: err, Cause: observe.CauseInitial})
		return l, false
	}
	items := make([]P, len(objs))
	for i, o := range objs {
		items[i] = P(o)
	}
	s.obs.emit(observe.Event{Stage: observe.StageSnapshotLoaded, Items: len(items), ResourceVersion: h.ResourceVersion})
	s.point.resumed(h.ResourceVersion, shard, h.Skipped)
	s.saved = h.ResourceVersion
	return loaded[P]{rv: h.ResourceVersion, items: items, skipped: h.Skipped, watched: watched}, true
}

// save captures and writes one snapshot, unless the resourceVersion has not
// moved since the last one.
func (s *snapshotter[T, P]) save(ctx context.Context, wait bool) {
	c, err := s.point.capture(ctx, wait)
	if err != nil {
		if !wait {
			s.obs.emit(observe.Event{Stage: observe.StageSnapshotSkipped, Err: errStillQueued})
		}
		return
	}
	if c.rv == s.saved {
		return
	}
	// The cluster's id is asked only for a snapshot that is written: an
	// agent stopped before anything moved writes nothing and asks nothing.
	s.idMu.Lock()
	clusterErr := s.readCluster(ctx)
	s.idMu.Unlock()
	if err := clusterErr; err != nil {
		s.obs.emit(observe.Event{Stage: observe.StageSnapshotSkipped, Err: err})
		return
	}
	rv, items := c.rv, c.items
	start := s.clock.Now()
	var n countingWriter
	h := snapshot.Header{Identity: s.identity(c.shard), ResourceVersion: rv, Saved: start.UTC(), Skipped: c.skipped}
	if s.opts.tls != nil {
		h.TLSSession = s.opts.tls.TLSSession()
	}
	err = s.opts.Store.Save(ctx, s.opts.Name, func(w io.Writer) error {
		n.w = w
		return snapshot.Encode(ctx, &n, h, items)
	})
	took := s.clock.Now().Sub(start)
	s.obs.emit(observe.Event{Stage: observe.StageSnapshotSaved, Items: len(items), ResourceVersion: rv, Bytes: n.n, Duration: took, Err: err})
	if err == nil {
		s.saved = rv
	}
}

// run saves a snapshot every period until ctx ends.
func (s *snapshotter[T, P]) run(ctx context.Context) {
	if s.opts.Period < 0 {
		return
	}
	for {
		t := s.clock.NewTimer(s.opts.Period)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C():
			s.save(ctx, true)
		}
	}
}

// final writes the snapshot of a clean stop, once every goroutine of Run
// has ended: the cache and the last rv no longer move, and the queue must
// be drained for them to match.
func (s *snapshotter[T, P]) final(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), saveTimeout)
	defer cancel()
	s.save(ctx, false)
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
