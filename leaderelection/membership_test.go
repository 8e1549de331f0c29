package leaderelection_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/internal/clock/clocktest"
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

// TestAReplicaThatDiesIsDroppedWhenItsLeaseExpires: a replica that stops
// without deleting its Lease keeps its share until the Lease has gone
// LeaseDuration without a change, by the surviving replica's clock, and not
// a round longer. The Lease's renewTime is an hour ahead, as a holder with
// a wrong clock would write it: liveness does not read it. The clock is a
// fake one, so the 15 s are stepped, not waited.
func TestAReplicaThatDiesIsDroppedWhenItsLeaseExpires(t *testing.T) {
	srv := newServer(t)
	c := newClient(t, srv, nil)
	clk := clocktest.New()
	ahead := clk.Now().Add(time.Hour).UTC().Format("2006-01-02T15:04:05.000000Z07:00")
	_, err := srv.Create(leaderelection.LeasesGVR, map[string]any{
		"metadata": map[string]any{"name": "cms-b", "namespace": "default", "labels": map[string]string{leaderelection.GroupLabel: "cms"}},
		"spec":     map[string]any{"holderIdentity": "b", "leaseDurationSeconds": 15, "renewTime": ahead},
	})
	require.NoError(t, err)

	sh, err := informer.NewShard(shard.Selector{Field: shard.UID, Ranges: []shard.Range{shard.Full}})
	require.NoError(t, err)
	m := &leaderelection.Membership{Client: c, Namespace: "default", Group: "cms", Identity: "a", Shard: sh,
		LeaseDuration: 15 * time.Second, RenewInterval: 5 * time.Second, Logger: quiet(), Clock: clk}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	half, err := shard.Of(0, 2)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return half.Equal(sh.Selector()) }, wait, time.Millisecond, "b's Lease is live")
	require.NoError(t, clk.AwaitTimers(t.Context(), 1), "the first round is over")
	for _, at := range []string{"5 s", "10 s"} {
		clk.Advance(5 * time.Second) // the next round
		require.NoError(t, clk.AwaitTimers(t.Context(), 1), "the round at %s is over", at)
		require.True(t, half.Equal(sh.Selector()), "at %s b's Lease is live: %s", at, sh.Selector())
	}
	clk.Advance(5 * time.Second) // the round at 15 s: b's Lease has expired
	whole, err := shard.Of(0, 1)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return whole.Equal(sh.Selector()) }, wait, time.Millisecond, "b's Lease expired")
}
