package conformance

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/leaderelection"
	"github.com/zerokube/zerokube/shard"
)

// TestLeaderElection runs two electors on both servers: the Lease they
// write is accepted as written (microsecond times, a holder, a duration, a
// transition count), a write at a stale resourceVersion is refused with
// 409, the release (no holder, one second) is accepted, and the waiting
// candidate takes over after it with one transition more.
func TestLeaderElection(t *testing.T) {
	onBoth(t, func(t *testing.T, tg *target) {
		ns := tg.namespace(t)
		client, err := apiclient.New(tg.cfg)
		require.NoError(t, err)
		t.Cleanup(client.CloseIdleConnections)
		path := "/apis/coordination.k8s.io/v1/namespaces/" + ns + "/leases/ctrl"

		a := startCandidate(t, client, ns, "a")
		a.awaitLeading(t)
		l := tg.must(t, 200, "GET", path, "")
		spec := l["spec"].(map[string]any)
		require.Equal(t, "a", spec["holderIdentity"])
		require.EqualValues(t, 10, spec["leaseDurationSeconds"])
		require.EqualValues(t, 0, spec["leaseTransitions"])
		require.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$`, spec["renewTime"], "a MicroTime")

		b := startCandidate(t, client, ns, "b")
		require.Equal(t, "a", b.awaitNewLeader(t), "b observes a")
		require.False(t, b.el.IsLeader())

		// a renews: the resourceVersion moves, and a write at the old one is
		// refused.
		old := l["metadata"].(map[string]any)["resourceVersion"].(string)
		require.Eventually(t, func() bool {
			return tg.must(t, 200, "GET", path, "")["metadata"].(map[string]any)["resourceVersion"] != old
		}, 10*time.Second, 50*time.Millisecond, "a renews the Lease")
		stale := fmt.Sprintf(`{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"ctrl","namespace":%q,"resourceVersion":%q},"spec":{"holderIdentity":"b"}}`, ns, old)
		r := tg.do(t, "PUT", path, stale)
		require.Equal(t, 409, r.code, "a write at a stale resourceVersion: %s", r.raw)
		require.Equal(t, "Conflict", r.body["reason"])

		a.stop(t) // releases
		require.NoError(t, a.err)
		b.awaitLeading(t)
		spec = tg.must(t, 200, "GET", path, "")["spec"].(map[string]any)
		require.Equal(t, "b", spec["holderIdentity"])
		require.EqualValues(t, 1, spec["leaseTransitions"], "one transition: a's release, then b")
		b.stop(t)
		spec = tg.must(t, 200, "GET", path, "")["spec"].(map[string]any)
		require.EqualValues(t, 1, spec["leaseDurationSeconds"], "released: %v", spec)
		// No holder: an empty holderIdentity is left out of the write, and
		// both servers store none (client-go candidates read that as "").
		require.Nil(t, spec["holderIdentity"], "released: %v", spec)
	})
}

// candidate is one elector running until stopped.
type candidate struct {
	el      *leaderelection.Elector
	leading chan struct{}
	leaders chan string
	cancel  context.CancelFunc
	done    chan struct{}
	once    sync.Once
	err     error
}

func startCandidate(t *testing.T, c *apiclient.Client, ns, id string) *candidate {
	cd := &candidate{leading: make(chan struct{}, 1), leaders: make(chan string, 8), done: make(chan struct{})}
	el, err := leaderelection.New(leaderelection.Config{Client: c, Namespace: ns, Name: "ctrl", Identity: id,
		// Long enough that a slow etcd write on a loaded machine does not
		// cost the leadership; the handover after a release takes one
		// RetryPeriod whatever the lease.
		LeaseDuration: 10 * time.Second, RenewDeadline: 5 * time.Second, RetryPeriod: 200 * time.Millisecond,
		OnStartedLeading: func(ctx context.Context) { cd.leading <- struct{}{}; <-ctx.Done() },
		OnNewLeader:      func(l string) { cd.leaders <- l },
		Logger:           quiet()})
	require.NoError(t, err)
	cd.el = el
	ctx, cancel := context.WithCancel(context.Background())
	cd.cancel = cancel
	go func() { defer close(cd.done); cd.err = el.Run(ctx) }()
	t.Cleanup(func() { cd.stop(t) })
	return cd
}

func (cd *candidate) awaitLeading(t *testing.T) {
	t.Helper()
	select {
	case <-cd.leading:
	case <-time.After(30 * time.Second):
		t.Fatal("not leading after 30 s")
	}
}

func (cd *candidate) awaitNewLeader(t *testing.T) string {
	t.Helper()
	select {
	case l := <-cd.leaders:
		return l
	case <-time.After(30 * time.Second):
		t.Fatal("no leader observed after 30 s")
		return ""
	}
}

func (cd *candidate) stop(t *testing.T) {
	cd.once.Do(func() {
		cd.cancel()
		select {
		case <-cd.done:
		case <-time.After(30 * time.Second):
			t.Fatal("Run did not return 30 s after its context ended")
		}
	})
}

// TestLeaseMembership places two replicas on both servers: each takes its
// half, found by listing the group's Leases by label, and when one leaves
// (deleting its Lease) the other takes the whole.
func TestLeaseMembership(t *testing.T) {
	onBoth(t, func(t *testing.T, tg *target) {
		ns := tg.namespace(t)
		client, err := apiclient.New(tg.cfg)
		require.NoError(t, err)
		t.Cleanup(client.CloseIdleConnections)
		type member struct {
			sh   *informer.Shard
			stop func()
		}
		join := func(id string) member {
			sh, err := informer.NewShard(shard.Selector{Field: shard.UID, Ranges: []shard.Range{shard.Full}})
			require.NoError(t, err)
			m := &leaderelection.Membership{Client: client, Namespace: ns, Group: "g", Identity: id, Shard: sh,
				LeaseDuration: 2 * time.Second, RenewInterval: 100 * time.Millisecond, Logger: quiet()}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { defer close(done); _ = m.Run(ctx) }()
			var once sync.Once
			stop := func() { once.Do(func() { cancel(); <-done }) }
			t.Cleanup(stop)
			return member{sh: sh, stop: stop}
		}
		holds := func(m member, i, n int) {
			t.Helper()
			want, err := shard.Of(i, n)
			require.NoError(t, err)
			require.Eventually(t, func() bool { return want.Equal(m.sh.Selector()) }, 30*time.Second, 20*time.Millisecond,
				"want %d of %d, holds %s", i, n, m.sh.Selector())
		}
		a, b := join("a"), join("b")
		holds(a, 0, 2)
		holds(b, 1, 2)
		b.stop()
		holds(a, 0, 1)
	})
}
