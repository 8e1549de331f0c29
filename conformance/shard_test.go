package conformance

import (
	"fmt"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/shard"
)

// shardedFakeTarget is the fake with the ShardedListAndWatch gate on, as
// kubetest starts kube-apiserver.
func shardedFakeTarget(t *testing.T) *target {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{TLS: true, Tokens: []fakeapiserver.Token{{Value: fakeToken}},
		Logger: quiet(), ShardedListAndWatch: true})
	cfg := fakeapiservertest.ClientConfig(srv)
	return &target{name: "fake", url: srv.URL(), token: fakeToken, http: httpClient(t, cfg), cfg: cfg, fake: srv}
}

// TestShardSelectors checks KEP-5866 on the fake and, where its binaries
// are present, on kube-apiserver v1.37.2 started with the gate: shards of
// a list partition it, shardInfo echoes the canonical selector, and a
// malformed selector gets the same answer from both.
func TestShardSelectors(t *testing.T) {
	answers := map[string]reply{}
	for _, name := range []string{"fake", "kube-apiserver"} {
		t.Run(name, func(t *testing.T) {
			var tg *target
			if name == "fake" {
				tg = shardedFakeTarget(t)
			} else {
				tg = realTarget(t, realServer(t))
			}
			answers[name] = shardScenario(t, tg)
		})
	}
	fake, okF := answers["fake"]
	real, okR := answers["kube-apiserver"]
	if !okF || !okR {
		t.Log("kube-apiserver not run: nothing to compare")
		return
	}
	require.Equal(t, real.code, fake.code)
	for _, k := range []string{"status", "reason", "message", "code"} {
		require.Equal(t, real.body[k], fake.body[k], "Status %s of a malformed selector", k)
	}
}

// shardScenario runs the checks on tg and returns its answer to a
// malformed selector.
func shardScenario(t *testing.T, tg *target) reply {
	ns := tg.namespace(t)
	group := "shards"
	base := "/api/v1/namespaces/" + ns + "/configmaps"
	for i := range 12 {
		r := tg.do(t, "POST", base, fmt.Sprintf(`{"metadata":{"name":"%s-%d","labels":{"shardtest":"%s"}}}`, group, i, group))
		require.Equal(t, 201, r.code, "%s", r.raw)
	}
	seen := map[string]int{}
	for i := range 2 {
		sel, err := shard.Of(i, 2)
		require.NoError(t, err)
		compact := fmt.Sprintf("shardRange(object.metadata.uid,'%s','%s')", boundHex(sel.Ranges[0].Start, false), boundHex(sel.Ranges[0].Last, true))
		r := tg.do(t, "GET", base+"?labelSelector=shardtest%3D"+group+"&shardSelector="+url.QueryEscape(compact), "")
		require.Equal(t, 200, r.code, "%s", r.raw)
		lm := r.body["metadata"].(map[string]any)
		require.Equal(t, map[string]any{"selector": sel.String()}, lm["shardInfo"], "the echo is the canonical form")
		for _, it := range r.body["items"].([]any) {
			md := it.(map[string]any)["metadata"].(map[string]any)
			uid := md["uid"].(string)
			require.True(t, sel.ContainsHash(shard.Hash(uid)), "%s in shard %d", uid, i)
			seen[uid]++
		}
	}
	require.Len(t, seen, 12, "two shards hold every configmap")
	for uid, n := range seen {
		require.Equal(t, 1, n, "%s in %d shards", uid, n)
	}
	shardedInformer(t, tg, ns, base)
	bad := tg.do(t, "GET", base+"?shardSelector="+url.QueryEscape("shardRange(object.metadata.uid, '0x0', '0x8000000000000000')"), "")
	t.Logf("%s answers a malformed selector with %d %s", tg.name, bad.code, bad.raw)
	return bad
}

// shardedInformer runs informers on shard 1 of 2, by LIST and by streaming
// list, and checks that each caches exactly what a sharded LIST returns,
// before and after more writes, and that each saw the server filter.
func shardedInformer(t *testing.T, tg *target, ns, base string) {
	sel, err := shard.Of(1, 2)
	require.NoError(t, err)
	want := func() map[string]string {
		r := tg.do(t, "GET", base+"?shardSelector="+url.QueryEscape(sel.String()), "")
		require.Equal(t, 200, r.code, "%s", r.raw)
		out := map[string]string{}
		for _, it := range r.body["items"].([]any) {
			out[it.(map[string]any)["metadata"].(map[string]any)["name"].(string)] = ""
		}
		return out
	}
	for _, streaming := range []bool{false, true} {
		sh, err := informer.NewShard(sel)
		require.NoError(t, err)
		r := startInformer(t, tg, ns, informer.Options[*configMap]{Shard: sh, Sync: informer.SyncOptions{StreamingList: streaming}}, nil)
		r.awaitCache(t, want())
		require.True(t, sh.ServerSide(), "streaming=%t: the server filtered", streaming)
		for i := range 4 {
			tg.must(t, 201, "POST", base, fmt.Sprintf(`{"metadata":{"name":"more-%t-%d"}}`, streaming, i))
		}
		r.awaitCache(t, want())
		r.stop()
	}
}

// boundHex is a bound in the wire's hex; last means v is an inclusive last
// hash whose exclusive end is wanted.
func boundHex(v uint64, last bool) string {
	if last {
		if v == ^uint64(0) {
			return "0x10000000000000000"
		}
		v++
	}
	return fmt.Sprintf("0x%016x", v)
}
