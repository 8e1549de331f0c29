package fakeapiserver_test

import (
	"net/url"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/shard"
)

type uidNS struct{ uid, ns string }

func (o uidNS) GetUID() string       { return o.uid }
func (o uidNS) GetNamespace() string { return o.ns }

func wireObj(obj map[string]any) uidNS {
	md, _ := obj["metadata"].(map[string]any)
	uid, _ := md["uid"].(string)
	ns, _ := md["namespace"].(string)
	return uidNS{uid: uid, ns: ns}
}

func shardQuery(s shard.Selector) string { return "shardSelector=" + url.QueryEscape(s.String()) }

func TestShardSelectorIsIgnoredWithoutTheGate(t *testing.T) {
	srv := fakeapiservertest.Start(t)
	createPods(t, srv, 4)
	code, l := get(t, srv.URL()+"/api/v1/pods?shardSelector="+url.QueryEscape("not a selector"))
	require.Equal(t, 200, code, l)
	assert.Len(t, l["items"], 4)
	assert.NotContains(t, l["metadata"], "shardInfo")
}

func TestShardedListsSplitTheResourceAndSayWhichShard(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{ShardedListAndWatch: true})
	createPods(t, srv, 30)
	for _, n := range []int{1, 2, 3, 7} {
		seen := map[string]int{}
		for i := range n {
			s, err := shard.Of(i, n)
			require.NoError(t, err)
			// A compact spelling: the echo is the canonical form.
			sent := "shardRange(object.metadata.uid,'" + hexBound(s.Ranges[0].Start) + "','" + endBound(s.Ranges[0]) + "')"
			code, l := get(t, srv.URL()+"/api/v1/pods?limit=100&shardSelector="+url.QueryEscape(sent))
			require.Equal(t, 200, code, l)
			lm := l["metadata"].(map[string]any)
			assert.Equal(t, map[string]any{"selector": s.String()}, lm["shardInfo"])
			assert.NotContains(t, lm, "remainingItemCount")
			for _, it := range l["items"].([]any) {
				o := wireObj(it.(map[string]any))
				require.True(t, s.Contains(o), "%s is not in shard %d of %d", o.uid, i, n)
				seen[o.uid]++
			}
		}
		require.Len(t, seen, 30, "the %d shards together hold every pod", n)
		for uid, c := range seen {
			require.Equal(t, 1, c, "%s is in %d shards of %d", uid, c, n)
		}
	}
}

func hexBound(v uint64) string { return "0x" + pad16(strconv.FormatUint(v, 16)) }

func endBound(r shard.Range) string {
	if r.Last == ^uint64(0) {
		return "0x10000000000000000"
	}
	return hexBound(r.Last + 1)
}

func pad16(s string) string {
	for len(s) < 16 {
		s = "0" + s
	}
	return s
}

func TestMalformedShardSelectorIsA500WithoutReason(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{ShardedListAndWatch: true})
	for _, path := range []string{"/api/v1/pods?", "/api/v1/pods?watch=1&"} {
		code, st := get(t, srv.URL()+path+"shardSelector="+url.QueryEscape("shardRange(object.metadata.uid, '0x0', '0x8000000000000000')"))
		require.Equal(t, 500, code, st)
		assert.Equal(t, "Failure", st["status"])
		assert.NotContains(t, st, "reason")
		assert.Equal(t, `invalid shard selector: hexStart must be a 0x-prefixed 16-digit hex value, got "0x0" (did you mean "0x0000000000000000"?)`, st["message"])
	}
}

func TestShardedWatchesSendOnlyTheirShard(t *testing.T) {
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{ShardedListAndWatch: true})
	rv := strconv.FormatInt(srv.ResourceVersion(), 10)
	var sels [2]shard.Selector
	var ws [2]*watchStream
	for i := range 2 {
		sels[i], _ = shard.Of(i, 2)
		ws[i] = openWatch(t, srv.URL()+"/api/v1/pods?watch=1&resourceVersion="+rv+"&"+shardQuery(sels[i]), nil)
		require.Equal(t, 200, ws[i].resp.StatusCode)
	}
	want := [2]int{}
	for i := range 20 {
		r, err := srv.Create(podsGVR, pod("w"+strconv.Itoa(i), nil))
		require.NoError(t, err)
		for j := range 2 {
			if sels[j].Contains(&r.ObjectMeta) {
				want[j]++
			}
		}
	}
	require.Equal(t, 20, want[0]+want[1])
	for j := range 2 {
		for range want[j] {
			e := ws[j].mustNext()
			require.Equal(t, "ADDED", e.Type)
			require.True(t, sels[j].Contains(wireObj(e.Object)), "shard %d got %s", j, nameOf(e))
		}
	}
}
