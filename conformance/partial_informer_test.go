package conformance

import (
	"context"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/apiclient/websocket"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/meta"
)

// cmMetadata declares nothing beyond metadata: its informer asks for
// PartialObjectMetadata.
type cmMetadata struct {
	meta.TypeMeta
	meta.SlimMeta `json:"metadata"`
}

// TestAMetadataOnlyInformerSyncsAndFollows: on the fake and on
// kube-apiserver, over protobuf and JSON, by LIST and by streaming list,
// watching over chunked HTTP and over a websocket, an
// informer of a metadata-only type syncs from PartialObjectMetadata
// (every object of kind PartialObjectMetadata) and follows a relabel and a
// delete.
func TestAMetadataOnlyInformerSyncsAndFollows(t *testing.T) {
	onBoth(t, func(t *testing.T, tg *target) {
		for _, tc := range []struct{ json, streaming, websocket bool }{{false, false, false}, {true, false, false}, {false, true, false},
			{true, true, false}, {false, false, true}, {true, false, true}} {
			t.Run(fmt.Sprintf("json=%t/streaming=%t/websocket=%t", tc.json, tc.streaming, tc.websocket), func(t *testing.T) {
				ns := tg.namespace(t)
				p := "/api/v1/namespaces/" + ns + "/configmaps"
				for i := range 12 {
					tg.must(t, 201, "POST", p, obj(`{"metadata":{"name":"cm-%02d","labels":{"i":"%d"}},"data":{"k":"v"}}`, i, i))
				}
				c, err := apiclient.New(tg.cfg)
				require.NoError(t, err)
				opts := informer.Options[*cmMetadata]{Sync: informer.SyncOptions{StreamingList: tc.streaming, PageSize: 5}, Observe: informer.ObserveOptions{Logger: quiet()}}
				opts.Transport.JSON, opts.Transport.Websocket = tc.json, wsDialer(tc.websocket)
				inf := informer.New[cmMetadata](c, apiclient.Ref{GVR: cmGVR, Namespace: ns}, opts)
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan error, 1)
				go func() { done <- inf.Run(ctx) }()
				t.Cleanup(func() { cancel(); <-done; c.CloseIdleConnections() })
				wctx, wcancel := context.WithTimeout(ctx, 60*time.Second)
				defer wcancel()
				require.NoError(t, inf.WaitForSync(wctx))
				labels := func() map[string]string {
					out := map[string]string{}
					for _, o := range inf.Lister().List(meta.LabelSelector{}) {
						require.Equal(t, meta.TypeMeta{Kind: "PartialObjectMetadata", APIVersion: "meta.k8s.io/v1"}, o.TypeMeta)
						out[o.Name] = o.Labels["i"]
					}
					return out
				}
				require.Len(t, labels(), 12)
				tg.must(t, 200, "PATCH", p+"/cm-03", `{"metadata":{"labels":{"i":"changed"}}}`, "Content-Type", "application/merge-patch+json")
				tg.must(t, 200, "DELETE", p+"/cm-04", "")
				want := map[string]string{}
				for i := range 12 {
					want[fmt.Sprintf("cm-%02d", i)] = fmt.Sprint(i)
				}
				want["cm-03"] = "changed"
				delete(want, "cm-04")
				require.Eventually(t, func() bool { return maps.Equal(want, labels()) }, 30*time.Second, 10*time.Millisecond)
			})
		}
	})
}

// wsDialer is websocket.Dialer{} when ws, else nil: chunked HTTP.
func wsDialer(ws bool) apiclient.WebsocketDialer {
	if ws {
		return websocket.Dialer{}
	}
	return nil
}
