package informer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/internal/clock"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/shard"
)

// Membership lets replicas agree on "i of N" through coordination.k8s.io/v1
// Leases, and moves a Shard when a replica joins or leaves:
//
//  1. Each replica holds one Lease, named Group + "-" + Identity, labelled
//     with the group, whose holderIdentity is Identity, renewed every
//     RenewInterval with a leaseDurationSeconds of LeaseDuration.
//  2. A Lease is live while renewTime + leaseDurationSeconds is in the
//     future. The live holders, sorted, are the group: the replica at
//     position i of N takes shard.Of(i, N) over Field.
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
	Shard                        *Shard
	Logger                       *slog.Logger
	// Clock times the rounds and tells whether a Lease is live; nil means
	// the real clock (the informer's Options.Clock is the same type).
	Clock Clock
}

// GroupLabel is the label that marks a Lease as a member of a group.
const GroupLabel = "zerokube.io/shard-group"

type lease struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Spec            leaseSpec `json:"spec"`
}

type leaseSpec struct {
	HolderIdentity       *string    `json:"holderIdentity,omitempty"`
	LeaseDurationSeconds *int32     `json:"leaseDurationSeconds,omitempty"`
	RenewTime            *microTime `json:"renewTime,omitempty"`
}

// microTime is metav1.MicroTime's wire form: RFC 3339 with microseconds.
type microTime struct{ time.Time }

const microLayout = "2006-01-02T15:04:05.000000Z07:00"

func (t microTime) MarshalJSON() ([]byte, error) {
	return []byte(`"` + t.UTC().Format(microLayout) + `"`), nil
}

func (t *microTime) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "null" || s == "" {
		return nil
	}
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return fmt.Errorf("informer: lease renewTime %q: %w", s, err)
	}
	t.Time = v
	return nil
}

var leasesGVR = meta.GVR{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}

func (m *Membership) defaults() error {
	if m.Client == nil || m.Shard == nil || m.Group == "" || m.Identity == "" || m.Namespace == "" {
		return errors.New("informer: membership needs Client, Shard, Namespace, Group and Identity")
	}
	if m.LeaseDuration <= 0 {
		m.LeaseDuration = 15 * time.Second
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
	return nil
}

// Run renews this replica's Lease and keeps the Shard at its place in the
// group until ctx ends; then it deletes the Lease and returns nil. Errors
// of one round are logged and retried at the next.
func (m *Membership) Run(ctx context.Context) error {
	if err := m.defaults(); err != nil {
		return err
	}
	ref := apiclient.Ref{GVR: leasesGVR, Namespace: m.Namespace}
	name := m.Group + "-" + m.Identity
	defer func() {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), m.RenewInterval)
		defer cancel()
		if err := m.Client.Delete(dctx, ref, name, apiclient.DeleteOptions{}); err != nil && !meta.IsNotFound(err) {
			m.Logger.Warn("informer: membership: deleting the lease", "lease", name, "err", err)
		}
	}()
	for {
		// One round per RenewInterval, counted from the start of the last
		// one, as a ticker would; a round longer than that is followed at
		// once by the next.
		start := m.Clock.Now()
		if err := m.round(ctx, ref, name); err != nil && ctx.Err() == nil {
			m.Logger.Warn("informer: membership round failed", "lease", name, "err", err)
		}
		if clock.Sleep(ctx, m.Clock, m.RenewInterval-m.Clock.Now().Sub(start)) != nil {
			return nil
		}
	}
}

// round renews the Lease, reads the group and moves the Shard.
func (m *Membership) round(ctx context.Context, ref apiclient.Ref, name string) error {
	if err := m.renew(ctx, ref, name); err != nil {
		return err
	}
	live, err := m.members(ctx, ref)
	if err != nil {
		return err
	}
	i := slices.Index(live, m.Identity)
	if i < 0 {
		return fmt.Errorf("informer: membership: own lease %s not live yet", name)
	}
	sel, err := shard.Of(i, len(live))
	if err != nil {
		return err
	}
	return m.Shard.Set(sel.On(m.Field))
}

func (m *Membership) renew(ctx context.Context, ref apiclient.Ref, name string) error {
	secs := int32(m.LeaseDuration / time.Second)
	l := &lease{
		TypeMeta:   meta.TypeMeta{Kind: "Lease", APIVersion: "coordination.k8s.io/v1"},
		ObjectMeta: meta.ObjectMeta{Name: name, Namespace: m.Namespace, Labels: map[string]string{GroupLabel: m.Group}},
		Spec: leaseSpec{HolderIdentity: &m.Identity, LeaseDurationSeconds: &secs,
			RenewTime: &microTime{m.Clock.Now()}},
	}
	cur, err := apiclient.Get[lease](ctx, m.Client, ref, name)
	switch {
	case meta.IsNotFound(err):
		_, err = apiclient.Create[lease](ctx, m.Client, ref, l)
	case err == nil:
		l.ResourceVersion = cur.ResourceVersion
		_, err = apiclient.Update[lease](ctx, m.Client, ref, l)
	}
	if err != nil {
		return fmt.Errorf("informer: membership: renewing lease %s/%s: %w", m.Namespace, name, err)
	}
	return nil
}

// members are the sorted identities of the group's live Leases.
func (m *Membership) members(ctx context.Context, ref apiclient.Ref) ([]string, error) {
	now := m.Clock.Now()
	var live []string
	_, err := apiclient.ListAll[lease](ctx, m.Client, ref, apiclient.ListOptions{LabelSelector: GroupLabel + "=" + m.Group}, nil,
		func(l *lease) error {
			s := l.Spec
			if s.HolderIdentity == nil || s.RenewTime == nil || s.LeaseDurationSeconds == nil {
				return nil
			}
			if now.Before(s.RenewTime.Add(time.Duration(*s.LeaseDurationSeconds) * time.Second)) {
				live = append(live, *s.HolderIdentity)
			}
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("informer: membership: listing leases of %s: %w", m.Group, err)
	}
	slices.Sort(live)
	return slices.Compact(live), nil
}
