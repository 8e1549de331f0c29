package leaderelection

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/internal/clock"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/shard"
)

// Membership lets replicas agree on "i of N" through coordination.k8s.io/v1
// Leases, and moves a Shard when a replica joins or leaves. It is leader
// election's sibling: the same Lease client, and the same rule for
// liveness (a Lease is judged by when this replica saw it change, on this
// replica's clock, never by the writer's timestamps):
//
//  1. Each replica holds one Lease, named Group + "-" + Identity, labelled
//     with the group, whose holderIdentity is Identity, renewed every
//     RenewInterval with a leaseDurationSeconds of LeaseDuration.
//  2. A Lease is live until leaseDurationSeconds have passed, by this
//     replica's clock, since this replica first saw its current record.
//     The live holders, sorted, are the group: the replica at position i
//     of N takes shard.Of(i, N) over Field.
//  3. Every round (each renewal) recomputes the group; a change calls
//     Shard.Set, which relists without a restart. A replica that stops
//     cleanly deletes its Lease, so the others re-shard at their next round
//     instead of after LeaseDuration.
//
// Replicas see joins and departures at their own next round, so for up to
// one RenewInterval two replicas may disagree, and an object may be cached
// twice or not at all; after that every object is in exactly one shard.
type Membership struct {
	Client    *apiclient.Client
	Namespace string // where the Leases live
	Group     string // the replicas' common name (a label value)
	Identity  string // this replica's unique name
	Field     shard.Field
	// LeaseDuration is how long a Lease lives without renewal; default 15 s.
	// RenewInterval is the period of renewals and re-computations; default
	// LeaseDuration / 3.
	LeaseDuration, RenewInterval time.Duration
	Shard                        Shard
	Logger                       *slog.Logger
	// Clock times the rounds and tells whether a Lease is live; nil means
	// the real clock (the informer's Options.Clock is the same type).
	Clock Clock

	seen map[string]sighting // Lease name → its record as last seen; Run's own
}

// Shard is what Membership moves: *informer.Shard.
type Shard interface {
	Set(shard.Selector) error
}

// GroupLabel is the label that marks a Lease as a member of a group.
const GroupLabel = "zerokube.io/shard-group"

func (m *Membership) defaults() error {
	if m.Client == nil || m.Shard == nil || m.Group == "" || m.Identity == "" || m.Namespace == "" {
		return errors.New("leaderelection: Membership needs Client, Shard, Namespace, Group and Identity")
	}
	if m.LeaseDuration <= 0 {
		m.LeaseDuration = DefaultLeaseDuration
	}
	if m.RenewInterval <= 0 {
		m.RenewInterval = m.LeaseDuration / 3
	}
	if m.Logger == nil {
		m.Logger = slog.Default()
	}
	if m.Clock == nil {
		m.Clock = clock.Real{}
	}
	if m.Field == "" {
		m.Field = shard.UID
	}
	m.seen = map[string]sighting{}
	return nil
}

// Run renews this replica's Lease and keeps the Shard at its place in the
// group until ctx ends; then it deletes the Lease and returns nil. Errors
// of one round are logged and retried at the next.
func (m *Membership) Run(ctx context.Context) error {
	if err := m.defaults(); err != nil {
		return err
	}
	ls := newLeases(m.Client, m.Namespace)
	name := m.Group + "-" + m.Identity
	defer func() {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), m.RenewInterval)
		defer cancel()
		if err := ls.delete(dctx, name); err != nil && !meta.IsNotFound(err) {
			m.Logger.Warn("leaderelection: membership: deleting the lease", "err", err)
		}
	}()
	for {
		// One round per RenewInterval, counted from the start of the last
		// one, as a ticker would; a round longer than that is followed at
		// once by the next.
		start := m.Clock.Now()
		if err := m.round(ctx, ls, name); err != nil && ctx.Err() == nil {
			m.Logger.Warn("leaderelection: membership round failed", "lease", name, "err", err)
		}
		if clock.Sleep(ctx, m.Clock, m.RenewInterval-m.Clock.Now().Sub(start)) != nil {
			return nil
		}
	}
}

// round renews the Lease, reads the group and moves the Shard.
func (m *Membership) round(ctx context.Context, ls leases, name string) error {
	if err := m.renew(ctx, ls, name); err != nil {
		return err
	}
	live, err := m.members(ctx, ls)
	if err != nil {
		return err
	}
	i := slices.Index(live, m.Identity)
	if i < 0 {
		return fmt.Errorf("leaderelection: membership: own lease %s not live yet", ls.where(name))
	}
	sel, err := shard.Of(i, len(live))
	if err != nil {
		return err
	}
	return m.Shard.Set(sel.On(m.Field))
}

func (m *Membership) renew(ctx context.Context, ls leases, name string) error {
	now := m.Clock.Now()
	r := record{holder: m.Identity, durationSecs: int32(m.LeaseDuration / time.Second), acquire: now, renew: now}
	cur, err := ls.get(ctx, name)
	switch {
	case meta.IsNotFound(err):
		l := &Lease{ObjectMeta: meta.ObjectMeta{Name: name, Labels: map[string]string{GroupLabel: m.Group}}}
		r.writeTo(l)
		_, err = ls.create(ctx, l)
	case err == nil:
		next := *cur
		next.Labels = map[string]string{GroupLabel: m.Group}
		r.acquire = recordOf(cur).acquire
		r.writeTo(&next)
		_, err = ls.update(ctx, &next)
	}
	return err
}

// members are the sorted identities of the group's live Leases.
func (m *Membership) members(ctx context.Context, ls leases) ([]string, error) {
	var live []string
	seen := map[string]sighting{}
	err := ls.list(ctx, GroupLabel+"="+m.Group, func(l *Lease) error {
		s := m.seen[l.Name].update(recordOf(l), m.Clock.Now())
		seen[l.Name] = s
		if s.rec.holder != "" && m.Clock.Now().Before(s.expiry()) {
			live = append(live, s.rec.holder)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	m.seen = seen // Leases that are gone are forgotten
	slices.Sort(live)
	return slices.Compact(live), nil
}
