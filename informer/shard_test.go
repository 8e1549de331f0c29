package informer_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/shard"
)

// replica is one sharded informer with a handler view of its own.
type replica struct {
	sh   *informer.Shard
	inf  *informer.Informer[configMap, *configMap]
	view *view
	stop context.CancelFunc
	done chan error
}

// startReplica runs an informer of ref's shard sel over c; wrap, if non-nil,
// stands between it and the server (Options.WrapListerWatcher).
func startReplica(t *testing.T, c *apiclient.Client, ref apiclient.Ref, sel shard.Selector,
	wrap func(informer.ListerWatcher[*configMap]) informer.ListerWatcher[*configMap]) *replica {
	t.Helper()
	sh, err := informer.NewShard(sel)
	require.NoError(t, err)
	opts := fastOpts()
	opts.Shard = sh
	opts.Watch.IdleTimeout = 300 * time.Millisecond
	opts.WrapListerWatcher = wrap
	r := &replica{sh: sh, inf: informer.New[configMap](c, ref, opts), view: newView(), done: make(chan error, 1)}
	_, err = r.inf.AddHandler(r.view, informer.HandlerOptions{})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	r.stop = cancel
	go func() { r.done <- r.inf.Run(ctx) }()
	t.Cleanup(r.halt)
	return r
}

func (r *replica) halt() {
	if r.stop != nil {
		r.stop()
		<-r.done
		r.stop = nil
	}
}

// serverObjects is name → (uid, data["v"]) of the server's configmaps.
func serverObjects(t testing.TB, e *env) map[string]configMap {
	t.Helper()
	items, _, err := e.srv.List(cmGVR, "default")
	require.NoError(t, err)
	out := map[string]configMap{}
	for _, r := range items {
		var cm configMap
		require.NoError(t, r.DecodeInto(&cm))
		out[cm.Name] = cm
	}
	return out
}

// shardOf is the part of objs a selector owns, as name → data["v"].
func shardOf(objs map[string]configMap, sel shard.Selector) map[string]string {
	out := map[string]string{}
	for name, cm := range objs {
		if sel.Contains(&cm.ObjectMeta) {
			out[name] = cm.Data["v"]
		}
	}
	return out
}

// shardsConverge waits until every replica's cache and handler view hold
// exactly its shard of the server's objects. Together with the shards
// tiling the hash space this is: the union of the caches is the unsharded
// cache, and no object is in two of them.
func shardsConverge(t *testing.T, e *env, rs ...*replica) {
	t.Helper()
	objs, union := replicasConverge(t, e, rs...), map[string]int{}
	for _, r := range rs {
		for name := range shardOf(objs, r.sh.Selector()) {
			union[name]++
		}
	}
	require.Len(t, union, len(objs), "the shards together cover the server")
	for name, n := range union {
		require.Equal(t, 1, n, "%s is in %d shards", name, n)
	}
}

// replicasConverge waits until each replica holds its shard of the server's
// objects, and returns those objects.
func replicasConverge(t *testing.T, e *env, rs ...*replica) map[string]configMap {
	t.Helper()
	objs := serverObjects(t, e)
	for _, r := range rs {
		want := shardOf(objs, r.sh.Selector())
		require.Eventually(t, func() bool {
			return maps.Equal(want, cacheState(r.inf)) && maps.Equal(want, r.view.snapshot())
		}, wait, 5*time.Millisecond, "replica %s: cache %v, view %v, want %v", r.sh.Selector(), cacheState(r.inf), r.view.snapshot(), want)
	}
	return objs
}

// churn writes and deletes at random while injecting faults.
func churn(t *testing.T, e *env, rnd *rand.Rand, steps int) {
	t.Helper()
	for step := range steps {
		name := fmt.Sprintf("cm-%d", rnd.IntN(40))
		switch r := rnd.IntN(100); {
		case r < 2:
			e.srv.DropWatches()
		case r < 4:
			e.srv.CutWatches()
		case r < 5:
			e.srv.Compact(0)
		case r < 6:
			e.srv.FailNext(fakeapiserver.Failure{Count: 1, Code: []int{500, 503, 429}[rnd.IntN(3)]})
		case r < 30:
			_ = e.srv.Delete(cmGVR, "default", name)
		default:
			e.put(t, name, fmt.Sprint(step), nil)
		}
	}
}

func TestShardsPartitionTheResourceUnderChurnAndFaults(t *testing.T) {
	for _, serverSide := range []bool{true, false} {
		for _, n := range []int{1, 2, 3, 7} {
			t.Run(fmt.Sprintf("server=%t/n=%d", serverSide, n), func(t *testing.T) {
				seed := uint64(time.Now().UnixNano())
				t.Logf("seed %d", seed)
				rnd := rand.New(rand.NewPCG(seed, 1))
				e := newEnv(t, fakeapiserver.Options{ShardedListAndWatch: serverSide,
					BookmarkInterval: 20 * time.Millisecond, WatchBuffer: 16})
				churn(t, e, rnd, 40) // some objects before the replicas start
				rs := make([]*replica, n)
				for i := range n {
					sel, err := shard.Of(i, n)
					require.NoError(t, err)
					rs[i] = startReplica(t, e.client, cmRef, sel, nil)
				}
				churn(t, e, rnd, 150)
				shardsConverge(t, e, rs...)
				for _, r := range rs {
					require.Equal(t, serverSide, r.sh.ServerSide(), "who filtered")
				}
			})
		}
	}
}

// clientOnlyLW drops the shard selector, as a server without the gate does.
type clientOnlyLW struct {
	informer.ListerWatcher[*configMap]
}

func (lw clientOnlyLW) List(ctx context.Context, o informer.ListRequest, each func(*configMap) error) (informer.ListPage, error) {
	o.ShardSelector = ""
	return lw.ListerWatcher.List(ctx, o, each)
}

func (lw clientOnlyLW) Watch(ctx context.Context, o informer.WatchRequest) (informer.Watch[*configMap], error) {
	o.ShardSelector = ""
	return lw.ListerWatcher.Watch(ctx, o)
}

func TestServerSideAndClientSideShardsAreIdentical(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{ShardedListAndWatch: true, BookmarkInterval: 20 * time.Millisecond})
	rnd := rand.New(rand.NewPCG(7, 7))
	churn(t, e, rnd, 60)
	for i := range 3 {
		sel, err := shard.Of(i, 3)
		require.NoError(t, err)
		server := startReplica(t, e.client, cmRef, sel, nil)
		client := startReplica(t, e.client, cmRef, sel, func(lw informer.ListerWatcher[*configMap]) informer.ListerWatcher[*configMap] {
			return clientOnlyLW{lw}
		})
		churn(t, e, rnd, 60)
		replicasConverge(t, e, server, client)
		require.Equal(t, cacheState(server.inf), cacheState(client.inf))
		require.True(t, server.sh.ServerSide())
		require.False(t, client.sh.ServerSide())
	}
}

func TestReshardingFrom2To3AndBackConverges(t *testing.T) {
	for _, serverSide := range []bool{true, false} {
		t.Run(fmt.Sprintf("server=%t", serverSide), func(t *testing.T) {
			e := newEnv(t, fakeapiserver.Options{ShardedListAndWatch: serverSide, BookmarkInterval: 20 * time.Millisecond})
			rnd := rand.New(rand.NewPCG(11, 13))
			churn(t, e, rnd, 80)
			of := func(i, n int) shard.Selector {
				s, err := shard.Of(i, n)
				require.NoError(t, err)
				return s
			}
			a, b := startReplica(t, e.client, cmRef, of(0, 2), nil), startReplica(t, e.client, cmRef, of(1, 2), nil)
			synced(t, a.inf)
			synced(t, b.inf)
			shardsConverge(t, e, a, b)

			c := startReplica(t, e.client, cmRef, of(2, 3), nil)
			require.NoError(t, a.sh.Set(of(0, 3)))
			require.NoError(t, b.sh.Set(of(1, 3)))
			churn(t, e, rnd, 60)
			shardsConverge(t, e, a, b, c)

			c.halt()
			require.NoError(t, a.sh.Set(of(0, 2)))
			require.NoError(t, b.sh.Set(of(1, 2)))
			churn(t, e, rnd, 60)
			shardsConverge(t, e, a, b)
		})
	}
}

func TestShardByNamespaceKeepsANamespaceTogether(t *testing.T) {
	e := newEnv(t, fakeapiserver.Options{ShardedListAndWatch: true})
	for i := range 6 {
		_, err := e.srv.Create(meta.GVR{Version: "v1", Resource: "namespaces"}, map[string]any{"metadata": map[string]any{"name": fmt.Sprint("ns-", i)}})
		require.NoError(t, err)
	}
	for i := range 30 {
		ns := fmt.Sprintf("ns-%d", i%6)
		_, err := e.srv.Create(cmGVR, map[string]any{"metadata": map[string]any{"name": fmt.Sprint("cm-", i), "namespace": ns}})
		require.NoError(t, err)
	}
	owner := map[string]int{}
	for i := range 2 {
		sel, err := shard.Of(i, 2)
		require.NoError(t, err)
		r := startReplica(t, e.client, cmRef.Namespaced(""), sel.On(shard.Namespace), nil)
		synced(t, r.inf)
		for _, cm := range r.inf.Lister().List(meta.LabelSelector{}) {
			if o, ok := owner[cm.Namespace]; ok {
				require.Equal(t, i, o, "namespace %s split between shards", cm.Namespace)
			}
			owner[cm.Namespace] = i
		}
	}
	require.Len(t, owner, 6)
}

func TestShardNeedsRangesAndAKnownField(t *testing.T) {
	_, err := informer.NewShard(shard.Selector{})
	require.Error(t, err)
	_, err = informer.NewShard(shard.Selector{Field: "metadata.uid", Ranges: []shard.Range{shard.Full}})
	require.Error(t, err)
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed)) }

func TestStreamingListsLearnWhoFilters(t *testing.T) {
	for _, serverSide := range []bool{true, false} {
		t.Run(fmt.Sprintf("server=%t", serverSide), func(t *testing.T) {
			e := newEnv(t, fakeapiserver.Options{ShardedListAndWatch: serverSide, BookmarkInterval: 20 * time.Millisecond})
			churn(t, e, newRand(3), 30)
			sel, err := shard.Of(1, 2)
			require.NoError(t, err)
			sh, err := informer.NewShard(sel)
			require.NoError(t, err)
			opts := fastOpts()
			opts.Shard, opts.Sync.StreamingList = sh, true
			inf := informer.New[configMap](e.client, cmRef, opts)
			run(t, inf)
			synced(t, inf)
			require.Equal(t, shardOf(serverObjects(t, e), sel), cacheState(inf))
			require.Equal(t, serverSide, sh.ServerSide())
		})
	}
}
