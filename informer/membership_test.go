package informer_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/internal/clock/clocktest"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/shard"
)

// member is a replica whose shard comes from Lease membership.
type member struct {
	*replica
	stopMembership context.CancelFunc
	membershipDone chan error
}

func join(t *testing.T, e *env, lw informer.ListerWatcher[*configMap], id string) *member {
	t.Helper()
	r := startReplica(t, lw, shard.Selector{Field: shard.UID, Ranges: []shard.Range{shard.Full}})
	m := &informer.Membership{Client: e.client, Namespace: "default", Group: "cms", Identity: id, Shard: r.sh,
		LeaseDuration: 5 * time.Second, RenewInterval: 30 * time.Millisecond, Logger: quiet()}
	ctx, cancel := context.WithCancel(context.Background())
	mb := &member{replica: r, stopMembership: cancel, membershipDone: make(chan error, 1)}
	go func() { mb.membershipDone <- m.Run(ctx) }()
	t.Cleanup(mb.leave)
	return mb
}

func (m *member) leave() {
	if m.stopMembership != nil {
		m.stopMembership()
		<-m.membershipDone
		m.stopMembership = nil
	}
	m.halt()
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

func TestLeaseMembershipReshardsWhenReplicasJoinAndLeave(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{ShardedListAndWatch: true, BookmarkInterval: 20 * time.Millisecond})
	rnd := newRand(17)
	churn(t, e, rnd, 60)
	lw := informer.NewListerWatcher[configMap](e.client, cmRef, informer.Options[*configMap]{})
	a, b := join(t, e, lw, "a"), join(t, e, lw, "b")
	placed(t, a, b)
	shardsConverge(t, e, a.replica, b.replica)

	c := join(t, e, lw, "c")
	placed(t, a, b, c)
	churn(t, e, rnd, 40)
	shardsConverge(t, e, a.replica, b.replica, c.replica)

	c.leave()
	placed(t, a, b)
	churn(t, e, rnd, 40)
	shardsConverge(t, e, a.replica, b.replica)
}

// leaseOf is a Lease as another replica would have written it.
type leaseOf struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Spec            struct {
		HolderIdentity       string `json:"holderIdentity"`
		LeaseDurationSeconds int32  `json:"leaseDurationSeconds"`
		RenewTime            string `json:"renewTime"`
	} `json:"spec"`
}

// TestAReplicaThatDiesIsDroppedWhenItsLeaseExpires: a replica that stops
// without deleting its Lease keeps its share until the Lease has gone
// LeaseDuration without renewal, and not a round longer. The membership's
// clock is a fake one, so the 15 s are stepped, not waited.
func TestAReplicaThatDiesIsDroppedWhenItsLeaseExpires(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{ShardedListAndWatch: true, BookmarkInterval: 20 * time.Millisecond})
	clk := clocktest.New()
	ref := apiclient.Ref{GVR: meta.GVR{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}, Namespace: "default"}
	dead := &leaseOf{TypeMeta: meta.TypeMeta{Kind: "Lease", APIVersion: "coordination.k8s.io/v1"},
		ObjectMeta: meta.ObjectMeta{Name: "cms-b", Labels: map[string]string{informer.GroupLabel: "cms"}}}
	dead.Spec.HolderIdentity, dead.Spec.LeaseDurationSeconds = "b", 15
	dead.Spec.RenewTime = clk.Now().UTC().Format("2006-01-02T15:04:05.000000Z07:00")
	_, err := apiclient.Create[leaseOf](t.Context(), e.client, ref, dead)
	require.NoError(t, err)

	lw := informer.NewListerWatcher[configMap](e.client, cmRef, informer.Options[*configMap]{})
	r := startReplica(t, lw, shard.Selector{Field: shard.UID, Ranges: []shard.Range{shard.Full}})
	m := &informer.Membership{Client: e.client, Namespace: "default", Group: "cms", Identity: "a", Shard: r.sh,
		LeaseDuration: 15 * time.Second, RenewInterval: 5 * time.Second, Logger: quiet(), Clock: clk}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	half, err := shard.Of(0, 2)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return half.Equal(r.sh.Selector()) }, wait, time.Millisecond, "b's Lease is live")
	require.NoError(t, clk.AwaitTimers(t.Context(), 1), "the first round is over")
	for _, at := range []string{"5 s", "10 s"} {
		clk.Advance(5 * time.Second) // the next round
		require.NoError(t, clk.AwaitTimers(t.Context(), 1), "the round at %s is over", at)
		require.True(t, half.Equal(r.sh.Selector()), "at %s b's Lease is live: %s", at, r.sh.Selector())
	}
	clk.Advance(5 * time.Second) // the round at 15 s: b's Lease has expired
	whole, err := shard.Of(0, 1)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return whole.Equal(r.sh.Selector()) }, wait, time.Millisecond, "b's Lease expired")
}
