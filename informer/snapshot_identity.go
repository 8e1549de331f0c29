package informer

import (
	"context"
	"errors"
	"fmt"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/snapshot"
)

// What identifies the cluster a snapshot is of.
//
// A URL does not: a cluster made anew at the same address (a kind or
// test cluster recreated, a fake server restarted, a cluster restored
// from an old backup) starts its history again, under resourceVersions
// the snapshot already used. A watch from the snapshot's resourceVersion
// may then be accepted and stay silent, and the informer would keep
// objects that no longer exist and never see the new ones.
//
// The uid of the kube-system namespace does: it is made with the cluster,
// never deleted (the API server refuses to) and never reused, and it is
// the id tools commonly use for a cluster. Reading it costs one small GET
// at start. An agent may not be allowed to GET namespaces (RBAC: a
// namespaced agent usually is not); nothing readable by every
// authenticated user identifies a cluster (discovery and /version are the
// same on every cluster of one version), so then the id is "" and the
// snapshot names the cluster by its URL alone.
//
// Neither catches a cluster restored from an older backup (same uid, its
// history set back), and an agent without the id is left with the URL.
// What catches both is the server's own history, asked with the
// informer's own right to list: a snapshot is resumed only once a LIST of
// one item at least as new as the snapshot's resourceVersion
// (resourceVersionMatch=NotOlderThan) succeeds. A history that has not
// reached it answers 504 ResourceVersionTooLarge (at once without the
// watch cache, after about 3 s with it), where a WATCH from it would be
// accepted and stay silent until its timeout (kube-apiserver v1.37.2, with
// and without the watch cache: conformance/future_rv_test.go). Only a new
// history already grown past the snapshot's resourceVersion, on a cluster
// whose id cannot be read, goes unnoticed, as it would for any informer
// that re-watches after a disconnection.

// clusterRef is the kube-system namespace, whose uid names the cluster.
var clusterRef = apiclient.Ref{GVR: meta.GVR{Version: "v1", Resource: "namespaces"}}

// clusterNamespace is the namespace the cluster's id is read from.
const clusterNamespace = "kube-system"

// namespaceMeta is all of the namespace that is read.
type namespaceMeta struct {
	meta.SlimMeta `json:"metadata"`
}

// kubeSystemUID returns the Cluster function New gives an informer over c:
// the uid of c's kube-system namespace, or "" when it may not be read (401,
// 403) or is not there (404: not a Kubernetes cluster of the usual kind).
func kubeSystemUID(c *apiclient.Client) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		ns, err := apiclient.Get[namespaceMeta](ctx, c, clusterRef, clusterNamespace)
		switch {
		case meta.IsForbidden(err), meta.IsUnauthorized(err), meta.IsNotFound(err):
			return "", nil
		case err != nil:
			return "", fmt.Errorf("reading the cluster's id (namespace %s): %w", clusterNamespace, err)
		case ns.UID == "":
			return "", fmt.Errorf("reading the cluster's id: namespace %s has no uid", clusterNamespace)
		}
		return ns.UID, nil
	}
}

// over completes o with what New knows of the server and the resource: the
// resource and namespace watched (whatever Identity says: a snapshot of
// another resource is never one of this one), the server's URL unless
// Identity names the server, and the Cluster function unless one is set.
func (o SnapshotOptions) over(c *apiclient.Client, ref apiclient.Ref) SnapshotOptions {
	if !o.enabled() {
		return o
	}
	id := &o.Identity
	if id.Server == "" {
		id.Server = c.Host()
	}
	id.Group, id.Version, id.Resource, id.Namespace = ref.GVR.Group, ref.GVR.Version, ref.GVR.Resource, ref.Namespace
	if o.Cluster == nil {
		o.Cluster = kubeSystemUID(c)
	}
	o.reached = historyReached(c, ref)
	return o
}

// errOneItem ends the LIST of historyReached at its first item.
var errOneItem = errors.New("one item is enough")

// historyReached returns the check that the history of the server behind
// c has reached rv: a LIST of at most one of ref's objects, as metadata,
// at least as new as rv. It fails with the server's 504
// ResourceVersionTooLarge when the history has not.
func historyReached(c *apiclient.Client, ref apiclient.Ref) func(ctx context.Context, rv string) error {
	return func(ctx context.Context, rv string) error {
		_, err := apiclient.List[namespaceMeta](ctx, c, ref, apiclient.ListOptions{Limit: 1, ResourceVersion: rv,
			ResourceVersionMatch: "NotOlderThan", Metadata: true, NoRetry: true},
			func(*namespaceMeta) error { return errOneItem })
		if err != nil && !errors.Is(err, errOneItem) {
			return err
		}
		return nil
	}
}

// checkHistory rejects a snapshot at rv that the server's history has not
// reached (another history at the same URL), or when the server could not
// say: nil when there is no check (an informer not made by New).
func (s *snapshotter[T, P]) checkHistory(ctx context.Context, rv string) error {
	if s.opts.reached == nil {
		return nil
	}
	err := s.opts.reached(ctx, rv)
	switch {
	case meta.IsTooLargeResourceVersion(err):
		return &snapshot.Error{Reason: snapshot.ReasonIdentity, Field: "resourceVersion", Want: rv,
			Got: "beyond the server's history (a cluster made anew or restored at this URL)", Err: err}
	case err != nil:
		return fmt.Errorf("checking that the server's history has reached the snapshot's resourceVersion %s: %w", rv, err)
	}
	return nil
}

// readCluster sets the cluster's id in the snapshots' identity, once: the
// one Identity names, else Cluster's answer ("" when it cannot be known:
// the header of each snapshot saved shows it). It fails only when Cluster
// did (the server unreachable, 5xx): the cluster is then unknown, no
// snapshot is resumed, and the next save asks again.
func (s *snapshotter[T, P]) readCluster(ctx context.Context) error {
	if s.clusterKnown {
		return nil
	}
	if s.opts.Identity.Cluster != "" || s.opts.Cluster == nil {
		s.clusterKnown = true
		return nil
	}
	id, err := s.opts.Cluster(ctx)
	if err != nil {
		return err
	}
	s.opts.Identity.Cluster, s.clusterKnown = id, true
	return nil
}
