package leaderelection

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/clock"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/shard"
)

// Membership lets replicas agree on "i of N" through coordination.k8s.io/v1
// Leases, and moves a Shard when a replica joins or leaves. It is leader
// election's sibling and shares its Lease client, but not its rule for
// liveness: an Elector needs one leader at a time whatever the clocks say,
// so it counts a Lease's age from when it saw it change, on its own clock;
// replicas need to reach the same verdict on the same Lease, and a replica
// that has just joined has seen no change yet. So a Lease's liveness is
// judged by the time written in it:
//
//  1. Each replica holds one Lease, named Group + "." + Identity, labelled
//     with the group, whose holderIdentity is Identity, renewed every
//     RenewInterval with its renewTime (this replica's clock) and a
//     leaseDurationSeconds of LeaseDuration. Group is a DNS-1123 label (no
//     dot) and Identity a DNS-1123 subdomain, so the name is a valid Lease
//     name and says which group and identity it stands for: group web and
//     identity api-0 hold web.api-0, group web-api and identity 0 hold
//     web-api.0. [TestLeaseNamesOfDifferentGroupsNeverCollide,
//     TestMembershipRefusesSettingsItCannotKeep]
//  2. A Lease is live while this replica's clock reads before its renewTime
//     plus its leaseDurationSeconds. The live holders, sorted, are the
//     group: the replica at position i of N takes shard.Of(i, N) over Field.
//  3. Every round (each renewal) recomputes the group; a change calls
//     Shard.Set, which relists without a restart. A replica that stops
//     cleanly deletes its Lease, so the others re-shard at their next round
//     instead of after LeaseDuration.
//
// The bound on disagreement: every replica reaches the same verdict on a
// Lease at the same instant, give or take the difference between the
// replicas' clocks, and acts on it at its next round. So after a replica
// joins, leaves, or stops renewing (its Lease expiring LeaseDuration after
// its last renewal), all replicas hold the new group within RenewInterval
// plus the length of one round (a renewal and a list) plus the largest
// difference between their clocks; meanwhile an object may be cached twice
// or not at all, and after that every object is in exactly one shard. A
// replica that joins late judges a crashed replica's stale Lease as the
// others do. This needs clocks that agree to well within LeaseDuration -
// RenewInterval (NTP keeps them within milliseconds): a replica whose clock
// is behind by more than that writes renewTimes the others find expired,
// and it counts itself while they do not. A replica whose clock is ahead
// keeps its share for as much longer after it crashes, in the eyes of all
// replicas alike. [TestAReplicaThatDiesIsDroppedWhenItsLeaseExpires,
// TestAReplicaThatJoinsLateAgreesOnACrashedReplicasLease]
type Membership struct {
	Client    *apiclient.Client
	Namespace string // where the Leases live
	Group     string // the replicas' common name: a DNS-1123 label (a label value too)
	Identity  string // this replica's unique name: a DNS-1123 subdomain, as a pod name is
	Field     shard.Field
	// LeaseDuration is how long a Lease lives after its renewTime; zero
	// or less means 15 s. It is stored in whole seconds, so it must be
	// whole seconds. RenewInterval is the period of renewals and
	// re-computations; zero or less means LeaseDuration / 3; it must be
	// shorter than LeaseDuration, or a live replica's Lease would expire
	// between two renewals.
	LeaseDuration, RenewInterval time.Duration
	Shard                        Shard
	Logger                       *slog.Logger
	// Clock times the rounds, writes renewTime and tells whether a Lease is
	// live; nil means the real clock (the informer's Options.Clock is the
	// same type).
	Clock clock.Clock
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
	if !dnsLabel(m.Group) {
		return fmt.Errorf("leaderelection: Membership Group %q is not a DNS-1123 label (lower-case letters, digits and '-', at most 63)", m.Group)
	}
	if !dnsSubdomain(m.Identity) || len(m.leaseName()) > maxNameLen {
		return fmt.Errorf("leaderelection: Membership Identity %q does not make a valid Lease name %q with Group %q: "+
			"it must be a DNS-1123 subdomain (lower-case letters, digits, '-' and '.') and the name at most %d characters",
			m.Identity, m.leaseName(), m.Group, maxNameLen)
	}
	m.LeaseDuration = orDefault(m.LeaseDuration, DefaultLeaseDuration)
	if m.LeaseDuration%time.Second != 0 { // positive here: orDefault
		return fmt.Errorf("leaderelection: Membership LeaseDuration %s is not a whole number of seconds, at least one, as the Lease stores it", m.LeaseDuration)
	}
	m.RenewInterval = orDefault(m.RenewInterval, m.LeaseDuration/3)
	if m.RenewInterval >= m.LeaseDuration {
		return fmt.Errorf("leaderelection: Membership needs RenewInterval (%s) < LeaseDuration (%s)", m.RenewInterval, m.LeaseDuration)
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
	return nil
}

// leaseName is this replica's Lease: the group ends at the first dot, since
// a DNS-1123 label has none, so no two (group, identity) pairs share a name.
func (m *Membership) leaseName() string { return m.Group + "." + m.Identity }

// maxNameLen is the longest object name, a DNS-1123 subdomain's.
const maxNameLen = 253

// dnsLabel reports whether s is a DNS-1123 label: 1 to 63 lower-case
// letters, digits or '-', beginning and ending with a letter or digit.
func dnsLabel(s string) bool { return len(s) <= 63 && dnsPart(s) }

// dnsSubdomain reports whether s is a DNS-1123 subdomain, as
// kube-apiserver checks object names: at most 253 characters of dot-separated
// parts, each as a label's (without the 63-character limit, as apimachinery's
// IsDNS1123Subdomain does not apply it).
func dnsSubdomain(s string) bool {
	if len(s) > maxNameLen {
		return false
	}
	for part := range strings.SplitSeq(s, ".") {
		if !dnsPart(part) {
			return false
		}
	}
	return true
}

func dnsPart(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || '0' <= c && c <= '9' {
			continue
		}
		if c != '-' || i == 0 || i == len(s)-1 {
			return false
		}
	}
	return true
}

// Run renews this replica's Lease and keeps the Shard at its place in the
// group until ctx ends; then it deletes the Lease and returns nil. Errors
// of one round are logged and retried at the next.
func (m *Membership) Run(ctx context.Context) error {
	if err := m.defaults(); err != nil {
		return err
	}
	ls := newLeases(m.Client, m.Namespace)
	name := m.leaseName()
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

// members are the sorted identities of the group's live Leases (invariant 2).
func (m *Membership) members(ctx context.Context, ls leases) ([]string, error) {
	var live []string
	err := ls.list(ctx, GroupLabel+"="+m.Group, func(l *Lease) error {
		r := recordOf(l)
		if r.holder != "" && m.Clock.Now().Before(r.renew.Add(r.duration())) {
			live = append(live, r.holder)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(live)
	return slices.Compact(live), nil
}
