package reliability

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/apiclient/websocket"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/shard"
)

// cmMeta declares nothing beyond metadata: the informer asks for
// PartialObjectMetadata.
type cmMeta struct {
	meta.TypeMeta
	meta.SlimMeta `json:"metadata"`
}

// metaRow is one option (or a few) met by the metadata-only request.
type metaRow struct {
	name        string
	tweak       func(*informer.Options[*cmMeta])
	shard       bool // shard 0 of 2 by uid
	serverShard bool // the fake filters the shard (else the informer does)
	snapshot    bool // stop, churn, restart from the snapshot
	full        bool // Transport.FullObjects: whole objects after all
}

// TestTheMetadataRequestMeetsEveryOption is the option matrix's missing
// dimension, the request's shape (its type carries no data for the
// matrix's oracle): a metadata-only informer with each other option, and
// a few together, asks for PartialObjectMetadata on every list and watch
// (or for whole objects with FullObjects), and ends with the server's
// objects, their labels as the server has them, and nothing undecodable.
func TestTheMetadataRequestMeetsEveryOption(t *testing.T) {
	streaming := func(o *informer.Options[*cmMeta]) { o.Sync.StreamingList = true }
	for _, row := range []metaRow{
		{name: "defaults"},
		{name: "json", tweak: func(o *informer.Options[*cmMeta]) { o.Transport.JSON = true }},
		{name: "streaming", tweak: streaming},
		{name: "streaming/json", tweak: func(o *informer.Options[*cmMeta]) { o.Sync.StreamingList, o.Transport.JSON = true, true }},
		{name: "websocket", tweak: func(o *informer.Options[*cmMeta]) { o.Transport.Websocket = websocket.Dialer{} }},
		{name: "deltafifo", tweak: func(o *informer.Options[*cmMeta]) { o.Process.DeltaFIFO = true }},
		{name: "inline", tweak: func(o *informer.Options[*cmMeta]) { o.Process.InlineProcessing = true }},
		{name: "consistent-paged", tweak: func(o *informer.Options[*cmMeta]) { o.Sync.ConsistentFirstList, o.Sync.PageSize = true, 3 }},
		{name: "skip-undecodable", tweak: func(o *informer.Options[*cmMeta]) { o.Decode.SkipUndecodable = true }},
		{name: "transform", tweak: func(o *informer.Options[*cmMeta]) {
			o.Decode.Transform = func(p *cmMeta) (*cmMeta, error) {
				p.Labels = maps.Clone(p.Labels)
				p.Labels["t"] = "x"
				return p, nil
			}
		}},
		{name: "shard/server", shard: true, serverShard: true},
		{name: "shard/informer", shard: true},
		{name: "snapshot", snapshot: true},
		{name: "snapshot/streaming/shard", tweak: streaming, snapshot: true, shard: true, serverShard: true},
		{name: "full-objects", tweak: func(o *informer.Options[*cmMeta]) { o.Transport.FullObjects = true }, full: true},
		{name: "full-objects/streaming/json", tweak: func(o *informer.Options[*cmMeta]) {
			o.Transport.FullObjects, o.Sync.StreamingList, o.Transport.JSON = true, true, true
		}, full: true},
	} {
		t.Run(row.name, func(t *testing.T) { row.run(t) })
	}
}

func (row metaRow) run(t *testing.T) {
	var wrong atomic.Int64 // lists and watches that did not ask for the row's shape
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet(), BookmarkInterval: 20 * time.Millisecond,
		ShardedListAndWatch: row.serverShard, Intercept: func(r *http.Request, verb string) error {
			if verb == "list" || verb == "watch" {
				if strings.Contains(r.Header.Get("Accept"), "as=PartialObjectMetadata") == row.full {
					wrong.Add(1)
				}
			}
			return nil
		}})
	c, err := apiclient.New(fakeapiservertest.ClientConfig(srv))
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	put := func(name, label string) {
		_, err := srv.Create(cmGVR, map[string]any{"metadata": map[string]any{"name": name, "namespace": "default",
			"labels": map[string]string{"i": label}}, "data": map[string]string{"k": "v"}})
		require.NoError(t, err)
	}
	for i := range 12 {
		put(fmt.Sprintf("cm-%02d", i), fmt.Sprint(i))
	}
	var sel shard.Selector
	opts := informer.Options[*cmMeta]{
		Name:    "meta",
		Backoff: informer.BackoffOptions{Initial: 10 * time.Millisecond, Max: 100 * time.Millisecond},
		Sync:    informer.SyncOptions{PageSize: 5},
		Observe: informer.ObserveOptions{Logger: quiet()},
	}
	if row.tweak != nil {
		row.tweak(&opts)
	}
	if row.snapshot {
		opts.Snapshot = informer.SnapshotOptions{Dir: t.TempDir(), Period: -1}
	}
	if row.shard {
		sel, err = shard.Of(0, 2)
		require.NoError(t, err)
	}
	var resumed atomic.Bool
	start := func() (*informer.Informer[cmMeta, *cmMeta], func()) {
		o := opts
		if row.shard {
			sh, err := informer.NewShard(sel)
			require.NoError(t, err)
			o.Shard = sh
		}
		o.Observe.Trace = func(e observe.Event) {
			if e.Stage == observe.StageSnapshotLoaded {
				resumed.Store(true)
			}
		}
		inf := informer.New[cmMeta](c, apiclient.Ref{GVR: cmGVR, Namespace: "default"}, o)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- inf.Run(ctx) }()
		stop := func() { cancel(); require.NoError(t, <-done) }
		wctx, wcancel := context.WithTimeout(ctx, matrixWait)
		defer wcancel()
		require.NoError(t, inf.WaitForSync(wctx))
		return inf, stop
	}
	inf, stop := start()
	churn := func(step int) {
		_, err := srv.Patch(cmGVR, "default", fmt.Sprintf("cm-%02d", step), meta.MergePatch,
			[]byte(`{"metadata":{"labels":{"i":"changed"}}}`))
		require.NoError(t, err)
		require.NoError(t, srv.Delete(cmGVR, "default", fmt.Sprintf("cm-%02d", step+1)))
		put(fmt.Sprintf("new-%d", step), "new")
	}
	// want is the server's objects (of the row's shard), name -> label i.
	want := func() map[string]string {
		objs, _, err := srv.List(cmGVR, "default")
		require.NoError(t, err)
		out := map[string]string{}
		for _, o := range objs {
			if !row.shard || sel.Contains(&o.ObjectMeta) {
				out[o.Name] = o.Labels["i"]
			}
		}
		return out
	}
	got := func() map[string]string {
		out := map[string]string{}
		for _, o := range inf.Lister().List(meta.LabelSelector{}) {
			out[o.Name] = o.Labels["i"]
		}
		return out
	}
	caughtUp := func() {
		t.Helper()
		w := want()
		require.Eventually(t, func() bool { return maps.Equal(w, got()) }, matrixWait, 10*time.Millisecond,
			"cache %v, server %v", got(), w)
	}
	churn(3)
	if row.snapshot {
		// A snapshot is written at stop only once the queue is drained
		// (the cache then holds exactly the state at its rv), and the
		// processing loop stops with Run: stopped before the churn's
		// events were applied, the informer writes none (5 of 300 runs
		// did) and the restart lists. Stop once the cache has caught up.
		caughtUp()
		stop()
		churn(6)
		inf, stop = start()
		require.True(t, resumed.Load(), "the restart resumed from the snapshot")
	}
	defer stop()
	churn(9)
	caughtUp()
	kind := meta.TypeMeta{Kind: "PartialObjectMetadata", APIVersion: "meta.k8s.io/v1"}
	if row.full {
		kind = meta.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"}
	}
	for _, o := range inf.Lister().List(meta.LabelSelector{}) {
		require.Equal(t, kind, o.TypeMeta, o.Name)
		if opts.Decode.Transform != nil {
			require.Equal(t, "x", o.Labels["t"], "%s went through the transform", o.Name)
		}
	}
	require.Empty(t, inf.Undecodable())
	require.Zero(t, wrong.Load(), "lists and watches that did not ask for the type's shape")
}
