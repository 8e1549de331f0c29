package informer_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/shard"
)

// sent is one LIST or WATCH as the server received it.
type sent struct {
	verb                   string
	query                  map[string]string
	accept, acceptEncoding string
}

// TestTheTraceSaysEachRequestsShapeAndWhy: the relist and watch-opened
// events carry the shape of the request they are about, and it is the
// request the server received (its resourceVersion, page size, protobuf or
// JSON, gzip, metadata-only, selectors, streaming), with a reason for each
// choice.
func TestTheTraceSaysEachRequestsShapeAndWhy(t *testing.T) {
	for _, tc := range []struct {
		name string
		// run builds and syncs the informer with trace, over a client with
		// compression as noGzip says.
		run     func(t *testing.T, c *apiclient.Client, trace func(observe.Event))
		noGzip  bool
		sharded bool     // the server filters shards (ShardedListAndWatch)
		probes  int      // LISTs of one object sent before the traced requests (a shard's probe)
		want    []string // the traced requests, in order; $SHARD: shardOf0
		reasons []string // among the relist's reasons
		later   []string // among the second request's reasons
	}{{
		name: "defaults, a metadata-only type",
		run: func(t *testing.T, c *apiclient.Client, trace func(observe.Event)) {
			inf := informer.New[cmMeta](c, cmRef, informer.Options[*cmMeta]{Observe: informer.ObserveOptions{Logger: quiet(), Trace: trace}})
			run(t, inf)
			synced(t, inf)
		},
		want: []string{"list rv=0 limit=500 protobuf gzip metadata", "watch rv=$RV protobuf gzip metadata"},
		reasons: []string{"metadata-only: the type reads only metadata", "rv=0: any state will do, so kube-apiserver answers from its watch cache",
			"protobuf: a built-in kind", "gzip: apiclient.Config.DisableCompression is unset"},
	}, {
		name: "a whole type, JSON, consistent, a field selector, no gzip",
		run: func(t *testing.T, c *apiclient.Client, trace func(observe.Event)) {
			opts := informer.Options[*configMap]{
				FieldSelector: "metadata.name!=cm-9",
				Sync: informer.SyncOptions{
					ConsistentFirstList: true,
					PageSize:            2,
				},
				Observe: informer.ObserveOptions{
					Logger: quiet(),
					Trace:  trace,
				},
			}
			opts.Transport.JSON = true
			inf := informer.New[configMap](c, cmRef, opts)
			run(t, inf)
			synced(t, inf)
		},
		noGzip: true,
		want:   []string{`list rv="" limit=2 json whole fieldSelector=metadata.name!=cm-9`, "watch rv=$RV json whole fieldSelector=metadata.name!=cm-9"},
		reasons: []string{`consistent (rv ""): Options.Sync.ConsistentFirstList`, "limit: Options.Sync.PageSize", "whole objects: the type reads more than metadata",
			"JSON: Transport.JSON", "no gzip: apiclient.Config.DisableCompression", "selectors: Options.FieldSelector and LabelSelector"},
	}, {
		name: "a streaming list of whole objects asked for by a metadata-only type",
		run: func(t *testing.T, c *apiclient.Client, trace func(observe.Event)) {
			opts := informer.Options[*cmMeta]{Sync: informer.SyncOptions{StreamingList: true}, Observe: informer.ObserveOptions{Logger: quiet(), Trace: trace}}
			opts.Transport.FullObjects = true
			inf := informer.New[cmMeta](c, cmRef, opts)
			run(t, inf)
			synced(t, inf)
		},
		want:    []string{`streaming-list rv="" match=NotOlderThan protobuf gzip whole`, `streaming-list rv="" match=NotOlderThan protobuf gzip whole`},
		reasons: []string{"streaming list: Options.Sync.StreamingList", "memory, not the server's CPU", "whole objects: Transport.FullObjects"},
	}, {
		name: "a shard and a label selector, on a server that filters shards",
		run: func(t *testing.T, c *apiclient.Client, trace func(observe.Event)) {
			sh, err := informer.NewShard(shardOf0)
			require.NoError(t, err)
			inf := informer.New[configMap](c, cmRef, informer.Options[*configMap]{LabelSelector: "app=demo", Shard: sh,
				Observe: informer.ObserveOptions{Logger: quiet(), Trace: trace}})
			run(t, inf)
			synced(t, inf)
		},
		sharded: true,
		want:    []string{"list rv=0 limit=500 protobuf gzip whole labelSelector=app=demo shardSelector=$SHARD", "watch rv=$RV protobuf gzip whole labelSelector=app=demo shardSelector=$SHARD"},
		reasons: []string{"selectors: Options.FieldSelector and LabelSelector", "shardSelector: Options.Shard (KEP-5866): a server with the ShardedListAndWatch gate filters"},
		later:   []string{"shardSelector: Options.Shard (KEP-5866): the server filtered the last list"},
	}, {
		name: "a streaming list of a shard: the probe LIST first",
		run: func(t *testing.T, c *apiclient.Client, trace func(observe.Event)) {
			sh, err := informer.NewShard(shardOf0)
			require.NoError(t, err)
			inf := informer.New[configMap](c, cmRef, informer.Options[*configMap]{Shard: sh, Sync: informer.SyncOptions{StreamingList: true},
				Observe: informer.ObserveOptions{Logger: quiet(), Trace: trace}})
			run(t, inf)
			synced(t, inf)
		},
		sharded: true,
		probes:  1,
		want:    []string{`streaming-list rv="" match=NotOlderThan protobuf gzip whole shardSelector=$SHARD`, `streaming-list rv="" match=NotOlderThan protobuf gzip whole shardSelector=$SHARD`},
		reasons: []string{"streaming list: Options.Sync.StreamingList", "shardSelector: Options.Shard (KEP-5866): a server with the ShardedListAndWatch gate filters",
			`shardSelector: a LIST of one object (limit=1, rv "") goes first, to learn whether the server filters`},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var log []sent
			srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet(), BookmarkInterval: 50 * time.Millisecond, ShardedListAndWatch: tc.sharded,
				Intercept: func(r *http.Request, verb string) error {
					if verb != "list" && verb != "watch" {
						return nil
					}
					q := map[string]string{}
					for k, v := range r.URL.Query() {
						q[k] = v[0]
					}
					mu.Lock()
					log = append(log, sent{verb: verb, query: q, accept: r.Header.Get("Accept"), acceptEncoding: r.Header.Get("Accept-Encoding")})
					mu.Unlock()
					return nil
				}})
			e := &env{srv: srv}
			for _, name := range []string{"cm-1", "cm-2", "cm-3"} {
				e.put(t, name, "v", map[string]string{"app": "demo"})
			}
			cfg := fakeapiservertest.ClientConfig(srv)
			cfg.DisableCompression = tc.noGzip
			c, err := apiclient.New(cfg)
			require.NoError(t, err)
			var traced []observe.Event
			tc.run(t, c, func(ev observe.Event) {
				if ev.Stage == observe.StageRelist || ev.Stage == observe.StageWatchOpened {
					mu.Lock()
					traced = append(traced, ev)
					mu.Unlock()
				}
			})
			// Synced comes before the watch opens.
			require.Eventually(t, func() bool {
				mu.Lock()
				defer mu.Unlock()
				return len(traced) >= len(tc.want)
			}, wait, time.Millisecond)
			mu.Lock()
			defer mu.Unlock()
			require.Len(t, traced, len(tc.want), "the traced requests")
			var first []sent // each request's first: a list's first page, every watch
			for _, s := range log {
				if s.query["continue"] == "" {
					first = append(first, s)
				}
			}
			for _, p := range first[:tc.probes] {
				require.Equal(t, sent{verb: "list", query: map[string]string{"limit": "1", "shardSelector": shardOf0.String()}},
					sent{verb: p.verb, query: p.query}, "the shard's probe")
			}
			first = first[tc.probes:]
			for i, ev := range traced {
				require.NotNil(t, ev.Request, "%s carries no request", ev)
				want := strings.NewReplacer("$RV", ev.ResourceVersion, "$SHARD", shardOf0.String()).Replace(tc.want[i])
				require.Equal(t, want, ev.Request.String(), "traced as %s", ev)
				require.Contains(t, ev.String(), `request="`+strings.ReplaceAll(want, `"`, `\"`)+`"`)
				require.Contains(t, ev.String(), "why=")
				// The request the server got is the one traced (a streaming
				// list's relist and watch-opened are both its one watch).
				j := i
				if ev.Streaming {
					j = 0
				}
				require.Less(t, j, len(first), "no request for %s", ev)
				checkSent(t, ev.Request, first[j])
			}
			why := strings.Join(traced[0].Request.Why, "; ")
			for _, r := range tc.reasons {
				require.Contains(t, why, r)
			}
			why = strings.Join(traced[1].Request.Why, "; ")
			for _, r := range tc.later {
				require.Contains(t, why, r)
			}
		})
	}
}

// shardOf0 is the first half of the uid hashes.
var shardOf0 = func() shard.Selector {
	sel, err := shard.Of(0, 2)
	if err != nil {
		panic(err)
	}
	return sel
}()

// checkSent requires that s is what shape says was sent.
func checkSent(t *testing.T, shape *observe.Request, s sent) {
	t.Helper()
	verb := map[observe.Verb]string{observe.VerbList: "list", observe.VerbWatch: "watch", observe.VerbStreamingList: "watch"}[shape.Verb]
	require.Equal(t, verb, s.verb, "%s", shape)
	require.Equal(t, shape.ResourceVersion, s.query["resourceVersion"], "%s: resourceVersion sent", shape)
	require.Equal(t, shape.ResourceVersionMatch, s.query["resourceVersionMatch"], "%s: resourceVersionMatch sent", shape)
	require.Equal(t, shape.Verb == observe.VerbStreamingList, s.query["sendInitialEvents"] == "true", "%s: sendInitialEvents", shape)
	limit := ""
	if shape.Limit > 0 {
		limit = strings.TrimPrefix(strings.Fields(shape.String())[2], "limit=")
	}
	require.Equal(t, limit, s.query["limit"], "%s: limit sent", shape)
	require.Equal(t, shape.FieldSelector, s.query["fieldSelector"], "%s: fieldSelector sent", shape)
	require.Equal(t, shape.LabelSelector, s.query["labelSelector"], "%s: labelSelector sent", shape)
	require.Equal(t, shape.ShardSelector, s.query["shardSelector"], "%s: shardSelector sent", shape)
	require.Equal(t, shape.Protobuf, strings.Contains(s.accept, "application/vnd.kubernetes.protobuf"), "%s: Accept %s", shape, s.accept)
	require.Equal(t, shape.Metadata, strings.Contains(s.accept, "as=PartialObjectMetadata"), "%s: Accept %s", shape, s.accept)
	require.Equal(t, shape.Gzip, s.acceptEncoding == "gzip", "%s: Accept-Encoding %q", shape, s.acceptEncoding)
}
