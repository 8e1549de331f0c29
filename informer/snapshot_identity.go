package informer

import (
	"context"
	"fmt"
	"strings"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/meta"
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
// (resourceVersionMatch=NotOlderThan) succeeds (snapshot_verify.go says
// when each question is asked). A history that has not
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
// Identity names the server, the Cluster function unless one is set, and
// the history check (its LIST goes through New's ListerWatcher, which
// speaks to a real API server).
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
	o.checkHistory = true
	if strings.HasPrefix(c.Host(), "https:") && !o.NoTLSSession {
		o.tls = c
	}
	return o
}

// tlsSessions is what of apiclient.Client carries its TLS session across
// a restart (apiclient/tlssession.go), and the request that offers it.
type tlsSessions interface {
	TLSSession() []byte
	ResumeTLSSession([]byte) error
	TLSResumed() bool
	GetRaw(ctx context.Context, path, accept string) ([]byte, string, error)
}
