package informer_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/informer"
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
	lw := informer.NewListerWatcher[configMap](e.client, cmRef, informer.Selectors{})
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
