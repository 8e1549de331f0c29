package informer_test

import (
	"fmt"
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
	"github.com/zerokube/zerokube/meta"
)

// cmMeta declares nothing beyond metadata (and its kind): an informer of it
// asks for PartialObjectMetadata.
type cmMeta struct {
	meta.TypeMeta
	meta.SlimMeta `json:"metadata"`
}

// acceptLogEnv is a fake whose requests' Accept headers are recorded.
func acceptLogEnv(t *testing.T) (*env, func() []string) {
	var mu sync.Mutex
	var accepts []string
	srv := fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet(), BookmarkInterval: 50 * time.Millisecond,
		Intercept: func(r *http.Request, verb string) error {
			if verb == "list" || verb == "watch" {
				mu.Lock()
				accepts = append(accepts, verb+" "+r.Header.Get("Accept"))
				mu.Unlock()
			}
			return nil
		}})
	c, err := apiclient.NewWithOptions(fakeapiservertest.ClientConfig(srv), apiclient.Options{})
	require.NoError(t, err)
	return &env{srv: srv, client: c}, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), accepts...)
	}
}

// TestAMetadataOnlyTypeAsksForPartialObjectMetadata: on both wires and by
// both kinds of list, an informer whose type reads nothing beyond metadata
// lists and watches PartialObjectMetadata (the trace says metadata=true),
// syncs, follows changes and keeps its objects' labels; FullObjects asks
// for whole objects again.
func TestAMetadataOnlyTypeAsksForPartialObjectMetadata(t *testing.T) {
	for _, tc := range []struct {
		json, streaming, full bool
	}{{false, false, false}, {true, false, false}, {false, true, false}, {true, true, false}, {false, false, true}} {
		t.Run(fmt.Sprintf("json=%t/streaming=%t/full=%t", tc.json, tc.streaming, tc.full), func(t *testing.T) {
			e, accepts := acceptLogEnv(t)
			for i := range 5 {
				e.put(t, fmt.Sprintf("cm-%d", i), "0", map[string]string{"app": "web"})
			}
			var mu sync.Mutex
			var traced []string
			opts := informer.Options[*cmMeta]{
				Sync: informer.SyncOptions{
					StreamingList: tc.streaming,
					PageSize:      2,
				},
				Observe: informer.ObserveOptions{
					Logger: quiet(),
					Trace: func(ev observe.Event) {
						if ev.Stage == observe.StageRelist || ev.Stage == observe.StageWatchOpened {
							mu.Lock()
							traced = append(traced, ev.String())
							mu.Unlock()
						}
					},
				},
			}
			opts.Transport.JSON, opts.Transport.FullObjects = tc.json, tc.full
			inf := informer.New[cmMeta](e.client, cmRef, opts)
			run(t, inf)
			synced(t, inf)
			require.Equal(t, 5, inf.Store().Len())
			e.put(t, "cm-1", "1", map[string]string{"app": "db"})
			require.Eventually(t, func() bool {
				cm, ok := inf.Lister().Namespace("default").Get("cm-1")
				return ok && cm.Labels["app"] == "db"
			}, wait, 5*time.Millisecond)
			cm, _ := inf.Lister().Namespace("default").Get("cm-0")
			for _, a := range accepts() {
				require.Equal(t, !tc.full, strings.Contains(a, ";as=PartialObjectMetadata"), a)
				require.Equal(t, !tc.json, strings.Contains(a, "application/vnd.kubernetes.protobuf"), a)
			}
			mu.Lock()
			defer mu.Unlock()
			require.NotEmpty(t, traced)
			for _, line := range traced {
				require.Equal(t, !tc.full, strings.Contains(line, "metadata=true"), line)
			}
			if tc.full {
				require.Equal(t, meta.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"}, cm.TypeMeta)
			} else {
				require.Equal(t, meta.TypeMeta{Kind: "PartialObjectMetadata", APIVersion: "meta.k8s.io/v1"}, cm.TypeMeta,
					"kube-apiserver's PartialObjectMetadata items carry their own kind")
			}
		})
	}
}
