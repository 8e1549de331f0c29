package leaderelection_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/clock/clocktest"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/leaderelection"
	"github.com/zerokube/zerokube/shard"
)

// member is a replica's shard, placed by Lease membership.
type member struct {
	sh   *informer.Shard
	stop context.CancelFunc
	done chan error
}

func join(t *testing.T, c *apiclient.Client, id string) *member {
	t.Helper()
	sh, err := informer.NewShard(shard.Selector{Field: shard.UID, Ranges: []shard.Range{shard.Full}})
	require.NoError(t, err)
	m := &leaderelection.Membership{Client: c, Namespace: "default", Group: "cms", Identity: id, Shard: sh,
		LeaseDuration: 5 * time.Second, RenewInterval: 30 * time.Millisecond, Logger: quiet()}
	ctx, cancel := context.WithCancel(context.Background())
	mb := &member{sh: sh, stop: cancel, done: make(chan error, 1)}
	go func() { mb.done <- m.Run(ctx) }()
	t.Cleanup(mb.leave)
	return mb
}

func (m *member) leave() {
	if m.stop != nil {
		m.stop()
		<-m.done
		m.stop = nil
	}
}

// placed waits until the members hold shards i of len(ms), in order.
func placed(t *testing.T, ms ...*member) {
	t.Helper()
	for i, m := range ms {
		want, err := shard.Of(i, len(ms))
		require.NoError(t, err)
		require.Eventually(t, func() bool { return want.Equal(m.sh.Selector()) }, wait, 5*time.Millisecond,
			"member %d of %d holds %s", i, len(ms), m.sh.Selector())
	}
}

// TestLeaseMembershipReshardsWhenReplicasJoinAndLeave: a join moves every
// member to its place among N+1 at their next rounds, and a clean leave
// (the Lease deleted) gives its share back without waiting for expiry.
// That a moved Shard relists its informer is informer's own test.
func TestLeaseMembershipReshardsWhenReplicasJoinAndLeave(t *testing.T) {
	c := newClient(t, newServer(t), nil)
	a, b := join(t, c, "a"), join(t, c, "b")
	placed(t, a, b)
	cc := join(t, c, "c")
	placed(t, a, b, cc)
	cc.leave()
	placed(t, a, b)
}

// replica is a Membership running on a fake clock, until the test ends.
func replica(t *testing.T, c *apiclient.Client, clk *clocktest.Fake, group, id string) *informer.Shard {
	t.Helper()
	sh, err := informer.NewShard(shard.Selector{Field: shard.UID, Ranges: []shard.Range{shard.Full}})
	require.NoError(t, err)
	m := &leaderelection.Membership{Client: c, Namespace: "default", Group: group, Identity: id, Shard: sh,
		LeaseDuration: 15 * time.Second, RenewInterval: 5 * time.Second, Logger: quiet(), Clock: clk}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	t.Cleanup(func() { cancel(); require.NoError(t, <-done) })
	return sh
}

// rounds advances clk by one RenewInterval (5 s) n times, each time waiting
// for the replicas' rounds to be over (each parked on its next one).
func rounds(t *testing.T, clk *clocktest.Fake, replicas, n int) {
	t.Helper()
	for range n {
		clk.Advance(5 * time.Second)
		require.NoError(t, clk.AwaitTimers(t.Context(), replicas))
	}
}

// holds checks that sh is shard i of n now.
func holds(t *testing.T, who string, sh *informer.Shard, i, n int, why string) {
	t.Helper()
	want, err := shard.Of(i, n)
	require.NoError(t, err)
	require.True(t, want.Equal(sh.Selector()), "%s: want %d of %d, holds %s: %s", who, i, n, sh.Selector(), why)
}

// crashed writes the Lease of a replica of group cms that renewed it at
// renewed, for 15 s, and then stopped without deleting it.
func crashed(t *testing.T, srv *fakeapiserver.Server, id string, renewed time.Time) {
	t.Helper()
	_, err := srv.Create(leaderelection.LeasesGVR, map[string]any{
		"metadata": map[string]any{"name": "cms." + id, "namespace": "default", "labels": map[string]string{leaderelection.GroupLabel: "cms"}},
		"spec": map[string]any{"holderIdentity": id, "leaseDurationSeconds": 15,
			"renewTime": renewed.UTC().Format("2006-01-02T15:04:05.000000Z07:00")},
	})
	require.NoError(t, err)
}

// TestAReplicaThatDiesIsDroppedWhenItsLeaseExpires: a replica that stops
// without deleting its Lease keeps its share until its renewTime plus
// LeaseDuration, by the surviving replicas' clocks, and not a round longer;
// two replicas running meanwhile drop it at the same round. The clock is a
// fake one, so the seconds are stepped, not waited.
func TestAReplicaThatDiesIsDroppedWhenItsLeaseExpires(t *testing.T) {
	srv := newServer(t)
	c := newClient(t, srv, nil)
	clk := clocktest.New()
	crashed(t, srv, "b", clk.Now()) // b renewed at 0 s and crashed
	a := replica(t, c, clk, "cms", "a")
	require.NoError(t, clk.AwaitTimers(t.Context(), 1))
	cc := replica(t, c, clk, "cms", "c")
	require.NoError(t, clk.AwaitTimers(t.Context(), 2))
	holds(t, "c", cc, 2, 3, "c's first round: b's Lease is live")
	for _, at := range []string{"5 s", "10 s"} {
		rounds(t, clk, 2, 1)
		holds(t, "a", a, 0, 3, "b's Lease is live at "+at)
		holds(t, "c", cc, 2, 3, "b's Lease is live at "+at)
	}
	rounds(t, clk, 2, 1)
	holds(t, "a", a, 0, 2, "b's Lease expired at 15 s")
	holds(t, "c", cc, 1, 2, "b's Lease expired at 15 s")
}

// TestAReplicaThatJoinsLateAgreesOnACrashedReplicasLease: the Lease of a
// replica that crashed is judged by its renewTime, by a replica that has
// watched it for a while and by one that sees it for the first time alike.
// b renewed 10 s before a started: a counts it live for 5 s more, not for
// 15 s from when it first saw it; c, joining at 20 s, does not count it at
// all, and a and c hold halves from c's first round on. (Judged by when each
// replica first saw the Lease, c would count b for 15 s while a did not: a
// third of the hash space cached by nobody, a sixth twice.)
func TestAReplicaThatJoinsLateAgreesOnACrashedReplicasLease(t *testing.T) {
	srv := newServer(t)
	c := newClient(t, srv, nil)
	clk := clocktest.New()
	crashed(t, srv, "b", clk.Now().Add(-10*time.Second))
	a := replica(t, c, clk, "cms", "a")
	require.NoError(t, clk.AwaitTimers(t.Context(), 1))
	holds(t, "a", a, 0, 2, "b's Lease, renewed 10 s ago, is live for 5 s more")
	rounds(t, clk, 1, 1)
	holds(t, "a", a, 0, 1, "b's Lease expired at 5 s")
	rounds(t, clk, 1, 3) // 20 s
	cc := replica(t, c, clk, "cms", "c")
	require.NoError(t, clk.AwaitTimers(t.Context(), 2))
	holds(t, "c", cc, 1, 2, "c's first round: b's Lease, 30 s old, is not live")
	rounds(t, clk, 2, 1)
	holds(t, "a", a, 0, 2, "a's next round after c joined")
	holds(t, "c", cc, 1, 2, "and c's")
}

// TestLeaseNamesOfDifferentGroupsNeverCollide: group web with identity
// api-0 and group web-api with identity 0 would both be "web-api-0" if the
// name joined them with a dash; each replica holds a Lease of its own, and
// each, alone in its group, takes the whole space.
func TestLeaseNamesOfDifferentGroupsNeverCollide(t *testing.T) {
	srv := newServer(t)
	c := newClient(t, srv, nil)
	clk := clocktest.New()
	web := replica(t, c, clk, "web", "api-0")
	webAPI := replica(t, c, clk, "web-api", "0")
	require.NoError(t, clk.AwaitTimers(t.Context(), 2))
	rounds(t, clk, 2, 2)
	holds(t, "web/api-0", web, 0, 1, "alone in group web")
	holds(t, "web-api/0", webAPI, 0, 1, "alone in group web-api")
	leases, _, err := srv.List(leaderelection.LeasesGVR, "default")
	require.NoError(t, err)
	names := map[string]string{}
	for _, l := range leases {
		var lease leaderelection.Lease
		require.NoError(t, l.DecodeInto(&lease))
		names[lease.Name] = lease.Labels[leaderelection.GroupLabel] + "/" + *lease.Spec.HolderIdentity
	}
	require.Equal(t, map[string]string{"web.api-0": "web/api-0", "web-api.0": "web-api/0"}, names)
}

// TestMembershipRefusesSettingsItCannotKeep: a LeaseDuration the Lease
// cannot store (under a second is stored as 0 s: no Lease, its own
// included, would ever be live), a RenewInterval that lets a live replica's
// Lease expire between renewals, and names that make no valid or no
// unambiguous Lease name are refused by Run, as New refuses an Elector's.
func TestMembershipRefusesSettingsItCannotKeep(t *testing.T) {
	c := newClient(t, newServer(t), nil)
	sh, err := informer.NewShard(shard.Selector{Field: shard.UID, Ranges: []shard.Range{shard.Full}})
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		edit func(*leaderelection.Membership)
		says string
	}{
		{"lease under a second", func(m *leaderelection.Membership) { m.LeaseDuration = 500 * time.Millisecond }, "LeaseDuration"},
		{"lease not whole seconds", func(m *leaderelection.Membership) { m.LeaseDuration = 1500 * time.Millisecond }, "LeaseDuration"},
		{"renew as long as the lease", func(m *leaderelection.Membership) { m.RenewInterval = 15 * time.Second }, "RenewInterval"},
		{"renew longer than the lease", func(m *leaderelection.Membership) {
			m.LeaseDuration, m.RenewInterval = 2*time.Second, 3*time.Second
		}, "RenewInterval"},
		{"group with a dot", func(m *leaderelection.Membership) { m.Group = "web.x" }, "Group"},
		{"group in capitals", func(m *leaderelection.Membership) { m.Group = "Web" }, "Group"},
		{"identity with an underscore", func(m *leaderelection.Membership) { m.Identity = "host_1" }, "Identity"},
		{"identity ending in a dash", func(m *leaderelection.Membership) { m.Identity = "a-" }, "Identity"},
		{"name too long", func(m *leaderelection.Membership) { m.Identity = strings.Repeat("a", 250) }, "Identity"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &leaderelection.Membership{Client: c, Namespace: "default", Group: "cms", Identity: "a", Shard: sh, Logger: quiet()}
			tc.edit(m)
			// Refused settings end Run at once; accepted ones would run it
			// until its context ends, which this deadline bounds.
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
			defer cancel()
			err := m.Run(ctx)
			require.Error(t, err, "Run accepted the settings and ran until its context ended")
			require.Contains(t, err.Error(), tc.says)
		})
	}
}
