package informer

import (
	"context"
	"errors"
	"fmt"

	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/snapshot"
	"github.com/zerokube/zerokube/watchstream"
)

// When a snapshot is checked against the server (snapshot_identity.go says
// what is checked and why).
//
// At load, when the server answers: a snapshot of another cluster, or at a
// resourceVersion past the server's history, is rejected before any of it
// is used, and the informer lists as if there were none.
//
// When the server cannot answer then (unreachable, failing), the snapshot
// is loaded all the same, so that an agent restarted during an outage has
// its cache back at once, as warm restarts promise; what was not checked
// is checked before the resume's WATCH from the snapshot's resourceVersion
// (verifiedLW), which waits for it as for any watch the server does not
// answer. A snapshot that fails then is answered as kube-apiserver answers
// a resourceVersion it has not reached, 504 ResourceVersionTooLarge, and
// the reflector relists at "" (its rule for that answer), whose Replace
// reconciles the cache: the snapshot's objects the server does not have
// are deleted.
//
// A snapshot that carries its client's TLS session (over https) is first
// offered to the server on the connection of the resume's WATCH, sent
// before any of the snapshot is used: a connection that resumed the
// session answers both questions (resumedTLS), and the WATCH is the one
// request a resumed agent sends; one that did not (the server restarted,
// another replica answered) has its WATCH dropped unread and gets the
// questions asked as above. Issue #40: the two questions were most of
// what a resumed agent cost kube-apiserver, and a GET to offer the
// session, sent before the WATCH, another request through its filters.

// resumeCheck is what was not checked at load, for the resume.
type resumeCheck struct {
	rv      string // the snapshot's resourceVersion
	cluster string // the snapshot's cluster id, checked when clusterUnchecked
	// clusterUnchecked: the cluster's id could not be read at load.
	clusterUnchecked bool
	// historyUnchecked: the server did not say at load whether its
	// history has reached rv.
	historyUnchecked bool
}

// readCluster sets the cluster's id in the snapshots' identity, once: the
// one Identity names, else Cluster's answer ("" when it cannot be known:
// the header of each snapshot saved shows it). It fails when Cluster did
// (the server unreachable, 5xx): the id is then asked again by the next
// check or save. Requires s.idMu.
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

// loadChecked reads the snapshot of shard and checks it as far as the
// server answers now; what it could not check is left in s.pending. A
// snapshot whose TLS session the server resumes needs no check
// (resumedTLS); open, if not nil, sends the resume's WATCH from a
// resourceVersion (the reflector's openResume) and reports whether a
// server answered it, and watched reports that it was sent and vouched
// for the snapshot: the reflector is to take it.
func (s *snapshotter[T, P]) loadChecked(ctx context.Context, shard string, open func(rv string) (answered bool)) (h snapshot.Header, objs []*T, watched bool, err error) {
	s.idMu.Lock()
	defer s.idMu.Unlock()
	s.pending = nil
	tlsPossible := s.opts.tls != nil && s.opts.checkHistory
	// With a TLS session to offer, the cluster's id is asked only once the
	// snapshot turns out to carry none (an id the caller gave costs no
	// request, and is compared now).
	askLater := tlsPossible && !s.clusterKnown && s.opts.Identity.Cluster == "" && s.opts.Cluster != nil
	var clusterErr error
	if !askLater {
		clusterErr = s.readCluster(ctx)
	}
	h, objs, err = snapshot.LoadFrom[T](ctx, s.opts.Store, s.opts.Name, s.identityLocked(shard),
		snapshot.ReadOptions{ClusterUnknown: askLater || clusterErr != nil})
	switch {
	case err != nil:
		return h, nil, false, err
	case h.ResourceVersion == "":
		return h, nil, false, &snapshot.Error{Reason: snapshot.ReasonCorrupt, Err: errors.New("the header has no resourceVersion")}
	}
	if tlsPossible && len(h.TLSSession) > 0 {
		// A snapshot that lacks skipped objects is relisted, not watched
		// from: its session is offered with the cheapest request instead.
		if h.Skipped > 0 {
			open = nil
		}
		if s.resumedTLS(ctx, h, open) {
			return h, objs, open != nil, nil
		}
	}
	check := resumeCheck{rv: h.ResourceVersion, cluster: h.Cluster, clusterUnchecked: clusterErr != nil}
	if askLater {
		clusterErr = s.readCluster(ctx)
		check.clusterUnchecked = clusterErr != nil
		if id := s.opts.Identity.Cluster; clusterErr == nil && id != h.Cluster {
			return h, nil, false, &snapshot.Error{Reason: snapshot.ReasonIdentity, Field: "cluster", Want: id, Got: h.Cluster}
		}
	}
	if s.opts.checkHistory {
		err := s.reached(ctx, h.ResourceVersion)
		switch {
		case meta.IsTooLargeResourceVersion(err):
			return h, nil, false, &snapshot.Error{Reason: snapshot.ReasonIdentity, Field: "resourceVersion", Want: h.ResourceVersion,
				Got: "beyond the server's history (a cluster made anew or restored at this URL)", Err: err}
		case err != nil:
			check.historyUnchecked = true
		}
	}
	if check.clusterUnchecked || check.historyUnchecked {
		s.pending = &check
	}
	return h, objs, false, nil
}

// resumedTLS offers the snapshot's TLS session on the connection of the
// resume's WATCH (open), or, without one, of the cheapest request there is
// (GET /version: no storage, allowed to everyone), and reports whether
// that connection resumed it. Only the server process that issued a
// session's ticket can read it, so a resumption reached the process the
// snapshot was taken from, whose cluster it is and whose history has
// reached the snapshot's resourceVersion (it sent it): both checks are
// answered, and the cluster's id, when it was to be read, is the
// snapshot's. Behind a proxy that ends TLS itself it is the proxy's
// process that resumed, and the cluster behind it is taken to be the same
// one (NoTLSSession turns this off).
//
// The WATCH is sent before any of the snapshot is used and read only once
// the resumption vouched for it: a connection that did not resume (the
// server restarted, another replica, another cluster at the address) has
// its WATCH dropped unread by the caller, and the checks are asked as
// without a session. A server must have answered the WATCH, with a
// stream or a Status (a 410 from the vouched process is the expired
// snapshot's answer, and the reflector takes it as such): a WATCH that
// reached no server made no connection that could vouch, and the
// client's word that it resumed the session earlier (informers sharing
// it) speaks of a connection that may be gone. Requires s.idMu.
func (s *snapshotter[T, P]) resumedTLS(ctx context.Context, h snapshot.Header, open func(rv string) (answered bool)) bool {
	if s.opts.tls.ResumeTLSSession(h.TLSSession) != nil {
		return false
	}
	if open != nil {
		// The WATCH goes through verifiedLW, which takes idMu; nothing is
		// pending (loadChecked cleared it), so it passes straight through.
		s.idMu.Unlock()
		answered := open(h.ResourceVersion)
		s.idMu.Lock()
		if !answered {
			return false
		}
	} else if _, _, err := s.opts.tls.GetRaw(ctx, "/version", "application/json"); err != nil {
		return false
	}
	if !s.opts.tls.TLSResumed() {
		return false
	}
	if !s.clusterKnown {
		s.opts.Identity.Cluster, s.clusterKnown = h.Cluster, true
	}
	return true
}

// verifyResume makes the checks load could not, before the WATCH o from
// the snapshot's resourceVersion. Any other request (a LIST, a streaming
// list, a watch from another resourceVersion) drops them: the cache is
// then the server's answer, not the snapshot. A check the server does not
// answer fails it as a watch the server does not answer fails, to be
// tried again; a snapshot of another history fails it with
// errAnotherHistory.
func (s *snapshotter[T, P]) verifyResume(ctx context.Context, o *WatchRequest) error {
	s.idMu.Lock()
	defer s.idMu.Unlock()
	p := s.pending
	if p == nil {
		return nil
	}
	if o == nil || o.Mode == StreamingList || o.ResourceVersion != p.rv {
		s.pending = nil
		return nil
	}
	if p.clusterUnchecked {
		if err := s.readCluster(ctx); err != nil {
			return fmt.Errorf("informer: snapshot %s: %w", s.opts.Name, err)
		}
		if id := s.opts.Identity.Cluster; id != p.cluster {
			s.pending = nil
			return anotherHistory(p.rv, fmt.Sprintf("the snapshot is of cluster %q, the server's is %q", p.cluster, id))
		}
		p.clusterUnchecked = false
	}
	if p.historyUnchecked {
		err := s.reached(ctx, p.rv)
		switch {
		case meta.IsTooLargeResourceVersion(err):
			s.pending = nil
			return fmt.Errorf("informer: snapshot %s: the server's history has not reached its resourceVersion: %w", s.opts.Name, err)
		case err != nil:
			return fmt.Errorf("informer: snapshot %s: checking the server's history: %w", s.opts.Name, err)
		}
	}
	s.pending = nil
	return nil
}

// errOneItem ends the LIST of reached at its first item.
var errOneItem = errors.New("one item is enough")

// reached checks that the server's history has reached rv: a LIST of at
// most one object at least as new as rv, through the informer's own
// ListerWatcher (its wire, its request shape, its right to list). It fails
// with the server's 504 ResourceVersionTooLarge when the history has not.
// What the page holds does not matter: a server that answered with one
// has reached rv, whether its items decode into the type or not.
func (s *snapshotter[T, P]) reached(ctx context.Context, rv string) error {
	_, err := s.lister.List(ctx, ListRequest{Limit: 1, ResourceVersion: rv, ResourceVersionMatch: "NotOlderThan"},
		func(P) error { return errOneItem })
	var de *watchstream.DecodeError
	if err != nil && !errors.Is(err, errOneItem) && !errors.As(err, &de) {
		return err
	}
	return nil
}

// verified returns lw, whose resume waits for the checks load could not
// make, and keeps unsharded (lw before the shard filter, whose lists
// record the shard the cache holds) to list through.
func (s *snapshotter[T, P]) verified(lw, unsharded ListerWatcher[P]) ListerWatcher[P] {
	s.lister = unsharded
	return verifiedLW[T, P]{ListerWatcher: lw, s: s}
}

// anotherHistory is the answer to a resume from a snapshot of another
// cluster: the one kube-apiserver gives a read at a resourceVersion its
// history has not reached (504, cause ResourceVersionTooLarge), which is
// what the snapshot's resourceVersion is to that cluster, so that the
// reflector's rule for that answer (a relist at "") applies. Made here,
// not by a server: its message says so.
func anotherHistory(rv, why string) error {
	e := meta.NewStatusError(504, meta.ReasonTimeout,
		fmt.Sprintf("informer: the snapshot's resourceVersion %s is not of this server's history: %s", rv, why))
	e.Status.Details = &meta.StatusDetails{Causes: []meta.StatusCause{{Type: meta.CauseResourceVersionTooLarge,
		Message: "resourceVersion of another cluster"}}}
	return e
}

// verifiedLW is the ListerWatcher as the reflector sees it when snapshots
// are on: the resume's WATCH waits for the checks load could not make.
type verifiedLW[T any, P meta.PtrObject[T]] struct {
	ListerWatcher[P]
	s *snapshotter[T, P]
}

func (v verifiedLW[T, P]) List(ctx context.Context, o ListRequest, each func(P) error) (ListPage, error) {
	_ = v.s.verifyResume(ctx, nil) // a list replaces the snapshot: nothing left to check
	return v.ListerWatcher.List(ctx, o, each)
}

func (v verifiedLW[T, P]) Watch(ctx context.Context, o WatchRequest) (Watch[P], error) {
	if err := v.s.verifyResume(ctx, &o); err != nil {
		return nil, err
	}
	return v.ListerWatcher.Watch(ctx, o)
}
